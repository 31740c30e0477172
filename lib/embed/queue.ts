/**
 * A bounded first-in-first-out queue that runs one task at a time: each
 * embedder owns one, so a model never runs two inferences at once and a
 * flood of callers gets a clear `rate_limited` error instead of unbounded
 * memory growth.
 *
 * @module
 */
import { GleanerError, toGleanerError } from "../errors.ts";

interface Pending {
  run: () => Promise<void>;
  fail: (error: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * Runs tasks one after another, holding at most `maxPending` waiting tasks.
 *
 * @example
 * ```ts
 * import { SerialQueue } from "./queue.ts";
 * const queue = new SerialQueue(8, "demo");
 * const order: number[] = [];
 * await Promise.all([1, 2, 3].map((n) => queue.run(async () => { order.push(n); })));
 * console.assert(order.join() === "1,2,3");
 * ```
 */
export class SerialQueue {
  readonly #maxPending: number;
  readonly #name: string;
  readonly #waiting: Pending[] = [];
  #running = false;

  /**
   * @param maxPending Tasks allowed to wait behind the running one.
   * @param name Named in the error raised when the queue is full.
   */
  constructor(maxPending: number, name: string) {
    this.#maxPending = Math.max(1, Math.floor(maxPending));
    this.#name = name;
  }

  /** Tasks waiting (not counting the running one). */
  get pending(): number {
    return this.#waiting.length;
  }

  /**
   * Runs `task` after every task queued before it. Rejects with
   * `rate_limited` when the queue is full, and with `timeout` when `signal`
   * aborts while the task is still waiting.
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(toGleanerError(signal.reason, this.#name));
    if (this.#waiting.length >= this.#maxPending) {
      return Promise.reject(
        new GleanerError(
          "rate_limited",
          `${this.#name}: ${this.#waiting.length} batches already waiting; try again later`,
        ),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = {
        run: async () => {
          try {
            signal?.throwIfAborted();
            resolve(await task());
          } catch (error) {
            reject(error);
          }
        },
        fail: reject,
        signal,
      };
      if (signal) {
        entry.onAbort = () => {
          const index = this.#waiting.indexOf(entry);
          if (index >= 0) {
            this.#waiting.splice(index, 1);
            reject(toGleanerError(signal.reason, this.#name));
          }
        };
        signal.addEventListener("abort", entry.onAbort, { once: true });
      }
      this.#waiting.push(entry);
      this.#drain();
    });
  }

  /** Rejects every waiting task (used by `close()`). */
  clear(error: unknown): void {
    for (const entry of this.#waiting.splice(0)) {
      if (entry.onAbort) entry.signal?.removeEventListener("abort", entry.onAbort);
      entry.fail(error);
    }
  }

  async #drain(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      for (let entry = this.#waiting.shift(); entry; entry = this.#waiting.shift()) {
        if (entry.onAbort) entry.signal?.removeEventListener("abort", entry.onAbort);
        await entry.run();
      }
    } finally {
      this.#running = false;
    }
  }
}
