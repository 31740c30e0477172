/**
 * The one circuit breaker: per key (a provider, a store), failures in a row
 * open the circuit for a cool-down, during which callers leave that key alone;
 * after the cool-down the key is on trial (half open), where one more failure
 * re-opens it at once and a success closes it. A failure may also open the
 * circuit at once for a given time (a credential refused, a `Retry-After`).
 *
 * @module
 */

/** Settings of {@link createCircuitBreaker}. */
export interface CircuitBreakerOptions {
  /** Failures in a row that open the circuit. */
  failures: number;
  /** Cool-down once open (ms). */
  cooldownMs: number;
  /** Clock in ms (tests and benchmarks may pass their own); default `Date.now`. */
  now?: () => number;
}

/** How a key stands: `closed` (in use), `open` (cooling down), `half_open` (on trial). */
export type CircuitState = "closed" | "open" | "half_open";

/** What the breaker knows of one key. */
export interface CircuitStatus<R> {
  /** The key. */
  key: string;
  /** Its state now. */
  state: CircuitState;
  /** Failures in a row. */
  failures: number;
  /** When the cool-down ends (ms on the breaker's clock), while open. */
  openUntil?: number;
  /** The reason given with the last failure. */
  lastReason?: R;
}

/** A circuit breaker over string keys; `R` is the reason recorded with a failure. */
export interface CircuitBreaker<R = never> {
  /** True while `key` is cooling down: leave it alone. */
  isOpen(key: string): boolean;
  /** Records a success: `key` is closed again and its count starts over. */
  success(key: string): void;
  /**
   * Records a failure of `key`. With `openForMs` the circuit opens at once for
   * that long; without, it opens for the cool-down once the failures in a row
   * reach the threshold (so a failure on trial re-opens it at once). An open
   * circuit is never shortened.
   */
  failure(key: string, reason?: R, openForMs?: number): void;
  /** The state of every key seen, in the order first seen. */
  status(): CircuitStatus<R>[];
}

/**
 * Creates a circuit breaker.
 *
 * @example
 * ```ts
 * import { createCircuitBreaker } from "./breaker.ts";
 * let now = 0;
 * const breaker = createCircuitBreaker({ failures: 2, cooldownMs: 1000, now: () => now });
 * breaker.failure("exa");
 * console.assert(!breaker.isOpen("exa"));
 * breaker.failure("exa");
 * console.assert(breaker.isOpen("exa"));
 * now = 1001;
 * console.assert(!breaker.isOpen("exa") && breaker.status()[0].state === "half_open");
 * ```
 */
export function createCircuitBreaker<R = never>(
  options: CircuitBreakerOptions,
): CircuitBreaker<R> {
  const now = options.now ?? Date.now;
  const keys = new Map<string, { failures: number; openUntil: number; lastReason?: R }>();
  const entry = (key: string) => {
    let e = keys.get(key);
    if (!e) keys.set(key, e = { failures: 0, openUntil: Number.NEGATIVE_INFINITY });
    return e;
  };
  return {
    isOpen: (key) => (keys.get(key)?.openUntil ?? Number.NEGATIVE_INFINITY) > now(),
    success(key) {
      const e = entry(key);
      e.failures = 0;
      e.openUntil = Number.NEGATIVE_INFINITY;
    },
    failure(key, reason, openForMs) {
      const e = entry(key);
      e.failures++;
      if (reason !== undefined) e.lastReason = reason;
      const at = now();
      const until = openForMs !== undefined
        ? at + openForMs
        : e.failures >= options.failures
        ? at + options.cooldownMs
        : Number.NEGATIVE_INFINITY;
      e.openUntil = Math.max(e.openUntil, until);
    },
    status() {
      const at = now();
      return [...keys.entries()].map(([key, e]) => ({
        key,
        state: e.openUntil > at ? "open" : e.failures >= options.failures ? "half_open" : "closed",
        failures: e.failures,
        ...(e.openUntil > at ? { openUntil: e.openUntil } : {}),
        ...(e.lastReason !== undefined ? { lastReason: e.lastReason } : {}),
      }));
    },
  };
}
