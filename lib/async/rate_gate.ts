/**
 * A rate gate: calls under one key are held to a {@link RateLimit} — spaced
 * `1000 / perSecond` ms apart, and at most `budget.count` in any
 * `budget.ms` window (a budget allows bursts: Jina's 20 requests a minute,
 * Keenable's 1,000 an hour) — and a caller that would wait longer than it may
 * is told so instead of queued. The role router holds each provider's upstream
 * requests to its limit with one.
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
 * const budget = { budget: { count: 1, ms: 60_000 } };
 * console.assert(await gate.wait("jina", budget, 100));
 * console.assert(!(await gate.wait("jina", budget, 100)), "the budget is spent for a minute");
 * console.assert(gate.delayOf("jina", budget) > 0 && gate.delayOf("other", budget) === 0);
 * ```
 *
 * @module
 */
import { delay } from "./delay.ts";

/** How often calls under one key may be sent. */
export interface RateLimit {
  /** Calls per second, evenly spaced. */
  perSecond?: number;
  /** At most `count` calls in any window of `ms` milliseconds (bursts allowed within it). */
  budget?: { count: number; ms: number };
}

/** Spaces calls per key. */
export interface RateGate {
  /**
   * Resolves `true` when a call under `key` may be sent under `limit` (a
   * number is calls per second; at once without a limit); resolves `false`,
   * reserving nothing, when that would take longer than `maxWaitMs`; rejects
   * with the signal's reason when `signal` aborts first.
   */
  wait(
    key: string,
    limit: number | RateLimit | undefined,
    maxWaitMs: number,
    signal?: AbortSignal,
  ): Promise<boolean>;
  /**
   * How long (ms) a call under `key` at `limit` would wait if asked now (0
   * without a limit, or when its slot is free); reserves nothing. Lets a
   * caller that may choose among keys prefer one that is free.
   */
  delayOf(key: string, limit: number | RateLimit | undefined): number;
}

/** What the gate keeps of one key. */
interface KeyState {
  /** Earliest time of the next call under the even spacing. */
  next: number;
  /** Times of the latest calls admitted (ascending; at most the budget's count). */
  sent: number[];
}

/** A limit's parts: calls per second, and the budget when it is usable. */
function partsOf(limit: number | RateLimit | undefined) {
  const { perSecond, budget } = typeof limit === "number" ? { perSecond: limit } : limit ?? {};
  const count = budget && budget.count >= 1 && budget.ms > 0 ? Math.floor(budget.count) : undefined;
  return { perSecond, budget, count };
}

/** The earliest time a call under `state` may be sent at `now`. */
function slotOf(
  state: KeyState,
  parts: ReturnType<typeof partsOf>,
  now: number,
): number {
  let slot = Math.max(now, state.next);
  // The window may hold `count` calls: the next one waits until the
  // `count`-th latest leaves it.
  if (parts.count !== undefined && state.sent.length >= parts.count) {
    slot = Math.max(slot, state.sent[state.sent.length - parts.count] + parts.budget!.ms);
  }
  return slot;
}

/** Creates a rate gate with no call reserved yet. */
export function createRateGate(): RateGate {
  const keys = new Map<string, KeyState>();
  return {
    async wait(key, limit, maxWaitMs, signal) {
      const parts = partsOf(limit);
      const { perSecond, count } = parts;
      if (!perSecond && count === undefined) return true;
      signal?.throwIfAborted();
      const state = keys.get(key) ?? { next: 0, sent: [] };
      const now = performance.now();
      const slot = slotOf(state, parts, now);
      const wait = slot - now;
      if (wait > maxWaitMs) return false;
      if (perSecond) state.next = slot + 1000 / perSecond;
      if (count !== undefined) {
        state.sent.push(slot);
        if (state.sent.length > count) state.sent.splice(0, state.sent.length - count);
      }
      keys.set(key, state);
      if (wait > 0) await delay(wait, signal);
      signal?.throwIfAborted();
      return true;
    },
    delayOf(key, limit) {
      const parts = partsOf(limit);
      const state = keys.get(key);
      if (!state || (!parts.perSecond && parts.count === undefined)) return 0;
      const now = performance.now();
      return slotOf(state, parts, now) - now;
    },
  };
}
