/**
 * Reading a batch of pages: bounded concurrency, and each failure kept with
 * its item (one bad URL never sinks the others).
 *
 * @module
 */
import { mapConcurrent } from "../async/concurrency.ts";
import { type GleanerError, toGleanerError } from "../errors.ts";
import type { Reader } from "../read/cascade.ts";
import type { Page, ReadRequest } from "../read/types.ts";
import type { ReadCall } from "../read/call.ts";

/** The outcome of one read: the page, or the error that stopped it. */
export type ReadOutcome<T> = { item: T; page: Page; error?: undefined } | {
  item: T;
  page?: undefined;
  error: GleanerError;
};

/** Options of {@link readAll}. */
export interface ReadAllOptions<T> {
  /** Reads at once. */
  concurrency: number;
  /** Cancels the batch. */
  signal?: AbortSignal;
  /**
   * The call the batch belongs to: its reads share one turn in the browser's page pool and
   * one deadline for their browser work (`lib/read/call.ts`). Default: each read alone.
   */
  call?: ReadCall;
  /** Told when an item's read ended (page or failure). */
  onRead?: (item: T) => void;
}

/**
 * Reads every item through the reader, at most `concurrency` at once;
 * results in input order. A cancelled signal still rejects the whole batch.
 *
 * @example
 * ```ts ignore
 * import { readAll } from "./read_all.ts";
 * const outcomes = await readAll(gleaner.reader, urls, (url) => ({ url }), { concurrency: 5 });
 * for (const o of outcomes) console.log(o.item, o.page?.title ?? o.error?.code);
 * ```
 */
export async function readAll<T>(
  reader: Reader,
  items: readonly T[],
  toRequest: (item: T) => ReadRequest,
  options: ReadAllOptions<T>,
): Promise<ReadOutcome<T>[]> {
  return await mapConcurrent(items, options.concurrency, async (item): Promise<ReadOutcome<T>> => {
    const request = toRequest(item);
    try {
      return {
        item,
        page: await reader.read({ ...request, signal: options.signal, call: options.call }),
      };
    } catch (error) {
      options.signal?.throwIfAborted();
      return { item, error: toGleanerError(error, `reading ${request.url}`) };
    } finally {
      options.onRead?.(item);
    }
  });
}
