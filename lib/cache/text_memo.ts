/**
 * Results of a pure function of a text, remembered for the most recent texts: a page's passages
 * are chunked, indexed, embedded and counted again on every question asked of it (and at every
 * budget), with the same results. A remembered value is shared by every caller: treat it as
 * read-only.
 *
 * @module
 */
import { LruCache } from "./lru_cache.ts";

/**
 * `compute` remembered for the last `size` texts of at most `maxChars` characters (longer texts
 * are computed every time: they are rare, and would hold a lot of memory).
 *
 * @example
 * ```ts
 * import { memoByText } from "./text_memo.ts";
 * let calls = 0;
 * const length = memoByText(16, (text) => (calls++, text.length));
 * console.assert(length("tide") === 4 && length("tide") === 4 && calls === 1);
 * ```
 */
export function memoByText<T>(
  size: number,
  compute: (text: string) => T,
  maxChars = 4_096,
): (text: string) => T {
  const memo = new LruCache<string, T>(size);
  return (text: string) => {
    if (text.length > maxChars) return compute(text);
    let value = memo.get(text);
    if (value === undefined) {
      value = compute(text);
      memo.set(text, value);
    }
    return value;
  };
}
