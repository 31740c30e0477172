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

/**
 * Bytes decoded at a time: the caller yields to the event loop between slices.
 *
 * @internal exported for tests only
 */
export const DECODE_SLICE_BYTES = 1 << 18;

/** A decoder for a charset label (unknown labels decode as UTF-8). */
function htmlDecoder(charset: string): TextDecoder {
  try {
    return new TextDecoder(charset.trim());
  } catch {
    return new TextDecoder("utf-8");
  }
}

/**
 * Encodings where a character may take more than one byte and a cut cannot
 * be placed between characters without decoding: these are decoded as a
 * stream. UTF-8 is cut between characters ({@link utf8Cut}); every other
 * encoding has one byte per character.
 */
const STREAMED_ENCODINGS = new Set([
  "utf-16be",
  "utf-16le",
  "gbk",
  "gb18030",
  "big5",
  "euc-jp",
  "iso-2022-jp",
  "shift_jis",
  "euc-kr",
  "replacement",
]);

/**
 * Moves a cut in UTF-8 bytes back to the start of a character (at most 3
 * bytes): a slice that ends there decodes to the same text alone as within
 * the whole, since UTF-8 decoding starts afresh at every byte that does not
 * continue a character.
 */
function utf8Cut(bytes: Uint8Array, cut: number, floor: number): number {
  for (let at = cut; at > cut - 4 && at > floor; at--) {
    if ((bytes[at] & 0xc0) !== 0x80) return at;
  }
  return cut;
}

/** The text of an HTML body as {@link htmlTextSlices} gives it. */
export interface HtmlTextSlices {
  /** Bytes past what extraction reads are left undecoded. */
  cut: boolean;
  /** The text, about {@link DECODE_SLICE_BYTES} of bytes at a time. */
  slices: Generator<string>;
}

/**
 * Decodes as much of an HTML body as extraction reads ({@link htmlBytesNeeded}),
 * slice by slice, so that the caller can yield between slices: a 20 MB body
 * decoded at once blocks a server for a large part of a second. Joined, the
 * slices are the text that decoding those bytes at once gives, whoever
 * decodes (the HTTP tier or the pool).
 *
 * UTF-8 slices are cut between characters and single-byte encodings
 * anywhere, and each slice is decoded on its own: Deno's streaming decoder
 * is about 15 times slower (5.6 MB of HTML: 23 ms against 1.5 ms). Other
 * multi-byte encodings go through one streaming decoder.
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
  const first = htmlDecoder(charset);
  const encoding = first.encoding;
  const streamed = STREAMED_ENCODINGS.has(encoding);
  // Only the first slice may start with a byte order mark to drop.
  const rest = streamed ? first : new TextDecoder(encoding, { ignoreBOM: true });
  function* slices(): Generator<string> {
    for (let at = 0;;) {
      let stop = Math.min(end, at + DECODE_SLICE_BYTES);
      if (stop < end && encoding === "utf-8") stop = utf8Cut(bytes, stop, at);
      const last = stop >= end;
      yield (at === 0 ? first : rest).decode(bytes.subarray(at, stop), {
        stream: streamed && !last,
      });
      if (last) return;
      at = stop;
    }
  }
  return { cut: end < bytes.length, slices: slices() };
}
