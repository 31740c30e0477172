/**
 * URLs made safe to show (the configuration's secrets are `redact_config.ts`'s). Two honest
 * jobs, two functions:
 * {@link maskUrl} keeps a configured value recognisable while hiding its
 * credentials and query values (`gleaner config`, `/config`);
 * {@link safeEndpoint} reduces a URL to origin and path for an error
 * message or a log line (credentials, query and fragment never appear).
 *
 * @module
 */
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
