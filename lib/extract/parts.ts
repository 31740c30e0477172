/**
 * Text sent between the main thread and an extraction thread goes in parts:
 * one message of megabytes holds the receiving thread while it is read (a
 * 3 MB page: 13 ms and more), parts of {@link MESSAGE_PART_CHARS} do not.
 * Both the pool (HTML to a thread) and the thread (Markdown back) split
 * text with {@link textParts}.
 *
 * @module
 */

/**
 * Characters of text in one message to or from an extraction thread.
 *
 * @internal exported for tests only
 */
export const MESSAGE_PART_CHARS = 1 << 18;

/**
 * `text` in consecutive parts of at most `size` characters; always at least
 * one part (the empty string for empty text), so the last part can close a
 * message sequence.
 *
 * @example
 * ```ts
 * import { textParts } from "./parts.ts";
 * console.assert([...textParts("abcdefg", 3)].join("|") === "abc|def|g");
 * console.assert([...textParts("", 3)].length === 1);
 * ```
 */
export function* textParts(text: string, size: number = MESSAGE_PART_CHARS): Generator<string> {
  let at = 0;
  for (; text.length - at > size; at += size) yield text.slice(at, at + size);
  yield text.slice(at);
}
