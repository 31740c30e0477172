/**
 * The worker thread of the extraction pool (`pool.ts`): runs
 * {@link extractHtml} off the main thread, so a slow page cannot block a
 * server, and can be stopped by terminating the thread. Protocol: the
 * thread posts `{ ready: true }` once loaded; a page arrives as `{ id, part }`
 * messages then one {@link ExtractPage}, answered by one {@link ExtractReply}
 * with the same id.
 *
 * @module
 */
import { parentPort } from "node:worker_threads";
import { GleanerError } from "../errors.ts";
import { type ExtractedPage, extractHtml, type ExtractOptions } from "./mod.ts";
import { countTokens } from "../rank/tokens.ts";

/** A request to the worker: leading parts of the HTML, then the rest with the URL. */
export type ExtractRequest = { id: number; part: string } | ExtractPage;

/** The last message of a request. */
export interface ExtractPage {
  /** Matches the reply to the request. */
  id: number;
  /** The page's HTML (after the parts sent before it with the same id). */
  html: string;
  /** The page's URL (base of its links). */
  url: string;
  /** Limits (the extractor is always Readability). */
  options?: Omit<ExtractOptions, "extractor">;
}

/** An answer of the worker. */
export type ExtractReply =
  | { id: number; page: ExtractedPage }
  | { id: number; error: { code: string; message: string } };

// Only when started as a worker thread (importing this module for its types does nothing).
if (parentPort) {
  const port = parentPort;
  let parts: string[] = [];
  let partsId = -1;
  port.on("message", (message: ExtractRequest) => {
    if (message.id !== partsId) {
      parts = [];
      partsId = message.id;
    }
    if ("part" in message) {
      parts.push(message.part);
      return;
    }
    const request = message;
    parts.push(request.html);
    const html = parts.join("");
    parts = [];
    let reply: ExtractReply;
    try {
      const page = extractHtml(html, request.url, request.options);
      // Counted here too, so the main thread need not count a huge page again.
      reply = { id: request.id, page: { ...page, markdownTokens: countTokens(page.markdown) } };
    } catch (error) {
      reply = {
        id: request.id,
        error: error instanceof GleanerError
          ? { code: error.code, message: error.message }
          : { code: "internal", message: error instanceof Error ? error.message : String(error) },
      };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true });
}
