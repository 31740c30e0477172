/**
 * Argument checks shared by the operations of the memory service, and the
 * rounding of the scores they report.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";

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
