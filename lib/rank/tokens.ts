/**
 * Token counting with the o200k_base encoding (gpt-tokenizer): budgets are
 * counted on the exact text the model receives.
 *
 * @module
 */
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";

// Special-token strings found in page text ("<|endoftext|>") are counted as
// ordinary text instead of throwing.
const OPTIONS = { disallowedSpecial: new Set<string>() };

/**
 * Number of o200k_base tokens in `text`.
 *
 * @example
 * ```ts
 * import { countTokens } from "./tokens.ts";
 * console.assert(countTokens("") === 0);
 * console.assert(countTokens("Hello, world!") === 4);
 * ```
 */
export function countTokens(text: string): number {
  if (!text) return 0;
  return countO200k(text, OPTIONS);
}
