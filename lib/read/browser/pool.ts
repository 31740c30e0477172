/**
 * A bounded pool of reusable resources (browser pages): at most `max` exist at
 * once, callers beyond that wait in FIFO order, and a waiter can give up
 * through its `AbortSignal`.
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
  /** Resources handed out. */
  busy: number;
  /** Resources kept for reuse. */
  idle: number;
  /** Callers waiting for a resource. */
  waiting: number;
}

/** A bounded pool; see {@link createSlotPool}. */
export interface SlotPool<T> {
  /** Waits for a free resource (reused or created); rejects when `signal` aborts or the pool drains. */
  acquire(signal?: AbortSignal): Promise<T>;
  /** Returns a resource; `healthy: false` destroys it instead of keeping it. */
  release(item: T, healthy: boolean): Promise<void>;
  /** Destroys every idle resource and rejects every waiter; busy ones are destroyed when released. */
  drain(reason: GleanerError): Promise<void>;
  /** Current counters. */
  stats(): SlotPoolStats;
}

interface Waiter<T> {
  resolve: (item: T) => void;
  reject: (error: unknown) => void;
  cleanup: () => void;
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
 * console.assert((await pool.acquire()) === a); // reused
 * ```
 */
export function createSlotPool<T>(options: SlotPoolOptions<T>): SlotPool<T> {
  if (!Number.isInteger(options.max) || options.max < 1) {
    throw new GleanerError("invalid_arguments", "pool size must be a positive integer");
  }
  const idle: T[] = [];
  const waiters: Waiter<T>[] = [];
  let busy = 0;
  let drainedWith: GleanerError | undefined;

  const destroyQuietly = async (item: T) => {
    try {
      await options.destroy(item);
    } catch {
      // A resource that fails to close is gone either way.
    }
  };

  /** Creates a resource for a slot already counted in `busy`. */
  const createFor = async (): Promise<T> => {
    try {
      return await options.create();
    } catch (error) {
      busy--;
      handOver();
      throw error;
    }
  };

  /** Gives a freed slot (or idle resource) to the first waiter. */
  const handOver = () => {
    while (waiters.length > 0) {
      if (idle.length > 0) {
        const waiter = waiters.shift()!;
        waiter.cleanup();
        busy++;
        waiter.resolve(idle.pop()!);
        continue;
      }
      if (busy < options.max) {
        const waiter = waiters.shift()!;
        waiter.cleanup();
        busy++;
        createFor().then(waiter.resolve, waiter.reject);
        continue;
      }
      return;
    }
  };

  return {
    acquire(signal) {
      if (drainedWith) return Promise.reject(drainedWith);
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (idle.length > 0) {
        busy++;
        return Promise.resolve(idle.pop()!);
      }
      if (busy < options.max) {
        busy++;
        return createFor();
      }
      return new Promise<T>((resolve, reject) => {
        const onAbort = () => {
          const index = waiters.indexOf(waiter);
          if (index >= 0) waiters.splice(index, 1);
          reject(signal!.reason);
        };
        const waiter: Waiter<T> = {
          resolve,
          reject,
          cleanup: () => signal?.removeEventListener("abort", onAbort),
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        waiters.push(waiter);
      });
    },
    async release(item, healthy) {
      busy--;
      const keep = healthy && !drainedWith;
      if (keep) idle.push(item);
      handOver();
      if (!keep) await destroyQuietly(item);
    },
    async drain(reason) {
      drainedWith = reason;
      for (const waiter of waiters.splice(0)) {
        waiter.cleanup();
        waiter.reject(reason);
      }
      const items = idle.splice(0);
      await Promise.all(items.map(destroyQuietly));
    },
    stats: () => ({ busy, idle: idle.length, waiting: waiters.length }),
  };
}
