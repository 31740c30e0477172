/**
 * Embeddings from any OpenAI-compatible `POST /v1/embeddings` endpoint
 * (OpenAI, Azure-style proxies, Ollama, vLLM, text-embeddings-inference, …),
 * called through Gleaner's guarded {@link Fetcher}, in batches, one request
 * at a time per embedder.
 *
 * Upstream failures map to stable codes: 401/403 → `unauthorized`,
 * 402 → `insufficient_balance`, 429 → `rate_limited`, 5xx and network
 * failures → `provider_unavailable`, time-outs → `timeout`, 404 → `not_found`,
 * other 4xx → `invalid_arguments`. Messages name the endpoint (origin and
 * path only), never the key or the upstream body. The input tokens a
 * response reports (`usage.prompt_tokens`) are added to the caller's
 * `usage`, when it passes one.
 *
 * @module
 */
import { GleanerError, toGleanerError } from "../errors.ts";
import type { Fetcher } from "../net/types.ts";
import { SerialQueue } from "./queue.ts";
import type { Embedder, EmbeddingUsage } from "./types.ts";
import { documentPrefixTag } from "./cached.ts";
import { toUnitVector } from "./vector.ts";
import { safeEndpoint } from "../config/redact.ts";

/** Options of {@link createOpenAIEmbedder}. */
export interface OpenAIEmbedderOptions {
  /** The guarded fetcher every request goes through. */
  fetcher: Fetcher;
  /** Base URL (`https://api.openai.com/v1`) or the full `…/embeddings` URL. */
  url: string;
  /** Model name sent in each request (`text-embedding-3-small`, …). */
  model: string;
  /** Bearer token; omitted when unset (local servers). */
  apiKey?: string;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Vector length to ask for (sent as `dimensions`) and to expect. */
  dimensions?: number;
  /** Time limit of one request (ms); default the fetcher's. */
  timeoutMs?: number;
  /** Requests allowed to wait before callers get `rate_limited`. Default 64. */
  maxPending?: number;
  /** Characters of a text sent (longer texts are cut). Default 24000. */
  maxChars?: number;
  /** Prepended to queries. Default none. */
  queryPrefix?: string;
  /** Prepended to passages. Default none; a prefix changes the embedder's id. */
  documentPrefix?: string;
}

/** Largest response body accepted (64 MiB: 64 texts × 3072 floats fits many times over). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The endpoint URL for a configured base URL.
 *
 * @internal exported for tests only
 */
export function embeddingsEndpoint(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new GleanerError("invalid_arguments", "embed.api_url: not a valid URL", {
      details: { field: "embed.api_url" },
    });
  }
  if (!/^https?:$/.test(parsed.protocol)) {
    throw new GleanerError("invalid_arguments", "embed.api_url: must be http(s)", {
      details: { field: "embed.api_url" },
    });
  }
  if (!/\/embeddings\/?$/.test(parsed.pathname)) {
    parsed.pathname = `${parsed.pathname.replace(/\/+$/, "")}/embeddings`;
  }
  return parsed.toString();
}

/** Maps a non-2xx status to a {@link GleanerError}. */
function statusError(status: number, where: string, headers: Headers): GleanerError {
  const details: Record<string, unknown> = { status, endpoint: where };
  if (status === 401 || status === 403) {
    return new GleanerError(
      "unauthorized",
      `embeddings: ${where} refused the credentials (HTTP ${status}); check embed.api_key`,
      { details },
    );
  }
  if (status === 402) {
    return new GleanerError(
      "insufficient_balance",
      `embeddings: ${where} reports insufficient balance (HTTP 402)`,
      { details },
    );
  }
  if (status === 429) {
    const retry = headers.get("retry-after");
    const seconds = retry && /^\d+$/.test(retry.trim()) ? Number(retry.trim()) : undefined;
    if (seconds !== undefined) details.retry_after_s = seconds;
    return new GleanerError("rate_limited", `embeddings: ${where} is rate limiting (HTTP 429)`, {
      details,
    });
  }
  if (status === 404) {
    return new GleanerError(
      "not_found",
      `embeddings: ${where} answered 404; check embed.api_url and embed.api_model`,
      { details },
    );
  }
  if (status === 408 || status === 504) {
    return new GleanerError("timeout", `embeddings: ${where} timed out (HTTP ${status})`, {
      details,
    });
  }
  if (status >= 500) {
    return new GleanerError(
      "provider_unavailable",
      `embeddings: ${where} failed (HTTP ${status})`,
      { details },
    );
  }
  return new GleanerError(
    "invalid_arguments",
    `embeddings: ${where} rejected the request (HTTP ${status})`,
    { details },
  );
}

/**
 * The input tokens an OpenAI-format response reports (`usage.prompt_tokens`,
 * https://platform.openai.com/docs/api-reference/embeddings/object and
 * /create: `usage: { prompt_tokens, total_tokens }`), or undefined when it
 * reports none (many compatible servers leave `usage` out).
 */
function promptTokens(text: string): number | undefined {
  try {
    const tokens = (JSON.parse(text) as { usage?: { prompt_tokens?: unknown } })?.usage
      ?.prompt_tokens;
    return typeof tokens === "number" && Number.isSafeInteger(tokens) && tokens >= 0
      ? tokens
      : undefined;
  } catch {
    return undefined;
  }
}

/** Parses and checks an OpenAI-format embeddings response. */
function parseResponse(text: string, count: number, where: string): number[][] {
  const bad = (why: string) =>
    new GleanerError(
      "provider_unavailable",
      `embeddings: ${where} sent an invalid response (${why})`,
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw bad("not JSON");
  }
  const data = (body as { data?: unknown })?.data;
  if (!Array.isArray(data)) throw bad("no data array");
  if (data.length !== count) throw bad(`${data.length} vectors for ${count} inputs`);
  const out: number[][] = new Array(count);
  data.forEach((item, position) => {
    const index = typeof item?.index === "number" ? item.index : position;
    const embedding = item?.embedding;
    if (!Number.isInteger(index) || index < 0 || index >= count || out[index]) {
      throw bad("bad or repeated index");
    }
    if (!Array.isArray(embedding) || embedding.length === 0) throw bad("missing embedding");
    if (embedding.length !== (out.find(Boolean)?.length ?? embedding.length)) {
      throw bad("vectors of different lengths");
    }
    out[index] = embedding as number[];
  });
  return out;
}

/**
 * The error of an embeddings request that got no response: a timeout stays a
 * timeout, a refusal of ours (the network policy, ...) stays as it is, anything
 * else is `provider_unavailable`.
 */
function requestFailure(error: unknown, where: string): GleanerError {
  if (error instanceof GleanerError) {
    if (error.code === "internal") {
      return new GleanerError("provider_unavailable", `embeddings: ${where} could not be reached`, {
        cause: error,
      });
    }
    return error;
  }
  const converted = toGleanerError(error, `embeddings: ${where}`);
  if (converted.code === "timeout") return converted;
  return new GleanerError("provider_unavailable", `embeddings: ${where} could not be reached`, {
    cause: error,
  });
}

/**
 * Creates an embedder over an OpenAI-compatible embeddings endpoint. When
 * `dimensions` is not given, {@link Embedder.dimensions} reads 0 until the
 * first response arrives.
 *
 * @example
 * ```ts ignore
 * import { createFetcher } from "../net/fetch.ts";
 * import { parseConfig } from "@gleaner/gleaner";
 * import { createOpenAIEmbedder } from "./openai.ts";
 * const embedder = createOpenAIEmbedder({
 *   fetcher: createFetcher(parseConfig({}).network),
 *   url: "https://api.openai.com/v1",
 *   model: "text-embedding-3-small",
 *   apiKey: Deno.env.get("OPENAI_API_KEY"),
 * });
 * const [vector] = await embedder.embedQueries(["what is a gleaner"]);
 * ```
 */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  if (!options.model?.trim()) {
    throw new GleanerError("invalid_arguments", "embed.api_model: a model name is required", {
      details: { field: "embed.api_model" },
    });
  }
  const endpoint = embeddingsEndpoint(options.url);
  const where = safeEndpoint(endpoint);
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
  const maxChars = Math.max(1, Math.floor(options.maxChars ?? 24_000));
  const host = new URL(endpoint).host;
  const id = `openai:${host}/${options.model}${options.dimensions ? `:${options.dimensions}` : ""}${
    documentPrefixTag(options.documentPrefix ?? "")
  }`;
  const queue = new SerialQueue(options.maxPending ?? 64, `embeddings ${where}`);
  let dimensions = options.dimensions ?? 0;

  const request = async (
    texts: string[],
    signal?: AbortSignal,
    usage?: EmbeddingUsage,
  ): Promise<Float32Array[]> => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    const payload: Record<string, unknown> = {
      model: options.model,
      input: texts,
      encoding_format: "float",
    };
    if (options.dimensions) payload.dimensions = options.dimensions;
    let response;
    try {
      response = await options.fetcher.fetch(endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify(payload),
        signal,
        timeoutMs: options.timeoutMs,
        maxBytes: MAX_RESPONSE_BYTES,
        robots: false,
      });
    } catch (error) {
      throw requestFailure(error, where);
    }
    if (response.status < 200 || response.status > 299) {
      throw statusError(response.status, where, response.headers);
    }
    const body = response.text();
    const raw = parseResponse(body, texts.length, where);
    const length = raw[0].length;
    if (dimensions && length !== dimensions) {
      throw new GleanerError(
        "provider_unavailable",
        `embeddings: ${where} returned ${length}-d vectors, expected ${dimensions}`,
      );
    }
    dimensions = length;
    const tokens = usage ? promptTokens(body) : undefined;
    if (usage && tokens !== undefined) usage.inputTokens = (usage.inputTokens ?? 0) + tokens;
    return raw.map((v) => toUnitVector(v));
  };

  const embed = async (
    texts: string[],
    prefix: string,
    signal?: AbortSignal,
    usage?: EmbeddingUsage,
  ): Promise<Float32Array[]> => {
    const out: Float32Array[] = new Array(texts.length);
    const todo: number[] = [];
    texts.forEach((text, i) => {
      if (typeof text !== "string" || text.trim() === "") out[i] = new Float32Array(dimensions);
      else todo.push(i);
    });
    for (let start = 0; start < todo.length; start += batchSize) {
      const indices = todo.slice(start, start + batchSize);
      const batch = indices.map((i) => prefix + texts[i].slice(0, maxChars));
      const vectors = await queue.run(() => request(batch, signal, usage), signal);
      indices.forEach((i, k) => (out[i] = vectors[k]));
    }
    // Zero vectors made before the first response learnt the length.
    for (let i = 0; i < out.length; i++) {
      if (out[i].length !== dimensions && out[i].every((x) => x === 0)) {
        out[i] = new Float32Array(dimensions);
      }
    }
    return out;
  };

  return {
    id,
    get dimensions() {
      return dimensions;
    },
    embedQueries: (texts, signal, usage) => embed(texts, options.queryPrefix ?? "", signal, usage),
    embedDocuments: (texts, signal, usage) =>
      embed(texts, options.documentPrefix ?? "", signal, usage),
    close() {
      queue.clear(new GleanerError("provider_unavailable", `embeddings ${where}: closed`));
      return Promise.resolve();
    },
  };
}
