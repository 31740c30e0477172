/**
 * Collects a response body chunk by chunk under a size limit, holding at
 * most the limit plus the chunk being added, and never copying the whole
 * body at once: on a small VM, touching fresh memory costs several
 * milliseconds per megabyte, so gathering a 20 MB decompressed body in a
 * list and concatenating it at the end blocked the event loop for a large
 * part of a second (and held twice the limit).
 *
 * Bodies up to {@link SMALL_BODY_BYTES} are kept as a list of chunks and
 * joined once. A larger body is written as it arrives into one buffer
 * allocated for the whole limit (or the declared length): an allocation
 * the system only backs with memory where bytes are written, so what is
 * held is the body itself, and each chunk's copy is small.
 *
 * @module
 */

/**
 * Up to this many bytes, chunks are listed and joined at the end (one small copy: 256 KB).
 *
 * @internal exported for tests only
 */
export const SMALL_BODY_BYTES = 1 << 18;

/**
 * A body being read: {@link BodyBuffer.push} each chunk, then take
 * {@link BodyBuffer.bytes}.
 *
 * @example
 * ```ts
 * import { BodyBuffer } from "./body_buffer.ts";
 * const body = new BodyBuffer(5);
 * console.assert(body.push(new Uint8Array([1, 2, 3])));
 * console.assert(!body.push(new Uint8Array([4, 5, 6])));
 * console.assert(body.bytes().join() === "1,2,3,4,5" && body.full);
 * console.assert(!body.push(new Uint8Array([7])) && body.size === 5);
 * ```
 */
export class BodyBuffer {
  readonly #limit: number;
  readonly #expected: number | undefined;
  #chunks: Uint8Array[] = [];
  #buffer: Uint8Array | undefined;
  #size = 0;
  #full = false;

  /**
   * @param limit bytes kept at most; the rest of the body is dropped.
   * @param expected the declared length, when known (sizes the buffer of a large body).
   */
  constructor(limit: number, expected?: number) {
    this.#limit = Math.max(0, Math.floor(limit));
    this.#expected = expected !== undefined && Number.isFinite(expected) && expected > 0
      ? Math.floor(expected)
      : undefined;
  }

  /** Bytes kept so far. */
  get size(): number {
    return this.#size;
  }

  /** True once bytes past the limit were dropped. */
  get full(): boolean {
    return this.#full;
  }

  /**
   * Adds a chunk (a small body keeps it as it is: do not reuse it). Returns
   * false once bytes had to be dropped: only the part of `chunk` under the
   * limit is kept, and every later chunk is dropped.
   */
  push(chunk: Uint8Array): boolean {
    if (this.#full) return false;
    let part = chunk;
    if (this.#size + part.length > this.#limit) {
      part = part.subarray(0, this.#limit - this.#size);
      this.#full = true;
    }
    if (part.length > 0) {
      if (!this.#buffer && this.#size + part.length <= SMALL_BODY_BYTES) {
        this.#chunks.push(part);
      } else {
        this.#reserve(this.#size + part.length);
        this.#buffer!.set(part, this.#size);
      }
      this.#size += part.length;
    }
    return !this.#full;
  }

  /** The bytes kept (a view: a large body is not copied again). */
  bytes(): Uint8Array {
    if (this.#buffer) return this.#buffer.subarray(0, this.#size);
    if (this.#chunks.length === 1) return this.#chunks[0];
    const out = new Uint8Array(this.#size);
    let at = 0;
    for (const chunk of this.#chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    this.#chunks = [out];
    return out;
  }

  /** Makes room for `needed` bytes in the large-body buffer. */
  #reserve(needed: number): void {
    if (this.#buffer && this.#buffer.length >= needed) return;
    // Sized for the declared length when it fits the limit, else for the limit itself: the
    // allocation is only backed by memory as it is written.
    const capacity = this.#expected !== undefined && this.#expected >= needed &&
        !this.#buffer
      ? Math.min(this.#expected, this.#limit)
      : this.#limit;
    const next = new Uint8Array(capacity);
    if (this.#buffer) next.set(this.#buffer.subarray(0, this.#size));
    else {
      let at = 0;
      for (const chunk of this.#chunks) {
        next.set(chunk, at);
        at += chunk.length;
      }
      this.#chunks = [];
    }
    this.#buffer = next;
  }
}

/**
 * Reads a request body stream whole under `limit` bytes: the bytes, or
 * `"too_large"` as soon as a chunk passes the limit (the stream is then
 * cancelled, nothing more is buffered). `declared` is the body's declared
 * length, when known.
 *
 * @example
 * ```ts
 * import { readStreamBounded } from "./body_buffer.ts";
 * const body = new Response("hello").body!;
 * const bytes = await readStreamBounded(body, 16);
 * console.assert(bytes !== "too_large" && new TextDecoder().decode(bytes) === "hello");
 * console.assert(await readStreamBounded(new Response("hello").body!, 3) === "too_large");
 * ```
 */
export async function readStreamBounded(
  body: ReadableStream<Uint8Array>,
  limit: number,
  declared?: number,
): Promise<Uint8Array | "too_large"> {
  const buffer = new BodyBuffer(limit, declared);
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return buffer.bytes();
    if (!buffer.push(value)) {
      await reader.cancel().catch(() => {});
      return "too_large";
    }
  }
}
