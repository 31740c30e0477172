/**
 * The cheap rules a CSS selector from a caller must pass before anything
 * parses it: bounded length, no markup, no `javascript:` URL, no `{`/`}`
 * (style-rule injection). No imports: tool schemas use it at start-up, and
 * the full check (`selector.ts`) parses the selector too.
 *
 * @module
 */

/** Longest CSS selector accepted (characters). */
export const SELECTOR_MAX_CHARS = 256;

/**
 * What is wrong with a selector by the cheap rules, or `undefined` when they
 * pass (it may still fail to parse: see `assertSelector` in `selector.ts`).
 *
 * @example
 * ```ts
 * import { selectorProblem } from "./selector_rules.ts";
 * console.assert(selectorProblem("main article") === undefined);
 * console.assert(selectorProblem("a{color:red}") !== undefined);
 * console.assert(selectorProblem("<script>") !== undefined);
 * ```
 */
export function selectorProblem(selector: string): string | undefined {
  if (selector.trim() === "") return "must not be empty";
  if (selector.length > SELECTOR_MAX_CHARS) {
    return `must be at most ${SELECTOR_MAX_CHARS} characters`;
  }
  if (selector.includes("<")) return "must not contain markup (<)";
  if (/javascript\s*:/i.test(selector)) return "must not contain javascript:";
  if (/[{}]/.test(selector)) return "must not contain { or } (a selector, not a style rule)";
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(selector)) return "must not contain control characters";
  return undefined;
}
