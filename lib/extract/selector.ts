/**
 * CSS selectors from callers (`target_selector`, `wait_for_selector`):
 * checked by the cheap rules and then by parsing them with the DOM the
 * extraction uses, and the one element a `target_selector` keeps.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import { parseDocument } from "./dom.ts";
import { selectorProblem } from "../text/selector_rules.ts";

export { SELECTOR_MAX_CHARS, selectorProblem } from "../text/selector_rules.ts";

let probe: Document | undefined;

/**
 * Throws `invalid_arguments` naming `field` when `selector` breaks the cheap
 * rules ({@link selectorProblem}) or does not parse as a CSS selector.
 *
 * @example
 * ```ts
 * import { assertSelector } from "./selector.ts";
 * assertSelector("target_selector", "main > article");
 * try {
 *   assertSelector("target_selector", "div[[");
 * } catch (e) {
 *   console.assert((e as { code: string }).code === "invalid_arguments");
 * }
 * ```
 */
export function assertSelector(field: string, selector: string): void {
  const problem = selectorProblem(selector);
  if (problem) {
    throw new GleanerError("invalid_arguments", `${field}: ${problem}`, { details: { field } });
  }
  probe ??= parseDocument("<p></p>");
  try {
    probe.querySelector(selector);
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 120) : "";
    throw new GleanerError(
      "invalid_arguments",
      `${field}: not a valid CSS selector: ${JSON.stringify(selector)}${
        reason ? ` (${reason})` : ""
      }`,
      { details: { field } },
    );
  }
}

/**
 * The first element of `doc` matching `selector`; throws
 * `selector_not_found` naming the selector and the URL when none does.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { selectTarget } from "./selector.ts";
 * const doc = parseDocument("<main><p>a</p></main><aside>b</aside>");
 * console.assert(selectTarget(doc, "main", "https://example.com/").textContent === "a");
 * ```
 */
export function selectTarget(doc: Document, selector: string, url: string): Element {
  assertSelector("target_selector", selector);
  const found = doc.querySelector(selector);
  if (!found) {
    throw new GleanerError(
      "selector_not_found",
      `target_selector ${JSON.stringify(selector)} matched nothing on ${url}`,
      { details: { field: "target_selector", selector } },
    );
  }
  return found;
}
