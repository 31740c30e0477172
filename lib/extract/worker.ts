/**
 * The worker thread of the extraction pool (`pool.ts`): runs
 * {@link extractHtml} off the main thread, so a slow page cannot block a
 * server, and can be stopped by terminating the thread. Protocol: the
 * thread posts `{ ready: true }` once loaded; a page arrives as `{ id, part }`
 * messages then one {@link ExtractPage} (or one {@link ExtractBody}: a
 * fetched body, decoded as far as extraction reads, judged thin here too),
 * answered by one {@link ExtractReply} with the same id.
 *
 * @module
 */
import { parentPort } from "node:worker_threads";
import { GleanerError } from "../errors.ts";
import { type ExtractedPage, extractHtml, type ExtractOptions } from "./mod.ts";
import { countTokens } from "../text/tokens.ts";
import { looksThin } from "./thin.ts";
import { HTML_LIMITS } from "./guard.ts";
import { textParts } from "./parts.ts";

/** A request to the worker: leading parts of the HTML (or body), then the rest with the URL. */
export type ExtractRequest = { id: number; part: string } | ExtractPage | ExtractBody;

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

/** The last message of a fetched body, decoded (after the parts sent before with the same id). */
export interface ExtractBody {
  /** Matches the reply to the request. */
  id: number;
  /** The last decoded part of the body (all of it, with the parts before, that extraction reads). */
  text: string;
  /** Bytes past those decoded were not sent (reported back as `cut`). */
  cut: boolean;
  /** The page's URL (base of its links). */
  url: string;
  /** Limits (the extractor is always Readability). */
  options?: Omit<ExtractOptions, "extractor">;
}

/**
 * An answer of the worker (`cut` and `thin` answer an {@link ExtractBody}).
 * Long Markdown comes first in parts ({@link textParts}); the page's
 * `markdown` is then the last part.
 */
export type ExtractReply =
  | { id: number; part: string }
  | { id: number; page: ExtractedPage; cut?: boolean; thin?: boolean }
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
    let reply: ExtractReply;
    try {
      if ("text" in request) {
        // The text the HTTP tier decodes inline (`decodeHtmlBody`), then what `extract`
        // would have sent: at most 2 × maxChars + 1 characters.
        parts.push(request.text);
        const text = parts.join("");
        parts = [];
        const maxChars = request.options?.limits?.maxChars ?? HTML_LIMITS.maxChars;
        const html = text.length > 2 * maxChars + 1 ? text.slice(0, 2 * maxChars + 1) : text;
        const page = counted(extractHtml(html, request.url, request.options));
        // The element asked for was found: it is what the caller wants, however short.
        const thin = request.options?.targetSelector === undefined &&
          looksThin(text, page.markdown);
        reply = { id: request.id, page, cut: request.cut, thin };
      } else {
        parts.push(request.html);
        const html = parts.join("");
        parts = [];
        reply = { id: request.id, page: counted(extractHtml(html, request.url, request.options)) };
      }
    } catch (error) {
      reply = {
        id: request.id,
        error: error instanceof GleanerError
          ? { code: error.code, message: error.message }
          : { code: "internal", message: error instanceof Error ? error.message : String(error) },
      };
    }
    if ("page" in reply) {
      const parts = [...textParts(reply.page.markdown)];
      const markdown = parts.pop()!;
      for (const part of parts) port.postMessage({ id: reply.id, part } satisfies ExtractReply);
      if (parts.length > 0) reply = { ...reply, page: { ...reply.page, markdown } };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true });
}

/** The page with its Markdown counted here, so the main thread need not count a huge page again. */
function counted(page: ExtractedPage): ExtractedPage {
  return { ...page, markdownTokens: countTokens(page.markdown) };
}
