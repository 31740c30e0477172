/**
 * A small breaker for optional stores (a shared cache, domain memory): after
 * a failure the store is left alone for a pause, so an outage costs one slow
 * call per pause instead of one per request, and it is warned about once a
 * minute at most. The pause is the one circuit breaker (`lib/async/breaker.ts`)
 * opening at the first failure; this gate adds the warning's rate.
 *
 * @module
 */
import { createCircuitBreaker } from "../async/breaker.ts";

/** The gate's one key in its breaker. */
const STORE = "store";

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
  const warnEveryMs = options.warnEveryMs ?? 60_000;
  const now = options.now ?? Date.now;
  const circuit = createCircuitBreaker({ failures: 1, cooldownMs: options.pauseMs ?? 30_000, now });
  let lastWarning = Number.NEGATIVE_INFINITY;
  return {
    open: () => !circuit.isOpen(STORE),
    failed() {
      circuit.failure(STORE);
      const t = now();
      if (t - lastWarning < warnEveryMs) return false;
      lastWarning = t;
      return true;
    },
  };
}
