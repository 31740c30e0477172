/**
 * Decoding an HTML body for extraction: only as far as extraction reads.
 * Shared by the extraction threads (which decode fetched bytes themselves,
 * so a server's main thread never holds a decoded multi-megabyte page) and
 * the inline path of the HTTP tier, so both give the same text.
 *
 * @module
 */

/** Bodies up to this many bytes are decoded whole (no need to look at the limit). */
export const DECODE_WHOLE_BYTES = 1 << 18;

/**
 * Bytes of an HTML body that extraction can use: the first `3 × maxChars`
 * bytes always hold at least `maxChars` characters (UTF-8 needs at most 3
 * bytes for a UTF-16 code unit), and extraction parses at most `maxChars`.
 *
 * @example
 * ```ts
 * import { htmlBytesNeeded } from "./body.ts";
 * console.assert(htmlBytesNeeded(10_000_000, 3_000_000) === 9_000_000);
 * console.assert(htmlBytesNeeded(100_000, 3_000_000) === 100_000);
 * ```
 */
export function htmlBytesNeeded(bodyLength: number, maxChars: number): number {
  return bodyLength <= DECODE_WHOLE_BYTES ? bodyLength : Math.min(bodyLength, 3 * maxChars);
}

/** A decoder for a charset label (unknown labels decode as UTF-8). */
export function htmlDecoder(charset: string): TextDecoder {
  try {
    return new TextDecoder(charset.trim());
  } catch {
    return new TextDecoder("utf-8");
  }
}

/**
 * Decodes the part of an HTML body extraction uses ({@link htmlBytesNeeded});
 * `cut` says bytes were left undecoded. A leading byte order mark is dropped.
 *
 * @example
 * ```ts
 * import { decodeHtmlBytes } from "./body.ts";
 * const { text, cut } = decodeHtmlBytes(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), "windows-1252", 100);
 * console.assert(text === "café" && !cut);
 * ```
 */
export function decodeHtmlBytes(
  bytes: Uint8Array,
  charset: string,
  maxChars: number,
): { text: string; cut: boolean } {
  const end = htmlBytesNeeded(bytes.length, maxChars);
  return { text: htmlDecoder(charset).decode(bytes.subarray(0, end)), cut: end < bytes.length };
}
