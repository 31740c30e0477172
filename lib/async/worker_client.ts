/**
 * One client for a `node:worker_threads` thread that answers requests by id:
 * the extraction pool (`lib/extract/pool.ts`, one client per slot) and the
 * USE-lite reranker (`lib/embed/use_lite.ts`) both talk to their threads
 * through it.
 *
 * - Every call gets an id; the thread's replies carry it (`{ id, … }`) and are
 *   handed to that call's `onReply` until it settles the call.
 * - A call's deadline starts when the thread is ready (a fresh thread may
 *   first announce itself, see {@link WorkerClientOptions.isReady}), so a
 *   thread's start-up does not count against it. When the deadline passes or
 *   the call's signal aborts, the thread is terminated (the work really stops)
 *   and the next call starts a new one.
 * - A thread that fails (`error`) or exits without being asked to (a
 *   `process.exit` or `self.close()` in the worker) rejects every call it has
 *   not answered, at once: no call waits for a deadline, or for ever, on a
 *   thread that is gone. The next call starts a new thread.
 * - The thread keeps the process alive only while a call is waiting for it.
 *
 * Permissions: read access to the worker module's file and its imports when Gleaner runs from
 * files (Deno checks read access for every module a worker loads).
 *
 * @module
 */
import { Worker } from "node:worker_threads";
import { GleanerError } from "../errors.ts";

/** Options of {@link createWorkerClient}. */
export interface WorkerClientOptions {
  /** The worker module. */
  url: URL;
  /** What the thread is, for error messages (`"the extraction thread"`). */
  name: string;
  /** Handed to each thread as `workerData` (what a fresh thread needs to start, e.g. a model path). */
  workerData?: unknown;
  /**
   * True for the message by which a fresh thread says it is ready (it has
   * loaded what it needs); deadlines start then. Without it a thread is
   * ready as soon as it is started.
   */
  isReady?: (message: unknown) => boolean;
}

/** What a call's `send` is given. */
export interface WorkerCallContext {
  /** The call's id; every reply to this call carries it as `id`. */
  id: number;
  /** Posts a message to the thread serving this call (nothing once the call is settled). */
  post(message: unknown, transfer?: ArrayBuffer[]): void;
  /** False once the call is settled (answered, failed, timed out or aborted): stop sending. */
  active(): boolean;
}

/** Options of one {@link WorkerClient.call}. */
export interface WorkerCallOptions<T> {
  /**
   * Each reply carrying the call's id: return `{ value }` to resolve the call,
   * `undefined` to wait for more (a reply in parts), or throw to reject it.
   */
  onReply(reply: { id: number; [key: string]: unknown }): { value: T } | undefined;
  /** Deadline (ms) from the moment the thread is ready; none when absent. */
  timeoutMs?: number;
  /** The error a passed deadline rejects with (default: `timeout` naming the thread). */
  timeoutError?: () => Error;
  /** Aborts the call (the thread is terminated). */
  signal?: AbortSignal;
  /** The error an abort rejects with (default: `timeout` saying the call was cancelled). */
  abortError?: () => Error;
}

/** A client of one worker thread (started on first use, restarted after a failure). */
export interface WorkerClient {
  /**
   * Sends a request (`send` posts its message or messages, in parts if it
   * likes) and settles with what `onReply` makes of the replies. Rejects
   * with the timeout or abort error, with `internal` when the thread fails
   * or exits without answering, or when the client is closed.
   */
  call<T>(
    send: (context: WorkerCallContext) => void | Promise<void>,
    options: WorkerCallOptions<T>,
  ): Promise<T>;
  /** Starts the thread now, if none runs (so that the first call does not pay for its start). */
  start(): void;
  /** True while a thread is started (ready or not). */
  running(): boolean;
  /** Calls waiting for an answer. */
  pending(): number;
  /** Stops the thread; every waiting call is rejected with `error` and later calls with `internal`. */
  close(error?: Error): Promise<void>;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  onReply(reply: { id: number }): { value: unknown } | undefined;
  timeoutMs?: number;
  timeoutError: () => Error;
  timer?: ReturnType<typeof setTimeout>;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  calls: Map<number, Pending>;
}

/**
 * Creates a client of a worker thread (the thread starts on the first call or
 * {@link WorkerClient.start}).
 *
 * @example
 * ```ts ignore
 * import { createWorkerClient } from "./worker_client.ts";
 * const client = createWorkerClient({ url: new URL("./echo_worker.ts", import.meta.url), name: "the echo thread" });
 * const answer = await client.call<string>(({ id, post }) => post({ id, text: "hi" }), {
 *   timeoutMs: 5_000,
 *   onReply: (reply) => ({ value: String(reply.text) }),
 * });
 * await client.close();
 * ```
 */
export function createWorkerClient(options: WorkerClientOptions): WorkerClient {
  let thread: Thread | undefined;
  let nextId = 0;
  let closed = false;

  const settle = (t: Thread, id: number): Pending | undefined => {
    const call = t.calls.get(id);
    if (!call) return undefined;
    t.calls.delete(id);
    clearTimeout(call.timer);
    if (call.onAbort) call.signal?.removeEventListener("abort", call.onAbort);
    if (t.calls.size === 0) t.worker.unref();
    return call;
  };

  /** Drops the thread (terminated unless it is gone already) and rejects its calls. */
  const drop = (t: Thread, error: (call: Pending) => Error, terminate: boolean) => {
    if (thread === t) thread = undefined;
    for (const id of [...t.calls.keys()]) {
      const call = settle(t, id);
      call?.reject(error(call));
    }
    t.worker.unref();
    if (terminate) void t.worker.terminate();
  };

  const arm = (t: Thread, id: number, call: Pending) => {
    if (call.timeoutMs === undefined || call.timer !== undefined) return;
    call.timer = setTimeout(() => {
      if (!t.calls.has(id)) return;
      const own = settle(t, id);
      drop(t, () => stopped(), true);
      own?.reject(call.timeoutError());
    }, call.timeoutMs);
  };

  const stopped = () =>
    new GleanerError("internal", `${options.name} was stopped while another call timed out`);

  const spawn = (): Thread => {
    const worker = new Worker(options.url, { workerData: options.workerData });
    worker.unref();
    const t: Thread = { worker, ready: options.isReady === undefined, calls: new Map() };
    worker.on("message", (message: unknown) => {
      if (thread !== t) return;
      if (!t.ready && options.isReady?.(message)) {
        t.ready = true;
        for (const [id, call] of t.calls) arm(t, id, call);
        return;
      }
      const id = (message as { id?: unknown } | null)?.id;
      if (typeof id !== "number") return;
      const call = t.calls.get(id);
      if (!call) return;
      let outcome: { value: unknown } | undefined;
      try {
        outcome = call.onReply(message as { id: number });
      } catch (error) {
        settle(t, id);
        call.reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (outcome === undefined) return;
      settle(t, id);
      call.resolve(outcome.value);
    });
    worker.on("error", (cause: Error) => {
      if (thread !== t) return;
      drop(
        t,
        () => new GleanerError("internal", `${options.name} failed: ${cause.message}`, { cause }),
        true,
      );
    });
    worker.on("exit", (code: number) => {
      if (thread !== t) return;
      drop(
        t,
        () =>
          new GleanerError("internal", `${options.name} exited (code ${code}) without answering`),
        false,
      );
    });
    return t;
  };

  return {
    call<T>(
      send: (context: WorkerCallContext) => void | Promise<void>,
      callOptions: WorkerCallOptions<T>,
    ): Promise<T> {
      if (closed) {
        return Promise.reject(new GleanerError("internal", `${options.name} is closed`));
      }
      const abortError = callOptions.abortError ??
        (() => new GleanerError("timeout", `the call to ${options.name} was cancelled`));
      const signal = callOptions.signal;
      if (signal?.aborted) return Promise.reject(abortError());
      const t = thread ??= spawn();
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        const call: Pending = {
          resolve: resolve as (value: unknown) => void,
          reject,
          onReply: callOptions.onReply as Pending["onReply"],
          timeoutMs: callOptions.timeoutMs === undefined
            ? undefined
            : Math.max(1, callOptions.timeoutMs),
          timeoutError: callOptions.timeoutError ??
            (() =>
              new GleanerError(
                "timeout",
                `${options.name} did not answer within ${callOptions.timeoutMs} ms`,
              )),
          signal,
        };
        t.calls.set(id, call);
        t.worker.ref();
        if (t.ready) arm(t, id, call);
        if (signal) {
          call.onAbort = () => {
            if (!t.calls.has(id)) return;
            settle(t, id);
            drop(t, () => stopped(), true);
            reject(abortError());
          };
          signal.addEventListener("abort", call.onAbort, { once: true });
        }
        const active = () => thread === t && t.calls.has(id);
        const post = (message: unknown, transfer?: ArrayBuffer[]) => {
          if (active()) t.worker.postMessage(message, transfer);
        };
        Promise.resolve()
          .then(() => send({ id, post, active }))
          .catch((error) => {
            if (!t.calls.has(id)) return;
            settle(t, id);
            reject(error instanceof Error ? error : new Error(String(error)));
          });
      });
    },
    start() {
      if (!closed) thread ??= spawn();
    },
    running() {
      return thread !== undefined;
    },
    pending() {
      return thread?.calls.size ?? 0;
    },
    async close(error?: Error) {
      closed = true;
      const t = thread;
      if (!t) return;
      thread = undefined;
      const reason = error ?? new GleanerError("internal", `${options.name} is closed`);
      for (const id of [...t.calls.keys()]) settle(t, id)?.reject(reason);
      await t.worker.terminate();
    },
  };
}
