/**
 * Reading a REST request body: JSON only, size-limited while it streams in.
 *
 * @module
 */
import { readStreamBounded } from "../lib/net/body_buffer.ts";
import { GleanerError } from "../lib/errors.ts";

/** Largest request body accepted (4 MiB, the same as the MCP transport's). */
export const MAX_BODY_BYTES: number = 4 * 1024 * 1024;

/** True for `application/json` and `application/<something>+json`, parameters ignored. */
export function isJsonMediaType(contentType: string | null | undefined): boolean {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  return type === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}

/**
 * Reads and parses a JSON request body. An empty body is `{}`.
 *
 * @throws {GleanerError} `unsupported_content` unless the content type is JSON
 * (a form or `text/plain` body, which a web page can send cross-site without
 * a preflight, is refused); `too_large` when the declared or streamed size is
 * over `maxBytes` (the read stops there, nothing more is buffered);
 * `invalid_arguments` when the body is not UTF-8 JSON.
 *
 * @example
 * ```ts
 * import { readJsonBody } from "./body.ts";
 * const request = new Request("http://localhost/v1/search", {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: '{"items":[]}',
 * });
 * console.assert(JSON.stringify(await readJsonBody(request, 1024)) === '{"items":[]}');
 * ```
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const path = new URL(request.url).pathname;
  const contentType = request.headers.get("content-type");
  if (!isJsonMediaType(contentType)) {
    await request.body?.cancel().catch(() => {});
    throw new GleanerError(
      "unsupported_content",
      `${request.method} ${path} needs Content-Type: application/json (got ${
        contentType ? contentType.split(";")[0].trim() : "none"
      })`,
    );
  }
  const tooLarge = () =>
    new GleanerError("too_large", `request body is over ${maxBytes} bytes`, {
      details: { limit: maxBytes },
    });
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await request.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const bytes = request.body
    ? await readStreamBounded(request.body, maxBytes, declared)
    : new Uint8Array();
  if (bytes === "too_large") throw tooLarge();
  if (bytes.length === 0) return {};
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new GleanerError("invalid_arguments", "request body is not UTF-8");
  }
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new GleanerError("invalid_arguments", "request body is not valid JSON");
  }
}
