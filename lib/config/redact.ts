/**
 * URLs made safe to show. Two honest jobs, two functions:
 * {@link maskUrl} keeps a configured value recognisable while hiding its
 * credentials and query values (`gleaner config`, `/config`);
 * {@link safeEndpoint} reduces a URL to origin and path for an error
 * message or a log line (credentials, query and fragment never appear).
 *
 * @module
 */
import type { Config } from "./schema.ts";

/**
 * A URL safe to print: user and password replaced by `[redacted]`, and every
 * query-string value too (tokens often travel as `?key=…`). Strings that are
 * not URLs with a scheme come back unchanged.
 *
 * @example
 * ```ts
 * import { maskUrl } from "./redact.ts";
 * console.assert(
 *   maskUrl("https://user:pw@searx.example/search?key=abc") ===
 *     "https://[redacted]@searx.example/search?key=[redacted]",
 * );
 * console.assert(maskUrl("us-en") === "us-en");
 * ```
 */
export function maskUrl(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  const credentials = url.username !== "" || url.password !== "";
  const query = url.search !== "";
  if (!credentials && !query) return value;
  let out = value;
  if (credentials) {
    const at = out.indexOf("@", out.indexOf("//") + 2);
    out = `${out.slice(0, out.indexOf("//") + 2)}[redacted]${out.slice(at)}`;
  }
  if (query) {
    const start = out.indexOf("?");
    const hash = out.indexOf("#", start);
    const end = hash === -1 ? out.length : hash;
    const masked = out.slice(start + 1, end).split("&").map((pair) => {
      const eq = pair.indexOf("=");
      return eq === -1 ? pair : `${pair.slice(0, eq)}=[redacted]`;
    }).join("&");
    out = `${out.slice(0, start + 1)}${masked}${out.slice(end)}`;
  }
  return out;
}

/**
 * A URL as it may appear in messages and logs: origin and path only, so
 * credentials, query strings and fragments are never shown; an unparsable
 * URL is `(invalid URL)`.
 *
 * @example
 * ```ts
 * import { safeEndpoint } from "./redact.ts";
 * console.assert(safeEndpoint("https://u:p@searx.example/search?x=1") === "https://searx.example/search");
 * console.assert(safeEndpoint("not a url") === "(invalid URL)");
 * ```
 */
export function safeEndpoint(url: string | URL): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}

/** The names of every setting that holds a secret (`section.key`). */
export const SECRET_KEYS: ReadonlySet<string> = new Set([
  "server.api_key",
  "search.brave_api_key",
  "search.exa_api_key",
  "search.tavily_api_key",
  "search.jina_api_key",
  "search.keenable_api_key",
  "search.parallel_api_key",
  "search.gemini_api_key",
  "search.tinyfish_api_key",
  "search.querit_api_key",
  "search.seltz_api_key",
  "search.rerank_api_key",
  "read.github_token",
  "read.hister_token",
  "read.firecrawl_api_key",
  "read.crawl4ai_token",
  "embed.api_key",
  "llm.api_key",
  "store.cache_url",
  "memory.hosted_proxy_token",
  "memory.hosted_hmac_secret",
  "memory.hosted_admin_key",
  "memory.postgres_url",
  "events.nats_password",
  "events.nats_token",
]);

/**
 * A copy of the configuration safe to print: every secret replaced by
 * `"[redacted]"` (the {@link SECRET_KEYS} and each `search.providers.<name>.api_key`), and
 * credentials in URLs masked.
 *
 * @example
 * ```ts
 * import { parseConfig } from "./parse.ts";
 * import { redactConfig } from "./redact.ts";
 * const shown = redactConfig(parseConfig({ server: { api_key: "s3cret" } }));
 * console.assert(shown.server.api_key === "[redacted]");
 * ```
 */
export function redactConfig(config: Config): Config {
  const copy = structuredClone(config) as unknown as Record<string, Record<string, unknown>>;
  for (const path of SECRET_KEYS) {
    const [section, key] = path.split(".");
    if (copy[section]?.[key] !== undefined) copy[section][key] = "[redacted]";
  }
  const providers = (copy.search?.providers ?? {}) as Record<string, Record<string, unknown>>;
  for (const settings of Object.values(providers)) {
    if (settings.api_key !== undefined) settings.api_key = "[redacted]";
  }
  return maskUrls(copy) as unknown as Config;
}

/** Every string that is a URL, anywhere in `value`, passed through {@link maskUrl}. */
function maskUrls(value: unknown): unknown {
  if (typeof value === "string") return maskUrl(value);
  if (Array.isArray(value)) return value.map(maskUrls);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskUrls(v)]));
  }
  return value;
}
