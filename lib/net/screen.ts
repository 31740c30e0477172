/**
 * URL screening: a URL parsed, normalised and passed through the network
 * policy before it is handed to an outside service ({@link screenUrl}).
 *
 * @module
 */
import type { NetworkSection } from "../config/sections.ts";
import { GleanerError } from "../errors.ts";
import { assertUrlAllowed } from "./address.ts";

/**
 * A URL as a provider may receive it: parsed and normalised by the WHATWG
 * URL parser (dot segments resolved, so `https://x.example/../../admin` is
 * `https://x.example/admin`; numeric hosts in dotted form), the fragment
 * dropped, and passed through the same network policy as Gleaner's own
 * reader and guarded fetch (`assertUrlAllowed`: http(s) only, no
 * credentials, allowed ports, no private, loopback, link-local or local
 * hosts unless the configuration allows them).
 *
 * @throws {GleanerError} `blocked_url` when the policy refuses it,
 * `invalid_arguments` (field `urls`) when it is not an absolute URL.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { screenUrl } from "./screen.ts";
 * const policy = parseConfig({}).network;
 * console.assert(screenUrl("https://x.example/a/../../admin#top", policy) === "https://x.example/admin");
 * try { screenUrl("http://169.254.169.254/latest/meta-data/", policy); } catch (e) {
 *   console.assert((e as { code: string }).code === "blocked_url");
 * }
 * ```
 */
export function screenUrl(raw: string, policy: NetworkSection): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GleanerError(
      "invalid_arguments",
      `urls: not a valid absolute URL: ${String(raw).slice(0, 200)}`,
      { details: { field: "urls" } },
    );
  }
  assertUrlAllowed(url, policy);
  url.hash = "";
  return url.href;
}
