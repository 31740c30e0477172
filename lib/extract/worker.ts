/**
 * The worker thread of the extraction pool (`pool.ts`): runs
 * {@link extractHtml} off the main thread, so a slow page cannot block a
 * server, and can be stopped by terminating the thread. Protocol: the
 * thread posts `{ ready: true }` once loaded; a page arrives as `{ id, part }`
 * messages then one {@link ExtractPage}, or as `{ id, bytes }` messages then
 * one {@link ExtractBody} (a fetched body, decoded here, as far as
 * extraction reads), answered by one {@link ExtractReply} with the same id.
 *
 * @module
 */
import { parentPort } from "node:worker_threads";
import { GleanerError } from "../errors.ts";
import { type ExtractedPage, extractHtml, type ExtractOptions } from "./mod.ts";
import { countTokens } from "../rank/tokens.ts";
import { looksThin } from "../read/thin.ts";
import { htmlDecoder } from "./body.ts";
import { HTML_LIMITS } from "./guard.ts";

/** A request to the worker: leading parts of the HTML (or body), then the rest with the URL. */
export type ExtractRequest =
  | { id: number; part: string }
  | ExtractPage
  | { id: number; bytes: Uint8Array }
  | ExtractBody;

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

/** The last message of a fetched body: bytes to decode (after those sent before with the same id). */
export interface ExtractBody {
  /** Matches the reply to the request. */
  id: number;
  /** The last bytes of the part of the body extraction reads. */
  bytes: Uint8Array;
  /** Charset of the bytes. */
  charset: string;
  /** Bytes past these were not sent (reported back as `cut`). */
  cut: boolean;
  /** The page's URL (base of its links). */
  url: string;
  /** Limits (the extractor is always Readability). */
  options?: Omit<ExtractOptions, "extractor">;
}

/** An answer of the worker (`cut` and `thin` answer an {@link ExtractBody}). */
export type ExtractReply =
  | { id: number; page: ExtractedPage; cut?: boolean; thin?: boolean }
  | { id: number; error: { code: string; message: string } };

/** The bytes of a body sent in parts, joined. */
function joinBytes(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

// Only when started as a worker thread (importing this module for its types does nothing).
if (parentPort) {
  const port = parentPort;
  let parts: string[] = [];
  let byteParts: Uint8Array[] = [];
  let partsId = -1;
  port.on("message", (message: ExtractRequest) => {
    if (message.id !== partsId) {
      parts = [];
      byteParts = [];
      partsId = message.id;
    }
    if ("part" in message) {
      parts.push(message.part);
      return;
    }
    if ("bytes" in message) {
      byteParts.push(message.bytes);
      if (!("url" in message)) return;
    }
    const request = message;
    let reply: ExtractReply;
    try {
      if ("bytes" in request) {
        // The same text the HTTP tier decodes inline (`decodeHtmlBytes`), then what
        // `extract` would have sent: at most 2 × maxChars + 1 characters.
        const bytes = joinBytes(byteParts);
        byteParts = [];
        const text = htmlDecoder(request.charset).decode(bytes);
        const maxChars = request.options?.limits?.maxChars ?? HTML_LIMITS.maxChars;
        const html = text.length > 2 * maxChars + 1 ? text.slice(0, 2 * maxChars + 1) : text;
        const page = counted(extractHtml(html, request.url, request.options));
        reply = { id: request.id, page, cut: request.cut, thin: looksThin(text, page.markdown) };
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
    port.postMessage(reply);
  });
  port.postMessage({ ready: true });
}

/** The page with its Markdown counted here, so the main thread need not count a huge page again. */
function counted(page: ExtractedPage): ExtractedPage {
  return { ...page, markdownTokens: countTokens(page.markdown) };
}
