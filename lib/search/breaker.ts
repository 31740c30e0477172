/**
 * Per-provider health for the role router: the provider policy of the one
 * circuit breaker (`lib/async/breaker.ts`), which skips a provider that keeps
 * failing for a cool-down. (Calls are spaced to a provider's requests per second by
 * the rate gate of `lib/async/rate_gate.ts`.)
 *
 * @module
 */
import { createCircuitBreaker } from "../async/breaker.ts";
import type { ErrorCode } from "../errors.ts";

/** What the breaker knows of one provider. */
export interface ProviderHealth {
  /** Provider name. */
  provider: string;
  /** `closed` (in use), `open` (skipped until `open_until`), `half_open` (on trial). */
  state: "closed" | "open" | "half_open";
  /** Failures in a row. */
  failures: number;
  /** When the cool-down ends (ISO 8601), while open. */
  open_until?: string;
  /** The code of the last failure. */
  last_code?: ErrorCode;
}

/** Breaker settings. */
export interface BreakerOptions {
  /** Failures in a row that open the breaker. */
  failures: number;
  /** Cool-down (ms). */
  cooldownMs: number;
  /** Clock (tests and benchmarks may pass their own). */
  now?: () => number;
}

/** A circuit breaker per provider. */
export interface Breaker {
  /** True while the provider is cooling down. */
  isOpen(provider: string): boolean;
  /** Records a success: the provider is closed again. */
  success(provider: string): void;
  /**
   * Records a failure. Out of credit or refused credentials open at once
   * (for the cool-down: neither mends itself between two calls); a rate
   * limit with `Retry-After` opens for that long; other failures open after
   * `failures` in a row, and a failure on trial re-opens at once. A bot wall
   * (`blocked`: a keyless engine's challenge page) opens at once for the
   * cool-down: asking again at once only hardens it.
   */
  failure(provider: string, code: ErrorCode, retryAfterS?: number, blocked?: boolean): void;
  /** The state of every provider seen. */
  health(): ProviderHealth[];
}

/**
 * Creates a breaker.
 *
 * @example
 * ```ts
 * import { createBreaker } from "./breaker.ts";
 * let now = 0;
 * const breaker = createBreaker({ failures: 2, cooldownMs: 1000, now: () => now });
 * breaker.failure("exa", "provider_unavailable");
 * console.assert(!breaker.isOpen("exa"));
 * breaker.failure("exa", "provider_unavailable");
 * console.assert(breaker.isOpen("exa"));
 * now = 1001;
 * console.assert(!breaker.isOpen("exa"));
 * ```
 */
export function createBreaker(options: BreakerOptions): Breaker {
  const circuits = createCircuitBreaker<ErrorCode>(options);
  return {
    isOpen: (provider) => circuits.isOpen(provider),
    success: (provider) => circuits.success(provider),
    failure(provider, code, retryAfterS, blocked) {
      if (code === "insufficient_balance" || code === "unauthorized" || blocked) {
        circuits.failure(provider, code, options.cooldownMs);
      } else if (code === "rate_limited" && retryAfterS !== undefined) {
        circuits.failure(provider, code, retryAfterS * 1000);
      } else circuits.failure(provider, code);
    },
    health: () =>
      circuits.status().map((c) => ({
        provider: c.key,
        state: c.state,
        failures: c.failures,
        ...(c.openUntil !== undefined ? { open_until: new Date(c.openUntil).toISOString() } : {}),
        ...(c.lastReason ? { last_code: c.lastReason } : {}),
      })),
  };
}
