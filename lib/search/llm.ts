/**
 * The optional language model (`llm.*`) behind the search tools' `expand`
 * (a query rewrite) and `search_and_summarize`: an Ollama-compatible server,
 * called as documented in https://github.com/ollama/ollama/blob/main/docs/api.md:
 *
 * - `llm.api: "generate"`: `POST <url>/api/generate` `{ model, prompt, system,
 *   stream: false, options }` → `{ response, done }`;
 * - `llm.api: "chat"`: `POST <url>/api/chat` `{ model, messages, stream: false,
 *   options }` → `{ message: { role, content }, done }`.
 *
 * Errors come back as `{ "error": "…" }` with 400, 404 (model not found),
 * 429, 500 or 502 (https://docs.ollama.com/api/errors); they map to stable
 * codes without echoing the body. Output is bounded by `options.num_predict`
 * and by the size of the answer read.
 *
 * @module
 */
import type { LlmSection } from "../config/sections.ts";
import { GleanerError } from "../errors.ts";
import type { Fetcher } from "../net/types.ts";
import { postJson } from "./json_endpoint.ts";

/** Largest answer read (bytes). */
const MAX_RESPONSE_BYTES = 1_000_000;
/** Longest rewritten query kept (characters). */
const MAX_REWRITE_CHARS = 300;

/** One request to the model. */
export interface LlmRequest {
  /** Instructions (Ollama `system`). */
  system: string;
  /** The user's turn (Ollama `prompt`, or the user message). */
  prompt: string;
  /** Most tokens generated (`options.num_predict`). */
  maxTokens: number;
  /** Cancels the call. */
  signal?: AbortSignal;
}

/** A configured model. */
export interface Llm {
  /** The model's name. */
  readonly model: string;
  /** Generates the text answering `request`; throws a `GleanerError` on failure. */
  complete(request: LlmRequest): Promise<string>;
}

/** True when `llm.url` and `llm.model` are both set. */
export function llmConfigured(config: { llm: LlmSection }): boolean {
  return Boolean(config.llm.url && config.llm.model);
}

/**
 * The model a configuration names, or `undefined` when `llm.url` or
 * `llm.model` is missing.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { createFetcher } from "../net/fetch.ts";
 * import { llmFromConfig } from "./llm.ts";
 * const config = parseConfig({});
 * console.assert(llmFromConfig(config, createFetcher(config.network)) === undefined);
 * ```
 */
export function llmFromConfig(config: { llm: LlmSection }, fetcher: Fetcher): Llm | undefined {
  const { url, model, api, api_key: apiKey, timeout_ms: timeoutMs } = config.llm;
  if (!url || !model) return undefined;
  const endpoint = `${url.replace(/\/+$/, "").replace(/\/api\/(generate|chat)$/, "")}/api/${api}`;
  return {
    model,
    async complete(request) {
      const options = { num_predict: request.maxTokens, temperature: 0 };
      const body = api === "chat"
        ? {
          model,
          messages: [
            { role: "system", content: request.system },
            { role: "user", content: request.prompt },
          ],
          stream: false,
          options,
        }
        : { model, system: request.system, prompt: request.prompt, stream: false, options };
      const answer = await postJson(fetcher, {
        what: "llm",
        urlSetting: "llm.url",
        keySetting: "llm.api_key",
        modelSetting: "llm.model",
        url: endpoint,
        body,
        apiKey,
        timeoutMs,
        maxBytes: MAX_RESPONSE_BYTES,
        signal: request.signal,
      }) as Record<string, unknown> | null;
      const text = api === "chat"
        ? (answer?.message as { content?: unknown } | undefined)?.content
        : answer?.response;
      if (typeof text !== "string") {
        throw new GleanerError(
          "provider_unavailable",
          `llm: invalid response (no ${api === "chat" ? "message.content" : "response"} text)`,
        );
      }
      return text;
    },
  };
}

/**
 * The text a model meant to show: what reasoning models wrap in
 * `<think>…</think>` before the answer is removed.
 *
 * @example
 * ```ts
 * import { visibleText } from "./llm.ts";
 * console.assert(visibleText("<think>hmm</think>tides") === "tides");
 * ```
 */
export function visibleText(text: string): string {
  return text.replace(/<think>[\s\S]*?<\/think>/gi, "");
}

/**
 * Asks the model to rewrite a web search query: one line, at most 300
 * characters, no quotes around it. Throws when the model fails or answers
 * nothing usable (callers then keep the original query).
 *
 * @example
 * ```ts
 * import { rewriteQuery } from "./llm.ts";
 * const llm = { model: "m", complete: () => Promise.resolve('"sqlite wal mode checkpoint"\nsecond line') };
 * console.assert(await rewriteQuery(llm, "why is my sqlite db file growing") === "sqlite wal mode checkpoint");
 * ```
 */
export async function rewriteQuery(llm: Llm, query: string, signal?: AbortSignal): Promise<string> {
  const text = await llm.complete({
    system:
      "You rewrite questions into web search queries. Answer with the query only: one line, " +
      "the key terms, no explanation, no quotes.",
    prompt: query,
    maxTokens: 64,
    signal,
  });
  const visible = visibleText(text);
  const line = visible.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== "") ?? "";
  const cleaned = line
    .replace(/^(search query|query)\s*:\s*/i, "")
    .replace(/^["'`“”]+|["'`“”]+$/g, "")
    .replace(/\p{Cc}/gu, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, MAX_REWRITE_CHARS)
    .trim();
  if (cleaned === "") {
    throw new GleanerError("provider_unavailable", "llm: the rewrite was empty");
  }
  return cleaned;
}
