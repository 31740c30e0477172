/**
 * Shared plumbing of provider modules: their settings and small normalizers
 * (the JSON call itself is `../../net/json_call.ts`).
 *
 * @module
 */
import { GleanerError } from "../../errors.ts";
import { isRecord, str } from "../../net/json_call.ts";
import { cleanText } from "../upstream.ts";
import type { ProviderSlice } from "./types.ts";

/** Settings of one provider, defaults filled in. */
export interface ResolvedProviderSettings {
  /** `search.providers.<name>.enabled`, when set. */
  enabled?: boolean;
  /** Base URL without a trailing slash. */
  baseUrl: string;
  /** Timeout of one call (ms). */
  timeoutMs: number;
  /** Most results asked in one call. */
  maxResults: number;
  /** Calls per second, when limited. */
  requestsPerSecond?: number;
}

/**
 * The settings of `name`, with the provider's defaults. The timeout is
 * `search.providers.<name>.timeout_ms`, else the longer of the call's
 * documented default (`defaults.timeoutMs`: Jina's reader, TinyFish's fetch)
 * and `search.timeout_ms`.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { providerSettings } from "./http.ts";
 * const config = parseConfig({ search: { providers: { exa: { base_url: "http://127.0.0.1:9/" } } } });
 * const settings = providerSettings(config, "exa", { baseUrl: "https://api.exa.ai", maxResults: 25 });
 * console.assert(settings.baseUrl === "http://127.0.0.1:9" && settings.maxResults === 25);
 * ```
 */
export function providerSettings(
  config: ProviderSlice,
  name: string,
  defaults: {
    baseUrl: string;
    maxResults: number;
    requestsPerSecond?: number;
    /** The call's own documented default timeout (ms), when longer than `search.timeout_ms`. */
    timeoutMs?: number;
  },
): ResolvedProviderSettings {
  const own = config.search.providers[name] ?? {};
  return {
    enabled: own.enabled,
    baseUrl: (own.base_url ?? defaults.baseUrl).replace(/\/+$/, ""),
    timeoutMs: own.timeout_ms ?? Math.max(defaults.timeoutMs ?? 0, config.search.timeout_ms),
    maxResults: own.max_results ?? defaults.maxResults,
    requestsPerSecond: own.requests_per_second ?? defaults.requestsPerSecond,
  };
}

/** Plain text from an engine snippet that may hold tags and entities (`<strong>`, `&amp;`). */
export function plainText(value: unknown): string {
  return cleanText(
    str(value)
      .replace(/<[^>]{0,200}>/g, "")
      .replace(
        /&(amp|lt|gt|quot|#39|#x27|nbsp);/g,
        (_, e: string) =>
          ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'", nbsp: " " })[e] ?? "",
      ),
  );
}

/** True for an absolute http(s) URL. */
export function isWebUrl(value: unknown): value is string {
  return typeof value === "string" && /^https?:\/\//i.test(value.trim());
}

/** Largest serialized size of `provider_data` (characters). */
const PROVIDER_DATA_MAX_CHARS = 2_000;

/**
 * A bounded copy of provider-specific fields: `undefined`/`null` dropped,
 * strings cut to 300 characters, arrays to 10 entries, and fields dropped
 * from the end until the JSON fits {@link PROVIDER_DATA_MAX_CHARS}.
 *
 * @example
 * ```ts
 * import { boundedData } from "./http.ts";
 * const data = boundedData({ score: 0.9, text: "x".repeat(5000), none: null });
 * console.assert(data?.score === 0.9 && String(data?.text).length <= 301 && !("none" in data!));
 * ```
 */
export function boundedData(fields: Record<string, unknown>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    const bounded = boundValue(value, 0);
    if (bounded !== undefined) out[key] = bounded;
  }
  const keys = Object.keys(out);
  while (keys.length > 0 && JSON.stringify(out).length > PROVIDER_DATA_MAX_CHARS) {
    delete out[keys.pop()!];
  }
  return keys.length > 0 ? out : undefined;
}

function boundValue(value: unknown, depth: number): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value.length > 300 ? `${value.slice(0, 300)}…` : value;
  if (typeof value === "number" || typeof value === "boolean") return value;
  if (depth >= 2) return undefined;
  if (Array.isArray(value)) {
    return value.slice(0, 10).map((v) => boundValue(v, depth + 1)).filter((v) => v !== undefined);
  }
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value).slice(0, 20)) {
      const bounded = boundValue(v, depth + 1);
      if (bounded !== undefined) out[k] = bounded;
    }
    return out;
  }
  return undefined;
}

/** A provider's documented query limits. */
export interface QueryLimits {
  /** Provider name (for messages). */
  provider: string;
  /** Most characters. */
  maxChars: number;
  /** Most words (whitespace-separated), when limited. */
  maxWords?: number;
  /** A suffix to keep whole (the router's `site:` hint), when the query ends with it. */
  keep?: string;
}

/** What {@link fitQuery} returns. */
export interface FittedQuery {
  /** The query as it may be sent. */
  query: string;
  /** What was changed, for the answer's `notices`; undefined when nothing was. */
  notice?: string;
}

/**
 * Fits a query into a provider's documented limits before it is sent: a
 * query within them is returned as it is; a longer one is cut at a word
 * boundary (whitespace collapsed, the `keep` suffix kept whole) and the
 * notice says so. When no whole word fits (one word longer than the limit,
 * or a `site:` hint that fills it), it fails instead.
 *
 * @throws {GleanerError} `invalid_arguments` (field `query`) naming the
 * provider and its limit.
 *
 * @example
 * ```ts
 * import { fitQuery } from "./http.ts";
 * const fitted = fitQuery("a ".repeat(60).trim(), { provider: "brave", maxChars: 400, maxWords: 50 });
 * console.assert(fitted.query.split(" ").length === 50 && fitted.notice !== undefined);
 * console.assert(fitQuery("short", { provider: "brave", maxChars: 400 }).notice === undefined);
 * ```
 */
export function fitQuery(query: string, limits: QueryLimits): FittedQuery {
  const words = (text: string) => text.split(/\s+/).filter(Boolean);
  const within = (text: string) =>
    text.length <= limits.maxChars &&
    (limits.maxWords === undefined || words(text).length <= limits.maxWords);
  if (within(query)) return { query };
  const keep = limits.keep && query.endsWith(limits.keep) ? limits.keep : "";
  const head = words(keep ? query.slice(0, -keep.length) : query);
  const tail = words(keep);
  const room = limits.maxChars - (keep ? keep.length + 1 : 0);
  const wordRoom = limits.maxWords === undefined ? Infinity : limits.maxWords - tail.length;
  const out: string[] = [];
  let length = -1;
  for (const word of head) {
    if (out.length >= wordRoom || length + 1 + word.length > room) break;
    out.push(word);
    length += 1 + word.length;
  }
  const limit = `${limits.maxChars} characters${
    limits.maxWords === undefined ? "" : ` and ${limits.maxWords} words`
  }`;
  if (out.length === 0) {
    throw new GleanerError(
      "invalid_arguments",
      `query: ${limits.provider} accepts at most ${limit}, and not even the first word of the query fits`,
      { details: { field: "query", provider: limits.provider, limit } },
    );
  }
  const fitted = [...out, ...tail].join(" ");
  return {
    query: fitted,
    notice:
      `${limits.provider}: the query was cut to its first ${out.length} of ${head.length} words (${fitted.length} characters) to fit ${limits.provider}'s limit of ${limit}`,
  };
}
