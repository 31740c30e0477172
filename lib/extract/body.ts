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

/** Bytes decoded at a time: the caller yields to the event loop between slices. */
export const DECODE_SLICE_BYTES = 1 << 18;

/** A decoder for a charset label (unknown labels decode as UTF-8). */
function htmlDecoder(charset: string): TextDecoder {
  try {
    return new TextDecoder(charset.trim());
  } catch {
    return new TextDecoder("utf-8");
  }
}

/** The text of an HTML body as {@link htmlTextSlices} gives it. */
export interface HtmlTextSlices {
  /** Bytes past what extraction reads are left undecoded. */
  cut: boolean;
  /** The text, {@link DECODE_SLICE_BYTES} of bytes at a time, through one streaming decoder. */
  slices: Generator<string>;
}

/**
 * Decodes as much of an HTML body as extraction reads ({@link htmlBytesNeeded}),
 * slice by slice, so that the caller can yield between slices: a 20 MB body
 * decoded at once blocks a server for a large part of a second. Joined, the
 * slices are the same text whoever decodes (the HTTP tier or the pool).
 *
 * @example
 * ```ts
 * import { htmlTextSlices } from "./body.ts";
 * const { cut, slices } = htmlTextSlices(new TextEncoder().encode("<p>é</p>"), "utf-8", 1000);
 * console.assert(!cut && [...slices].join("") === "<p>é</p>");
 * ```
 */
export function htmlTextSlices(
  bytes: Uint8Array,
  charset: string,
  maxChars: number,
): HtmlTextSlices {
  const end = htmlBytesNeeded(bytes.length, maxChars);
  const decoder = htmlDecoder(charset);
  function* slices(): Generator<string> {
    for (let at = 0;; at += DECODE_SLICE_BYTES) {
      const last = at + DECODE_SLICE_BYTES >= end;
      yield decoder.decode(bytes.subarray(at, Math.min(end, at + DECODE_SLICE_BYTES)), {
        stream: !last,
      });
      if (last) return;
    }
  }
  return { cut: end < bytes.length, slices: slices() };
}
