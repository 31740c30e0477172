/**
 * Token counts of rendered memory elements, for the recall budget.
 *
 * @module
 */
import { LruCache } from "../cache/lru_cache.ts";
import { countTokens } from "../text/tokens.ts";

const TOKEN_MEMO_SIZE = 4_096;
const tokenMemo = new LruCache<string, number>(TOKEN_MEMO_SIZE);

/**
 * Tokens of a rendered memory element, remembered for the last few thousand
 * elements (the profile pool and recent memories render the same way call
 * after call).
 *
 * @example
 * ```ts
 * import { renderedTokens } from "./rendered_tokens.ts";
 * console.assert(renderedTokens("<memory>hello</memory>") === renderedTokens("<memory>hello</memory>"));
 * ```
 */
export function renderedTokens(element: string): number {
  let n = tokenMemo.get(element);
  if (n === undefined) {
    n = countTokens(element);
    tokenMemo.set(element, n);
  }
  return n;
}
