/**
 * The states a domain's robots.txt can be in, as the robots check reports
 * them (`robots.ts`) and the domain memory keeps them (`lib/store/`).
 *
 * @module
 */

/** The state of a domain's robots.txt, as last seen. */
export type RobotsState = "missing" | "allow_all" | "partial" | "disallow_all" | "error";

/** Every {@link RobotsState}. */
export const ROBOTS_STATES: readonly RobotsState[] = [
  "missing",
  "allow_all",
  "partial",
  "disallow_all",
  "error",
];
