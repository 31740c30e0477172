/**
 * A rate gate: calls under one key are spaced `1000 / perSecond` ms apart, and
 * a caller that would wait longer than it may is told so instead of queued.
 * The role router holds each provider to its `requests_per_second` with one.
 *
 * Not to be confused with `pace.ts`, which slices long main-thread work so the
 * event loop keeps answering; this one spaces outgoing calls.
 *
 * @example
 * ```ts
 * import { createRateGate } from "./rate_gate.ts";
 * const gate = createRateGate();
 * console.assert(await gate.wait("keenable", 1000, 100));
 * console.assert(await gate.wait("keenable", undefined, 0));
 * console.assert(gate.delayOf("keenable", 1000) > 0 && gate.delayOf("other", 1000) === 0);
 * ```
 *
 * @module
 */
import { delay } from "./delay.ts";

/** Spaces calls per key. */
export interface RateGate {
  /**
   * Resolves `true` when a call under `key` may be sent at `perSecond`
   * (at once without a rate); resolves `false`, reserving nothing, when that
   * would take longer than `maxWaitMs`; rejects with the signal's reason when
   * `signal` aborts first.
   */
  wait(
    key: string,
    perSecond: number | undefined,
    maxWaitMs: number,
    signal?: AbortSignal,
  ): Promise<boolean>;
  /**
   * How long (ms) a call under `key` at `perSecond` would wait if asked now
   * (0 without a rate, or when its slot is free); reserves nothing. Lets a
   * caller that may choose among keys prefer one that is free.
   */
  delayOf(key: string, perSecond: number | undefined): number;
}

/** Creates a rate gate with no call reserved yet. */
export function createRateGate(): RateGate {
  const next = new Map<string, number>();
  return {
    async wait(key, perSecond, maxWaitMs, signal) {
      if (!perSecond) return true;
      signal?.throwIfAborted();
      const now = performance.now();
      const slot = Math.max(now, next.get(key) ?? 0);
      const wait = slot - now;
      if (wait > maxWaitMs) return false;
      next.set(key, slot + 1000 / perSecond);
      if (wait > 0) await delay(wait, signal);
      signal?.throwIfAborted();
      return true;
    },
    delayOf(key, perSecond) {
      if (!perSecond) return 0;
      return Math.max(0, (next.get(key) ?? 0) - performance.now());
    },
  };
}
