/**
 * Decoding an HTML body for extraction: only as far as extraction reads.
 * Shared by the extraction pool (which decodes a fetched body slice by
 * slice as it posts it to a thread) and the inline path of the HTTP tier
 * (`decodeHtmlBody`), so both give the same text.
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
