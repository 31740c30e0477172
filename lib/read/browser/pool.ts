/**
 * A bounded pool of reusable resources (browser pages) shared fairly between
 * callers: at most `max` exist at once, and callers beyond that wait.
 *
 * Fairness: each acquire names its caller (one tool call, say). A freed slot
 * goes to the waiting caller that holds the fewest resources, and among
 * those to the one served least recently (round robin by caller, not first
 * come first served by request). While a caller waits, no other caller keeps
 * two or more resources beyond what the waiting caller holds: the pool
 * revokes the newest lease of the caller holding the most (its `revoked`
 * signal aborts) and the holder hands the resource back when it can. Callers
 * therefore converge on an even share, at most `ceil(max / active callers)`
 * each and never less than one, however many requests one caller queues.
 *
 * A waiter can give up through its `AbortSignal`.
 *
 * @module
 */
import { GleanerError } from "../../errors.ts";

/** How a {@link SlotPool} makes and disposes of its resources. */
export interface SlotPoolOptions<T> {
  /** Most resources alive at once (in use or idle). */
  max: number;
  /** Makes a new resource when none is idle and the bound allows it. */
  create: () => Promise<T>;
  /** Disposes of a resource (broken, or when the pool drains). Errors are ignored. */
  destroy: (item: T) => Promise<void>;
}

/** Counters describing a {@link SlotPool} right now. */
export interface SlotPoolStats {
  /** Resources handed out (or being made for a waiter). */
  busy: number;
  /** Resources kept for reuse. */
  idle: number;
  /** Requests waiting for a resource. */
  waiting: number;
  /** Callers holding or waiting for a resource. */
  callers: number;
  /** Leases revoked so far so that a waiting caller got its share. */
  revoked: number;
}

/** One resource handed to one caller until it is released. */
export interface SlotLease<T> {
  /** The resource. */
  readonly item: T;
  /**
   * Aborts when the pool wants the resource back for a waiting caller that
   * holds fewer: stop the work and release the lease (the work may ask again).
   */
  readonly revoked: AbortSignal;
}

/** Options of {@link SlotPool.acquire}. */
export interface AcquireOptions {
  /** Gives up waiting (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
  /**
   * Who asks: requests with the same caller share one turn and one share of
   * the pool. Default: a caller of its own for this request.
   */
  caller?: object;
  /**
   * Goes before the caller's other waiting requests (work resumed after its
   * lease was revoked: it started before them).
   */
  first?: boolean;
}

/** A bounded pool; see {@link createSlotPool}. */
export interface SlotPool<T> {
  /** Waits for a free resource (reused or created); rejects when `signal` aborts or the pool drains. */
  acquire(options?: AcquireOptions): Promise<SlotLease<T>>;
  /** Returns a lease's resource; `healthy: false` destroys it instead of keeping it. */
  release(lease: SlotLease<T>, healthy: boolean): Promise<void>;
  /** Destroys every idle resource and rejects every waiter; busy ones are destroyed when released. */
  drain(reason: GleanerError): Promise<void>;
  /** Resources `caller` holds now (leases not revoked, and resources being made for it). */
  held(caller: object): number;
  /** Current counters. */
  stats(): SlotPoolStats;
}

interface Waiter<T> {
  resolve: (lease: SlotLease<T>) => void;
  reject: (error: unknown) => void;
  cleanup: () => void;
}

interface Lease<T> extends SlotLease<T> {
  readonly caller: CallerState<T>;
  readonly controller: AbortController;
  released: boolean;
}

interface CallerState<T> {
  readonly key: object;
  /** Leases held, oldest first. */
  readonly leases: Lease<T>[];
  readonly queue: Waiter<T>[];
  /** Resources being made for this caller. */
  making: number;
  /** When this caller was last served (a counter), 0 before its first turn. */
  lastServed: number;
  /** Arrival order, the tie-break among callers never served. */
  readonly arrived: number;
}

/**
 * Creates a bounded pool.
 *
 * @example
 * ```ts
 * import { createSlotPool } from "./pool.ts";
 * let made = 0;
 * const pool = createSlotPool({ max: 2, create: () => Promise.resolve(++made), destroy: async () => {} });
 * const a = await pool.acquire();
 * await pool.release(a, true);
 * console.assert((await pool.acquire()).item === a.item); // reused
 * ```
 */
export function createSlotPool<T>(options: SlotPoolOptions<T>): SlotPool<T> {
  if (!Number.isInteger(options.max) || options.max < 1) {
    throw new GleanerError("invalid_arguments", "pool size must be a positive integer");
  }
  const idle: T[] = [];
  const callers = new Map<object, CallerState<T>>();
  let busy = 0;
  let waiting = 0;
  let turns = 0;
  let arrivals = 0;
  let revokedTotal = 0;
  /** Revoked leases not yet released: slots already promised to waiting callers. */
  let revokedOutstanding = 0;
  let drainedWith: GleanerError | undefined;

  const destroyQuietly = async (item: T) => {
    try {
      await options.destroy(item);
    } catch {
      // A resource that fails to close is gone either way.
    }
  };

  const callerFor = (key: object): CallerState<T> => {
    let state = callers.get(key);
    if (!state) {
      state = { key, leases: [], queue: [], making: 0, lastServed: 0, arrived: ++arrivals };
      callers.set(key, state);
    }
    return state;
  };

  const forgetIfIdle = (state: CallerState<T>) => {
    if (state.leases.length === 0 && state.queue.length === 0 && state.making === 0) {
      callers.delete(state.key);
    }
  };

  /** Resources a caller holds for fairness: leases not revoked, and those being made. */
  const heldBy = (state: CallerState<T>) =>
    state.making + state.leases.filter((lease) => !lease.controller.signal.aborted).length;

  /** The waiting caller whose turn it is: fewest held, then least recently served, then first come. */
  const nextCaller = (
    held: (state: CallerState<T>) => number,
    wants: (s: CallerState<T>) => boolean,
  ) => {
    let best: CallerState<T> | undefined;
    for (const state of callers.values()) {
      if (!wants(state)) continue;
      if (
        !best || held(state) < held(best) ||
        (held(state) === held(best) &&
          (state.lastServed < best.lastServed ||
            (state.lastServed === best.lastServed && state.arrived < best.arrived)))
      ) best = state;
    }
    return best;
  };

  const leaseFor = (state: CallerState<T>, item: T): Lease<T> => {
    const controller = new AbortController();
    const lease: Lease<T> = {
      item,
      revoked: controller.signal,
      caller: state,
      controller,
      released: false,
    };
    state.leases.push(lease);
    return lease;
  };

  /** Gives free slots (idle resources, or room to make one) to waiting callers in turn. */
  const handOver = () => {
    while (waiting > 0 && (idle.length > 0 || busy < options.max)) {
      const state = nextCaller(heldBy, (s) => s.queue.length > 0)!;
      const waiter = state.queue.shift()!;
      waiting--;
      waiter.cleanup();
      state.lastServed = ++turns;
      busy++;
      if (idle.length > 0) {
        waiter.resolve(leaseFor(state, idle.pop()!));
        continue;
      }
      state.making++;
      options.create().then(
        (item) => {
          state.making--;
          waiter.resolve(leaseFor(state, item));
        },
        (error) => {
          state.making--;
          busy--;
          forgetIfIdle(state);
          waiter.reject(error);
          handOver();
          rebalance();
        },
      );
    }
  };

  /**
   * Revokes leases while a waiting caller holds two or more fewer resources
   * than another caller, counting the slots that revoked leases will free as
   * already given to the waiting callers whose turn they are.
   */
  const rebalance = () => {
    if (drainedWith || waiting === 0) return;
    const held = new Map<CallerState<T>, number>();
    const wants = new Map<CallerState<T>, number>();
    for (const state of callers.values()) {
      held.set(state, heldBy(state));
      if (state.queue.length > 0) wants.set(state, state.queue.length);
    }
    const heldOf = (s: CallerState<T>) => held.get(s)!;
    const wanting = (s: CallerState<T>) => (wants.get(s) ?? 0) > 0;
    const give = (s: CallerState<T>) => {
      held.set(s, heldOf(s) + 1);
      wants.set(s, wants.get(s)! - 1);
    };
    for (let coming = revokedOutstanding; coming > 0; coming--) {
      const next = nextCaller(heldOf, wanting);
      if (!next) return;
      give(next);
    }
    const revoke: Lease<T>[] = [];
    for (;;) {
      const waiter = nextCaller(heldOf, wanting);
      if (!waiter) break;
      let holder: CallerState<T> | undefined;
      for (const state of callers.values()) {
        const revocable = (lease: Lease<T>) =>
          !lease.controller.signal.aborted && !revoke.includes(lease);
        if (!state.leases.some(revocable)) continue;
        // The caller holding most; between equals, the one served last (its newest work
        // started latest, so the least is lost).
        if (
          !holder || heldOf(state) > heldOf(holder) ||
          (heldOf(state) === heldOf(holder) && state.lastServed > holder.lastServed)
        ) holder = state;
      }
      if (!holder || heldOf(holder) < heldOf(waiter) + 2) break;
      const newest = holder.leases.findLast((lease) =>
        !lease.controller.signal.aborted && !revoke.includes(lease)
      );
      if (!newest) break;
      revoke.push(newest);
      held.set(holder, heldOf(holder) - 1);
      give(waiter);
    }
    revokedTotal += revoke.length;
    revokedOutstanding += revoke.length;
    // Aborted once the decisions are made: a holder may release at once (from its listener).
    for (const lease of revoke) {
      lease.controller.abort(
        new GleanerError("provider_unavailable", "the resource was handed to another caller"),
      );
    }
  };

  return {
    acquire(acquireOptions = {}) {
      const { signal } = acquireOptions;
      if (drainedWith) return Promise.reject(drainedWith);
      if (signal?.aborted) return Promise.reject(signal.reason);
      const state = callerFor(acquireOptions.caller ?? {});
      return new Promise<SlotLease<T>>((resolve, reject) => {
        const onAbort = () => {
          const index = state.queue.indexOf(waiter);
          if (index >= 0) {
            state.queue.splice(index, 1);
            waiting--;
            forgetIfIdle(state);
          }
          reject(signal!.reason);
        };
        const waiter: Waiter<T> = {
          resolve,
          reject,
          cleanup: () => signal?.removeEventListener("abort", onAbort),
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        if (acquireOptions.first) state.queue.unshift(waiter);
        else state.queue.push(waiter);
        waiting++;
        handOver();
        rebalance();
      });
    },
    async release(lease, healthy) {
      const own = lease as Lease<T>;
      if (own.released) return;
      own.released = true;
      const state = own.caller;
      state.leases.splice(state.leases.indexOf(own), 1);
      if (own.controller.signal.aborted) revokedOutstanding--;
      forgetIfIdle(state);
      busy--;
      const keep = healthy && !drainedWith;
      if (keep) idle.push(own.item);
      handOver();
      rebalance();
      if (!keep) await destroyQuietly(own.item);
    },
    async drain(reason) {
      drainedWith = reason;
      for (const state of [...callers.values()]) {
        for (const waiter of state.queue.splice(0)) {
          waiting--;
          waiter.cleanup();
          waiter.reject(reason);
        }
        forgetIfIdle(state);
      }
      const items = idle.splice(0);
      await Promise.all(items.map(destroyQuietly));
    },
    held: (caller) => {
      const state = callers.get(caller);
      return state ? heldBy(state) : 0;
    },
    stats: () => ({
      busy,
      idle: idle.length,
      waiting,
      callers: callers.size,
      revoked: revokedTotal,
    }),
  };
}
