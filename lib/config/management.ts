/**
 * Constants of the management views' settings (`server.management`, `server.management_token`).
 *
 * @module
 */

/** The shortest management token accepted (characters). */
export const MANAGEMENT_TOKEN_MIN = 24;
