/**
 * A small breaker for optional stores (a shared cache, domain memory): after
 * a failure the store is left alone for a pause, so an outage costs one slow
 * call per pause instead of one per request, and it is warned about once a
 * minute at most.
 *
 * @module
 */

/** Options of {@link createOutageGate}. */
export interface OutageGateOptions {
  /** How long to leave the store alone after a failure (ms); default 30 s. */
  pauseMs?: number;
  /** Least time between two warnings (ms); default 60 s. */
  warnEveryMs?: number;
  /** Clock (ms since epoch); injectable for tests. */
  now?: () => number;
}

/** The state of one optional store. */
export interface OutageGate {
  /** True when the store may be used now (no recent failure). */
  open(): boolean;
  /** Notes a failure; returns true when this one should be logged as a warning. */
  failed(): boolean;
}

/**
 * Creates a gate.
 *
 * @example
 * ```ts
 * import { createOutageGate } from "./outage.ts";
 * let t = 0;
 * const gate = createOutageGate({ pauseMs: 1000, now: () => t });
 * console.assert(gate.open());
 * console.assert(gate.failed() === true); // first failure: warn
 * console.assert(!gate.open());
 * t = 1001;
 * console.assert(gate.open() && gate.failed() === false); // warned less than a minute ago
 * ```
 */
export function createOutageGate(options: OutageGateOptions = {}): OutageGate {
  const pauseMs = options.pauseMs ?? 30_000;
  const warnEveryMs = options.warnEveryMs ?? 60_000;
  const now = options.now ?? Date.now;
  let pausedUntil = Number.NEGATIVE_INFINITY;
  let lastWarning = Number.NEGATIVE_INFINITY;
  return {
    open: () => now() >= pausedUntil,
    failed() {
      const t = now();
      pausedUntil = t + pauseMs;
      if (t - lastWarning < warnEveryMs) return false;
      lastWarning = t;
      return true;
    },
  };
}
