/**
 * The product's version and identity, used in the User-Agent and surfaces.
 *
 * @module
 */

/** Gleaner's version (kept equal to `deno.json`). */
export const VERSION = "0.1.0";

/**
 * Where the project lives; named in the User-Agent.
 *
 * @internal exported for tests only
 */
export const PROJECT_URL = "https://jsr.io/@gleaner/gleaner";

/** The honest User-Agent every outgoing request carries by default. */
export const USER_AGENT = `Gleaner/${VERSION} (+${PROJECT_URL})`;
