/**
 * One JSON `POST` to an operator-configured endpoint (the search reranker,
 * the language model) through the guarded fetcher, every failure classified
 * as a provider's is (`../net/classify.ts`). Messages name the endpoint
 * (origin and path only) and the setting to check, never the key nor the
 * upstream's body.
 *
 * @module
 */
import type { Fetcher } from "../net/types.ts";
import { callJson } from "../net/json_call.ts";

/** One call. */
export interface JsonPost {
  /** Who calls, for messages (`reranker`, `llm`). */
  what: string;
  /** The setting that holds the endpoint (`search.rerank_url`), named when its host does not resolve. */
  urlSetting: string;
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

const anyJson = (_: unknown): _ is unknown => true;

/**
 * Sends the call and returns the parsed JSON of a 2xx answer. Any other
 * answer is classified by `classifyFailure` (the provider table: 401/403
 * `unauthorized` naming `keySetting`, 402 `insufficient_balance`, 404
 * `not_found` naming `modelSetting`, 429 `rate_limited` with
 * `details.retry_after_s`, 408/5xx `provider_unavailable`, 400/422
 * `invalid_arguments`, documented error codes in the body first); a 2xx body
 * that is not JSON is `provider_unavailable`; a timeout `timeout`; network
 * failures `provider_unavailable`.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "../config/parse.ts";
 * import { createFetcher } from "../net/fetch.ts";
 * import { postJson } from "./json_endpoint.ts";
 * const fetcher = createFetcher(parseConfig({}).network);
 * const body = await postJson(fetcher, {
 *   what: "reranker", urlSetting: "search.rerank_url", keySetting: "search.rerank_api_key",
 *   modelSetting: "search.rerank_model", url: "https://api.jina.ai/v1/rerank",
 *   body: { query: "q", documents: ["a"] }, timeoutMs: 5000, maxBytes: 1_000_000,
 * });
 * ```
 */
export async function postJson(fetcher: Fetcher, call: JsonPost): Promise<unknown> {
  return await callJson({ fetcher, signal: call.signal }, {
    provider: call.what,
    url: call.url,
    method: "POST",
    headers: call.apiKey ? { authorization: `Bearer ${call.apiKey}` } : {},
    json: call.body,
    timeoutMs: call.timeoutMs,
    maxBytes: call.maxBytes,
    setting: call.urlSetting,
    check: { unauthorized: call.keySetting, not_found: call.modelSetting },
  }, anyJson);
}
