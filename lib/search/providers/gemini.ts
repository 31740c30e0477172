/**
 * Gemini: answers grounded in Google Search, with citations
 * (`x-goog-api-key: <key>`, `POST <base>/v1beta/models/<model>:generateContent`
 * with the `google_search` tool). Quick answers use {@link GEMINI_MODEL}, deep
 * ones {@link GEMINI_DEEP_MODEL} (settings `search.providers.gemini.model` /
 * `deep_model`): the replacements Google names for `gemini-2.5-flash` and
 * `gemini-2.5-pro`, shut down on 2026-12-01
 * (https://ai.google.dev/gemini-api/docs/deprecations, read 2026-12-01). A
 * retired model answers 404 `NOT_FOUND`, classified `not_found`: the router
 * falls back to the next provider.
 *
 * Request fields sent: `contents[0].parts[0].text` (the question),
 * `tools: [{ google_search: {} }]`.
 *
 * Fields read: `candidates[0].content.parts[].text` (joined: the answer),
 * `candidates[0].groundingMetadata.groundingChunks[].web` (`uri`, `title`:
 * the citations; the URI is Google's grounding redirect),
 * `groundingMetadata.webSearchQueries`, `modelVersion` (kept in
 * `provider_data`). A candidate without text (blocked, or no answer) is
 * `provider_unavailable`.
 *
 * @module
 */
import { z } from "zod";
import type { Config } from "../../config/config.ts";
import { providerFailure } from "./classify.ts";
import {
  boundedData,
  callJson,
  hasArray,
  isRecord,
  isWebUrl,
  providerSettings,
  records,
  str,
} from "./http.ts";
import type { Provider, ProviderAnswer, ProviderEnv, ProviderHit } from "./types.ts";

/** The provider's name. */
export const GEMINI = "gemini";

function settings(config: Config) {
  return providerSettings(config, GEMINI, {
    baseUrl: "https://generativelanguage.googleapis.com",
    maxResults: 20,
  });
}

/** The default model of quick answers (`search.providers.gemini.model`). */
export const GEMINI_MODEL = "gemini-3.5-flash-lite";
/** The default model of deep answers (`search.providers.gemini.deep_model`). */
export const GEMINI_DEEP_MODEL = "gemini-3.8-flash";

function modelFor(config: Config, depth: "quick" | "deep"): string {
  const own = config.search.providers[GEMINI] ?? {};
  return depth === "deep" ? own.deep_model ?? GEMINI_DEEP_MODEL : own.model ?? GEMINI_MODEL;
}

async function geminiAnswer(
  req: { query: string; depth: "quick" | "deep" },
  env: ProviderEnv,
): Promise<ProviderAnswer> {
  const s = settings(env.config);
  const model = modelFor(env.config, req.depth);
  const url = `${s.baseUrl}/v1beta/models/${encodeURIComponent(model)}:generateContent`;
  const body = await callJson(env, {
    provider: GEMINI,
    url,
    method: "POST",
    headers: { "x-goog-api-key": env.config.search.gemini_api_key ?? "" },
    json: {
      contents: [{ role: "user", parts: [{ text: req.query }] }],
      tools: [{ google_search: {} }],
    },
    timeoutMs: s.timeoutMs,
  }, hasArray("candidates"));
  const candidate = records(body.candidates)[0] ?? {};
  const content = isRecord(candidate.content) ? candidate.content : {};
  const answer = records(content.parts).map((part) => str(part.text)).join("").trim();
  if (!answer) throw providerFailure(GEMINI, url, { status: 200, unreadable: true });
  const grounding = isRecord(candidate.groundingMetadata) ? candidate.groundingMetadata : {};
  const citations: ProviderHit[] = [];
  for (const chunk of records(grounding.groundingChunks)) {
    const web = isRecord(chunk.web) ? chunk.web : {};
    if (!isWebUrl(web.uri)) continue;
    citations.push({
      title: str(web.title) || str(web.uri),
      url: str(web.uri),
      snippet: "",
      source: GEMINI,
    });
  }
  return {
    answer,
    citations: citations.slice(0, s.maxResults),
    provider_data: boundedData({
      model: body.modelVersion ?? model,
      search_queries: grounding.webSearchQueries,
    }),
  };
}

const GeminiInput = z.strictObject({
  query: z.string().min(1).max(4000).describe("The question"),
  depth: z.enum(["quick", "deep"]).default("quick").describe(
    "`quick`: the fast model; `deep`: the stronger model",
  ),
});

/**
 * Proves the key with `models.get` of the quick model (free; documented at
 * https://ai.google.dev/api/models#method:-models.get): a refused key answers
 * 400 `API_KEY_INVALID`, a retired model 404 `NOT_FOUND`.
 */
async function geminiProbe(env: ProviderEnv): Promise<string> {
  const s = settings(env.config);
  const model = modelFor(env.config, "quick");
  const body = await callJson(env, {
    provider: GEMINI,
    url: `${s.baseUrl}/v1beta/models/${encodeURIComponent(model)}`,
    headers: { "x-goog-api-key": env.config.search.gemini_api_key ?? "" },
    timeoutMs: s.timeoutMs,
  }, isRecord);
  return `key accepted; model ${str(body.name) || model} available`;
}

/**
 * The Gemini provider (`search.gemini_api_key`, env `GEMINI_API_KEY`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/config.ts";
 * import { geminiProvider } from "./gemini.ts";
 * console.assert(geminiProvider.roles.join() === "answer");
 * console.assert(geminiProvider.isConfigured(parseConfig({ search: { gemini_api_key: "k" } })));
 * ```
 */
export const geminiProvider: Provider = {
  name: GEMINI,
  title: "Gemini",
  roles: ["answer"],
  configHint: "search.gemini_api_key",
  isConfigured: (config) =>
    Boolean(config.search.gemini_api_key) && settings(config).enabled !== false,
  answer: geminiAnswer,
  probe: geminiProbe,
  tools: [{
    name: "gemini_grounded_answer",
    title: "Gemini grounded answer",
    description:
      "Answers a question with Gemini grounded in Google Search, citing the pages it used.",
    kind: "answer",
    input: GeminiInput,
    run: (input: z.output<typeof GeminiInput>, env: ProviderEnv) => geminiAnswer(input, env),
  }],
};
