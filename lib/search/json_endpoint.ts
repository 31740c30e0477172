/**
 * One JSON `POST` to an operator-configured endpoint (the search reranker,
 * the language model) through the guarded fetcher, every failure mapped to
 * a stable code. Messages name the endpoint (origin and path only) and the
 * setting to check, never the key nor the upstream's body.
 *
 * @module
 */
import { safeEndpoint } from "../config/redact.ts";
import { GleanerError, toGleanerError } from "../errors.ts";
import type { Fetcher } from "../net/types.ts";

/** One call. */
export interface JsonPost {
  /** Who calls, for messages (`reranker`, `llm`). */
  what: string;
  /** The setting an operator should check on a refusal (`search.rerank_api_key`). */
  keySetting: string;
  /** The setting naming the model, for a 404 (`llm.model`). */
  modelSetting: string;
  /** Full endpoint URL. */
  url: string;
  /** The JSON body. */
  body: unknown;
  /** Bearer token, when set. */
  apiKey?: string;
  /** Time limit (ms). */
  timeoutMs: number;
  /** Largest response body (bytes). */
  maxBytes: number;
  /** Cancels the call. */
  signal?: AbortSignal;
}

/**
 * Sends the call and returns the parsed JSON of a 2xx answer. Non-2xx:
 * 401/403 `unauthorized`, 402 `insufficient_balance`, 404 `not_found`,
 * 408/504 `timeout`, 429 `rate_limited` (with `details.retry_after_s`),
 * 5xx `provider_unavailable`, other 4xx `invalid_arguments`; a body that is
 * not JSON `provider_unavailable`; network failures `provider_unavailable`.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "../config/config.ts";
 * import { createFetcher } from "../net/fetch.ts";
 * import { postJson } from "./json_endpoint.ts";
 * const fetcher = createFetcher(parseConfig({}).network);
 * const body = await postJson(fetcher, {
 *   what: "reranker", keySetting: "search.rerank_api_key", modelSetting: "search.rerank_model",
 *   url: "https://api.jina.ai/v1/rerank", body: { query: "q", documents: ["a"] },
 *   timeoutMs: 5000, maxBytes: 1_000_000,
 * });
 * ```
 */
export async function postJson(fetcher: Fetcher, call: JsonPost): Promise<unknown> {
  const where = safeEndpoint(call.url);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
  };
  if (call.apiKey) headers.authorization = `Bearer ${call.apiKey}`;
  let response;
  try {
    response = await fetcher.fetch(call.url, {
      method: "POST",
      headers,
      body: JSON.stringify(call.body),
      signal: call.signal,
      timeoutMs: call.timeoutMs,
      maxBytes: call.maxBytes,
      robots: false,
    });
  } catch (error) {
    const converted = toGleanerError(error, `${call.what}: ${where}`);
    if (["timeout", "blocked_url", "too_large"].includes(converted.code)) throw converted;
    throw new GleanerError("provider_unavailable", `${call.what}: ${where} could not be reached`, {
      cause: error,
    });
  }
  const status = response.status;
  if (status < 200 || status > 299) throw statusError(call, where, status, response.headers);
  try {
    return JSON.parse(response.text());
  } catch {
    throw new GleanerError(
      "provider_unavailable",
      `${call.what}: ${where} sent an invalid response (not JSON)`,
    );
  }
}

function statusError(call: JsonPost, where: string, status: number, headers: Headers) {
  const details: Record<string, unknown> = { status, endpoint: where };
  const fail = (code: ConstructorParameters<typeof GleanerError>[0], text: string) =>
    new GleanerError(code, `${call.what}: ${where} ${text}`, { details });
  if (status === 401 || status === 403) {
    return fail(
      "unauthorized",
      `refused the credentials (HTTP ${status}); check ${call.keySetting}`,
    );
  }
  if (status === 402) {
    return fail("insufficient_balance", "reports insufficient balance (HTTP 402)");
  }
  if (status === 404) {
    return fail(
      "not_found",
      `answered HTTP 404 (no such model or path); check ${call.modelSetting}`,
    );
  }
  if (status === 408 || status === 504) return fail("timeout", `timed out (HTTP ${status})`);
  if (status === 429) {
    const retry = headers.get("retry-after")?.trim();
    if (retry && /^\d+$/.test(retry)) details.retry_after_s = Number(retry);
    return fail("rate_limited", "is rate limiting (HTTP 429)");
  }
  if (status >= 500) return fail("provider_unavailable", `failed (HTTP ${status})`);
  return fail("invalid_arguments", `rejected the request (HTTP ${status})`);
}
