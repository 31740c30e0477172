/**
 * Maps HTTP statuses of a page read to Gleaner's stable error codes.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";

/**
 * Throws the {@link GleanerError} an unsuccessful page status stands for;
 * returns quietly for 2xx. 404/410 → `not_found`, 401/403 → `unauthorized`,
 * 429 → `rate_limited`, 5xx and 408 → `provider_unavailable` "answered
 * <status>" (the server answered: not a `timeout` of ours), anything else →
 * `unsupported_content`.
 *
 * @example
 * ```ts
 * import { assertPageStatus } from "./status.ts";
 * try { assertPageStatus(404, "https://example.com/x"); } catch (e) { console.assert((e as { code: string }).code === "not_found"); }
 * ```
 */
export function assertPageStatus(status: number, url: string): void {
  if (status >= 200 && status < 300) return;
  if (status === 404 || status === 410) {
    throw new GleanerError("not_found", `${url} answered ${status}`);
  }
  if (status === 401 || status === 403) {
    throw new GleanerError("unauthorized", `${url} refused access (${status})`);
  }
  if (status === 429) throw new GleanerError("rate_limited", `${url} is rate limiting (429)`);
  // A 5xx (504 included) or a 408 is an answer the server gave: it is reported
  // with its status, never as our own `timeout`.
  if (status >= 500 || status === 408) {
    throw new GleanerError("provider_unavailable", `${url} answered ${status}`, {
      details: { status },
    });
  }
  throw new GleanerError("unsupported_content", `${url} answered ${status}`);
}
