/**
 * Per-origin politeness: at most N requests in flight to one origin
 * (scheme, host and port), the rest wait in FIFO order. Keys are compared
 * in lower case; the fetcher passes `URL.origin`.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";

/** A semaphore per host. */
export interface HostLimiter {
  /** Waits for a slot for `host`; the returned function frees it (idempotent). */
  acquire(host: string, signal?: AbortSignal): Promise<() => void>;
  /** Runs `task` while holding a slot for `host`. */
  run<T>(host: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Requests in flight to `host`. */
  active(host: string): number;
  /** Requests waiting for `host`. */
  waiting(host: string): number;
}

interface Slot {
  active: number;
  queue: Array<() => void>;
}

/**
 * Creates a limiter allowing `limit` concurrent requests per host
 * (`network.per_host_concurrency`). A waiter whose signal aborts leaves the
 * queue with a `timeout` {@link GleanerError}.
 *
 * @example
 * ```ts
 * import { createHostLimiter } from "./host_limiter.ts";
 * const limiter = createHostLimiter(2);
 * const answer = await limiter.run("example.com", () => Promise.resolve(42));
 * console.assert(answer === 42 && limiter.active("example.com") === 0);
 * ```
 */
export function createHostLimiter(limit: number): HostLimiter {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new GleanerError("invalid_arguments", "per_host_concurrency must be a positive integer");
  }
  const slots = new Map<string, Slot>();
  const keyOf = (host: string) => host.toLowerCase();

  const releaser = (key: string): () => void => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const slot = slots.get(key);
      if (!slot) return;
      const next = slot.queue.shift();
      if (next) {
        next(); // hand the slot over directly
      } else {
        slot.active--;
        if (slot.active === 0) slots.delete(key);
      }
    };
  };

  const acquire = (host: string, signal?: AbortSignal): Promise<() => void> => {
    const key = keyOf(host);
    if (signal?.aborted) {
      return Promise.reject(new GleanerError("timeout", `request to ${host} was cancelled`));
    }
    let slot = slots.get(key);
    if (!slot) slots.set(key, slot = { active: 0, queue: [] });
    if (slot.active < limit) {
      slot.active++;
      return Promise.resolve(releaser(key));
    }
    const waitingSlot = slot;
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(releaser(key));
      };
      const onAbort = () => {
        const i = waitingSlot.queue.indexOf(grant);
        if (i >= 0) waitingSlot.queue.splice(i, 1);
        reject(new GleanerError("timeout", `request to ${host} was cancelled while queued`));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      waitingSlot.queue.push(grant);
    });
  };

  return {
    acquire,
    async run<T>(host: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      const release = await acquire(host, signal);
      try {
        return await task();
      } finally {
        release();
      }
    },
    active: (host) => slots.get(keyOf(host))?.active ?? 0,
    waiting: (host) => slots.get(keyOf(host))?.queue.length ?? 0,
  };
}
