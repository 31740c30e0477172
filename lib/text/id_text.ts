/**
 * Id-like text (session ids, refs, user ids, kinds, document ids): one check
 * shared by the tool schemas and the memory service, so every surface and
 * every storage engine refuses the same strings. Control characters
 * (U+0000–U+001F, U+007F) and lone surrogates are refused: PostgreSQL cannot
 * store U+0000 at all, SQLite would store it silently, and a lone surrogate
 * has no UTF-8 form (two different ones would encode to the same bytes).
 *
 * @module
 */
import { GleanerError } from "../errors.ts";

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Why `value` is not usable as id-like text, or `undefined` when it is.
 *
 * @example
 * ```ts
 * import { idTextProblem } from "./id_text.ts";
 * console.assert(idTextProblem("s-1") === undefined);
 * console.assert(idTextProblem("a\u0000b")!.includes("U+0000"));
 * console.assert(idTextProblem("\ud800") !== undefined);
 * ```
 */
export function idTextProblem(value: string): string | undefined {
  const control = CONTROL.exec(value);
  if (control) {
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    return `must not contain control characters (U+${code} at index ${control.index})`;
  }
  if (!value.isWellFormed()) return "must not contain lone surrogates (not valid Unicode)";
  return undefined;
}

/**
 * Throws `invalid_arguments` naming `field` unless `value` (when it is a
 * string) is usable id-like text ({@link idTextProblem}). Non-strings are
 * left to the caller's own type checks.
 *
 * @example
 * ```ts
 * import { checkIdText } from "./id_text.ts";
 * checkIdText("session-7", "session_id");
 * try {
 *   checkIdText("a\u0000", "session_id");
 * } catch (error) {
 *   console.assert(String(error).includes("session_id"));
 * }
 * ```
 */
export function checkIdText(value: unknown, field: string): void {
  if (typeof value !== "string") return;
  const problem = idTextProblem(value);
  if (problem) {
    throw new GleanerError("invalid_arguments", `${field}: ${problem}`, { details: { field } });
  }
}

/**
 * A zod refinement for id-like string fields: `schema.superRefine(idTextRefinement)`
 * reports the problem at the field's own path.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { idTextRefinement } from "./id_text.ts";
 * const Id = z.string().superRefine(idTextRefinement);
 * console.assert(!Id.safeParse("a\u0007").success && Id.safeParse("a").success);
 * ```
 */
export function idTextRefinement(
  value: string,
  ctx: { addIssue(issue: { code: "custom"; message: string }): void },
): void {
  const problem = idTextProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
}
