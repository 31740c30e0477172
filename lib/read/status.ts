/**
 * Maps HTTP statuses of a page read to Gleaner's stable error codes.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";

/**
 * Throws the {@link GleanerError} an unsuccessful page status stands for;
 * returns quietly for 2xx.
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
  if (status === 408 || status === 504) {
    throw new GleanerError("timeout", `${url} timed out (${status})`);
  }
  if (status >= 500) throw new GleanerError("provider_unavailable", `${url} failed (${status})`);
  throw new GleanerError("unsupported_content", `${url} answered ${status}`);
}
