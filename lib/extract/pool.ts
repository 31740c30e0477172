/**
 * A small pool of worker threads running {@link extractHtml}, each page
 * under a deadline: the main thread (a server answering `/health` and other
 * requests) never parses a page itself, and a page that takes too long is
 * really stopped (its thread is terminated and replaced) instead of being
 * abandoned while it keeps a core busy.
 *
 * The threads are `node:worker_threads` workers, each driven through the
 * shared worker client (`lib/async/worker_client.ts`, as the USE-lite
 * reranker is): referenced only while a page is being extracted, so an idle
 * pool never keeps a finished process alive, and a thread that fails or
 * exits without answering fails its page at once and is replaced on the next
 * one. They are started on first use from
 * `worker.ts` next to this file: a `deno compile` binary needs
 * `--include lib/extract/worker.ts`.
 *
 * Permissions: read access to the worker module's file (`worker.ts`) and its imports when Gleaner
 * runs from files: Deno checks read access for every module a worker loads.
 *
 * @module
 */
import {
  createWorkerClient,
  type WorkerCallContext,
  type WorkerClient,
} from "../async/worker_client.ts";
import { type ErrorCode, GleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import { pace } from "../async/pace.ts";
import type { ExtractedPage, ExtractOptions } from "./mod.ts";
import { HTML_LIMITS } from "./guard.ts";
import type { ExtractReply, ExtractRequest } from "./worker.ts";
import { htmlTextSlices } from "./body.ts";
import { textParts } from "./parts.ts";

const log = getGleanerLogger("extract");

/** Options of {@link createExtractPool}. */
export interface ExtractPoolOptions {
  /** Worker threads (default 1). */
  workers?: number;
  /** Deadline of one page's extraction, from the moment a thread takes it (default 15,000 ms). */
  timeoutMs?: number;
  /** Limits passed to {@link extractHtml} (the extractor is always Readability). */
  options?: Omit<ExtractOptions, "extractor">;
}

/** What one page's extraction may ask beyond the pool's limits. */
export interface PageExtractOptions {
  /** Keep only the element this CSS selector matches (see {@link ExtractOptions.targetSelector}). */
  targetSelector?: string;
}

/** Extraction of one page, off the main thread. */
export type HtmlExtractor = (
  html: string,
  url: string,
  signal?: AbortSignal,
  page?: PageExtractOptions,
) => Promise<ExtractedPage>;

/** An HTML body as fetched: its bytes and their charset. */
export interface HtmlBody {
  /** The body bytes (only the part extraction reads is decoded and sent to the thread). */
  bytes: Uint8Array;
  /** Charset to decode them with (WHATWG label; unknown labels decode as UTF-8). */
  charset: string;
}

/** What {@link BodyExtractor} returns: the page and what the thread saw of the whole body. */
export interface BodyExtraction {
  /** The extracted page. */
  page: ExtractedPage;
  /** Bytes past what extraction reads were left undecoded (see `htmlBytesNeeded`). */
  cut: boolean;
  /** The page looks like a client-rendered shell (`looksThin` of the read layer). */
  thin: boolean;
}

/**
 * Extraction of one fetched HTML body: decoded in slices as it is posted to
 * the thread (never decoded or joined whole on the main thread), and judged
 * thin there.
 */
export type BodyExtractor = (
  body: HtmlBody,
  url: string,
  signal?: AbortSignal,
  page?: PageExtractOptions,
) => Promise<BodyExtraction>;

/** A pool of extraction threads. */
export interface ExtractPool {
  /**
   * Extracts a page in a worker thread. Rejects with `timeout` when the
   * deadline passes or `signal` aborts (the thread is then stopped), and
   * with the extractor's own `GleanerError` (`unsupported_content`, …).
   */
  extract: HtmlExtractor;
  /**
   * Like {@link ExtractPool.extract} for a fetched body: decoded slice by
   * slice (as far as extraction reads) on its way to the thread, which
   * extracts it and judges it thin.
   */
  extractBody: BodyExtractor;
  /**
   * Starts every thread now, so that the first page read does not pay for a
   * thread's start (100–200 ms of the main thread, more on a loaded machine).
   */
  warm(): void;
  /** How many threads are started now (idle or busy). */
  threads(): number;
  /** Stops every thread; waiting and running extractions fail. */
  close(): Promise<void>;
}

interface Job {
  html?: string;
  body?: HtmlBody;
  url: string;
  signal?: AbortSignal;
  page?: PageExtractOptions;
  resolve(result: BodyExtraction): void;
  reject(error: Error): void;
}

interface Slot {
  /** The slot's thread (started on its first page, replaced after a failure). */
  client: WorkerClient;
  /** The page the thread is extracting. */
  job?: Job;
}

/**
 * Creates a pool of extraction threads (started lazily).
 *
 * @example
 * ```ts
 * import { createExtractPool } from "./pool.ts";
 * const pool = createExtractPool({ workers: 1, timeoutMs: 10_000 });
 * const page = await pool.extract("<title>Tides</title><p>Tides rise and fall.</p>", "https://example.com/");
 * console.assert(page.title === "Tides");
 * await pool.close();
 * ```
 */
export function createExtractPool(poolOptions: ExtractPoolOptions = {}): ExtractPool {
  const size = Math.max(1, Math.floor(poolOptions.workers ?? 1));
  const timeoutMs = Math.max(1, poolOptions.timeoutMs ?? 15_000);
  const slots: Slot[] = Array.from({ length: size }, () => ({
    client: createWorkerClient({
      url: new URL("./worker.ts", import.meta.url),
      name: "the extraction thread",
      // The thread says when it has loaded the extractor: start-up does not count against a page.
      isReady: (message) => (message as { ready?: unknown } | null)?.ready === true,
    }),
  }));
  const queue: Job[] = [];
  const maxChars = poolOptions.options?.limits?.maxChars ?? HTML_LIMITS.maxChars;
  let closed = false;

  const run = (slot: Slot, job: Job) => {
    slot.job = job;
    // Leading parts of the page's Markdown, as they arrive.
    const parts: string[] = [];
    slot.client.call<BodyExtraction>((context) => send(context, job), {
      timeoutMs,
      timeoutError: () => {
        log.info("extraction of {url} stopped after {ms} ms", { url: job.url, ms: timeoutMs });
        return new GleanerError(
          "timeout",
          `extracting ${job.url} took longer than ${timeoutMs} ms`,
        );
      },
      signal: job.signal,
      abortError: () => cancelled(job.url),
      onReply: (message) => {
        const reply = message as unknown as ExtractReply;
        if ("part" in reply) {
          parts.push(reply.part);
          return undefined;
        }
        if ("error" in reply) {
          throw new GleanerError(reply.error.code as ErrorCode, reply.error.message);
        }
        const page = parts.length > 0
          ? { ...reply.page, markdown: parts.join("") + reply.page.markdown }
          : reply.page;
        return { value: { page, cut: reply.cut ?? false, thin: reply.thin ?? false } };
      },
    }).then(job.resolve, (error: Error) => {
      if (!closed && error instanceof GleanerError && error.code === "internal") {
        log.warn("extraction worker failed: {error}", { error: error.message });
        job.reject(
          new GleanerError("internal", `extraction of ${job.url} failed`, { cause: error }),
        );
      } else job.reject(error);
    }).finally(() => {
      if (slot.job === job) slot.job = undefined;
      pump();
    });
  };

  /**
   * Posts the page in parts ({@link textParts}; a body: decoded 256 KB at a
   * time by `htmlTextSlices`), yielding between them: decoding or copying a
   * few megabytes at once blocks the main thread, and the parts are never
   * joined here.
   */
  const send = async ({ id, post, active }: WorkerCallContext, job: Job) => {
    // A body is posted as the text `decodeHtmlBody` of the HTTP tier gives, as it is decoded.
    // Bodies go over as text: a typed array posted to a `node:worker_threads` thread takes
    // seconds to arrive under Deno 2.9 (9 MB: 3-6 s, even transferred), a string a tenth of that.
    const { cut, slices } = job.body
      ? htmlTextSlices(job.body.bytes, job.body.charset, maxChars)
      : { cut: false, slices: textParts(job.html ?? "") };
    let previous: string | undefined;
    for (const text of slices) {
      if (previous !== undefined) {
        post({ id, part: previous } satisfies ExtractRequest);
        await pace();
        if (!active()) return;
      }
      previous = text;
    }
    const options = job.page?.targetSelector !== undefined
      ? { ...poolOptions.options, targetSelector: job.page.targetSelector }
      : poolOptions.options;
    const last = { id, url: job.url, options };
    post(
      (job.body
        ? { ...last, text: previous ?? "", cut }
        : { ...last, html: previous ?? "" }) satisfies ExtractRequest,
    );
  };

  const pump = () => {
    for (const slot of slots) {
      if (slot.job || closed) continue;
      const job = queue.shift();
      if (!job) return;
      if (job.signal?.aborted) {
        job.reject(cancelled(job.url));
        continue;
      }
      run(slot, job);
    }
  };

  const enqueue = (job: Omit<Job, "resolve" | "reject">): Promise<BodyExtraction> => {
    const { url, signal } = job;
    if (closed) {
      return Promise.reject(new GleanerError("internal", "the extraction pool is closed"));
    }
    if (signal?.aborted) return Promise.reject(cancelled(url));
    return new Promise<BodyExtraction>((resolve, reject) => {
      const queued: Job = { ...job, resolve, reject };
      queue.push(queued);
      // A job still waiting for a thread leaves the queue when its caller gives up.
      signal?.addEventListener("abort", () => {
        const at = queue.indexOf(queued);
        if (at !== -1) {
          queue.splice(at, 1);
          reject(cancelled(url));
        }
      }, { once: true });
      pump();
    });
  };

  return {
    async extract(html, url, signal, page) {
      // Only what extractHtml reads is copied to the thread (one character more keeps the flag).
      const keep = 2 * maxChars + 1;
      if (html.length > keep) html = html.slice(0, keep);
      return (await enqueue({ html, url, signal, page })).page;
    },
    extractBody(body, url, signal, page) {
      return enqueue({ body, url, signal, page });
    },
    warm() {
      if (closed) return;
      for (const slot of slots) slot.client.start();
    },
    threads() {
      return slots.filter((slot) => slot.client.running()).length;
    },
    async close() {
      closed = true;
      const error = new GleanerError("internal", "the extraction pool is closed");
      for (const job of queue.splice(0)) job.reject(error);
      await Promise.all(slots.map((slot) => slot.client.close(error)));
    },
  };
}

function cancelled(url: string): GleanerError {
  return new GleanerError("timeout", `extracting ${url} was cancelled`);
}
