/**
 * Assertions the tests share.
 *
 * @example
 * ```ts
 * import { rejectsWith } from "./asserts.ts";
 * import { GleanerError } from "../lib/errors.ts";
 * const error = await rejectsWith(Promise.reject(new GleanerError("timeout", "slow")), "timeout");
 * console.assert(error.message === "slow");
 * ```
 *
 * @module
 */
import assert from "node:assert/strict";
import { type ErrorCode, GleanerError } from "../lib/errors.ts";

/**
 * Awaits `promise` and asserts it rejects with a {@link GleanerError} of
 * `code`; returns that error. `label` prefixes the failure messages.
 */
export async function rejectsWith(
  promise: Promise<unknown>,
  code: ErrorCode,
  label = "",
): Promise<GleanerError> {
  const prefix = label ? `${label}: ` : "";
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof GleanerError, `${prefix}not a GleanerError: ${e}`);
    assert.equal(e.code, code, `${prefix}expected ${code}, got ${e.code} (${e.message})`);
    return e;
  }
  assert.fail(`${prefix}expected ${code}, but the call succeeded`);
}
