/**
 * Argument checks shared by the operations of the memory service, and the
 * rounding of the scores they report.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import { idTextProblem } from "../text/id_text.ts";

/** Longest `author` of a memory (characters). */
const MAX_AUTHOR_CHARS = 200;

/**
 * The `author` of a memory, trimmed, or `undefined` when absent; throws
 * `invalid_arguments` naming `field` when it is not a string, is blank,
 * longer than {@link MAX_AUTHOR_CHARS} or holds control characters.
 */
export function checkAuthor(author: unknown, field: string): string | undefined {
  if (author === undefined) return undefined;
  const text = typeof author === "string" ? author.trim() : "";
  const problem = typeof author !== "string"
    ? "must be a string"
    : text === ""
    ? "must not be empty"
    : text.length > MAX_AUTHOR_CHARS
    ? `must be at most ${MAX_AUTHOR_CHARS} characters`
    : idTextProblem(text);
  if (problem) {
    throw new GleanerError("invalid_arguments", `${field}: ${problem}`, { details: { field } });
  }
  return text;
}

/**
 * Throws `invalid_arguments` naming `field` when free text holds U+0000, which
 * PostgreSQL cannot store (SQLite would): the same answer on both engines.
 */
export function checkNoNul(text: unknown, field: string): void {
  if (typeof text === "string" && text.includes("\u0000")) {
    throw new GleanerError("invalid_arguments", `${field}: must not contain U+0000 (NUL)`, {
      details: { field },
    });
  }
}

/** Throws `invalid_arguments` naming `field` unless `kind` is absent or a memory kind. */
export function checkKind(kind: unknown, field: string): void {
  if (kind === undefined || kind === "episodic" || kind === "profile") return;
  const shown = typeof kind === "string" ? ` ${JSON.stringify(kind.slice(0, 40))}` : "";
  throw new GleanerError(
    "invalid_arguments",
    `${field}: kind${shown} is not one of episodic, profile`,
    { details: { field } },
  );
}

/** `x` rounded to three decimals (scores and similarities in answers). */
export function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
