/**
 * What a tier's failure means for the cascade: whether it is evidence about
 * that tier on that origin (so domain memory may count it), and which of
 * several failures best explains why a page could not be read.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { ErrorCode, GleanerError } from "../errors.ts";
import type { ReadConfig, TierName } from "./types.ts";

/**
 * Failures that say something about a tier on an origin, and so are counted
 * by domain memory:
 *
 * - `timeout`: the tier did not get an answer in time (not a caller abort:
 *   the cascade never records those);
 * - `provider_unavailable`: 5xx answers, refused or reset connections, TLS
 *   failures, Chromium unable to load the page;
 * - `unauthorized` (401/403) and `rate_limited` (429): the origin refuses
 *   this tier (bot walls usually refuse the plain HTTP client, not a browser).
 *
 * Not counted, because they are about the URL, the caller or our policy, not
 * the tier: `blocked_url`, `robots_disallowed`, `invalid_arguments` (policy
 * refusals made before any connection), `not_found` (a 404/410 is a correct
 * answer), `too_large` and `unsupported_content` (the resource's size or
 * type: the tier worked), `insufficient_balance` and `internal` (our side).
 * A thin HTTP page is counted separately by the cascade (reason `thin`).
 */
const EVIDENCE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "timeout",
  "provider_unavailable",
  "unauthorized",
  "rate_limited",
]);

/**
 * True when a failure counts against the tier in domain memory: its code is
 * one of {@link EVIDENCE_CODES}, and it is not about this machine's setup (a
 * failure naming one of our settings or permissions in `details.field` /
 * `details.flag`, such as Chromium missing at `read.chrome_path`, says
 * nothing about the origin, and must not outlive the operator's fix).
 *
 * @example
 * ```ts
 * import { GleanerError } from "../errors.ts";
 * import { countsAgainstTier } from "./outcomes.ts";
 * console.assert(countsAgainstTier(new GleanerError("timeout", "x timed out")));
 * console.assert(!countsAgainstTier(new GleanerError("blocked_url", "port 1 is not allowed")));
 * console.assert(!countsAgainstTier(new GleanerError("not_found", "x answered 404")));
 * console.assert(!countsAgainstTier(
 *   new GleanerError("provider_unavailable", "no Chromium found", { details: { field: "read.chrome_path" } }),
 * ));
 * ```
 */
export function countsAgainstTier(error: GleanerError): boolean {
  if (!EVIDENCE_CODES.has(error.code)) return false;
  const details = error.details ?? {};
  return details.field === undefined && details.flag === undefined;
}

/**
 * Most specific first: a policy refusal explains everything, then what the
 * origin itself answered (statuses), then how it failed (timeout, outage),
 * then the vaguest.
 */
const SPECIFICITY: readonly ErrorCode[] = [
  "blocked_url",
  "robots_disallowed",
  "invalid_arguments",
  "too_large",
  "not_found",
  "selector_not_found",
  "unauthorized",
  "rate_limited",
  "insufficient_balance",
  "timeout",
  "provider_unavailable",
  "unsupported_content",
  "internal",
];

/** One tier's failure as the cascade met it. */
export interface TierFailure {
  /** The tier that failed. */
  tier: TierName;
  /** Why. */
  error: GleanerError;
  /**
   * True when the tier reads a copy kept elsewhere (`Tier.readsCopy` in `types.ts`): its failure
   * explains less than the origin's own.
   */
  copy?: boolean;
}

/**
 * The failure that best explains why no tier produced a page: the origin's
 * own tiers before the copies kept elsewhere (an archive's miss must not hide
 * the site's 503), then by {@link SPECIFICITY}, the earliest on a tie.
 *
 * @example
 * ```ts
 * import { GleanerError } from "../errors.ts";
 * import { mostSpecificFailure } from "./outcomes.ts";
 * const best = mostSpecificFailure([
 *   { tier: "http", error: new GleanerError("not_found", "x answered 404") },
 *   { tier: "browser", error: new GleanerError("timeout", "x timed out") },
 * ]);
 * console.assert(best?.code === "not_found");
 * const own = mostSpecificFailure([
 *   { tier: "wayback", error: new GleanerError("not_found", "no snapshot"), copy: true },
 *   { tier: "http", error: new GleanerError("provider_unavailable", "x answered 503") },
 * ]);
 * console.assert(own?.code === "provider_unavailable");
 * ```
 */
export function mostSpecificFailure(failures: readonly TierFailure[]): GleanerError | undefined {
  let best: TierFailure | undefined;
  const score = (f: TierFailure) => {
    const rank = SPECIFICITY.indexOf(f.error.code);
    return (f.copy ? 100 : 0) + (rank < 0 ? SPECIFICITY.length : rank);
  };
  for (const failure of failures) {
    if (!best || score(failure) < score(best)) best = failure;
  }
  return best?.error;
}

/**
 * The fingerprint of the settings that decide how tiers fare on a site
 * (network policy and limits, user agent, render mode, Chromium, GitHub,
 * YouTube, Reddit and Hister access, the Firecrawl and Crawl4AI endpoints when set), stored with domain memory's verdicts so a verdict reached under
 * other settings is not applied: an operator's change takes effect at once.
 * Secrets only count by presence; the value is a 16-hex-digit SHA-256 prefix.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { memoryPolicy } from "./outcomes.ts";
 * const a = memoryPolicy(parseConfig({}));
 * console.assert(a === memoryPolicy(parseConfig({ read: { concurrency: 9 } })));
 * console.assert(a !== memoryPolicy(parseConfig({ network: { user_agent: "other" } })));
 * ```
 */
export function memoryPolicy(config: ReadConfig): string {
  const n = config.network;
  const r = config.read;
  const settings = [
    n.allow_private,
    n.allowed_ports,
    n.connect_timeout_ms,
    n.timeout_ms,
    n.max_bytes,
    n.max_decompressed_bytes,
    n.max_redirects,
    n.user_agent,
    n.respect_robots,
    r.render,
    r.chrome_path ?? null,
    r.browser_cdp_url ?? null,
    r.browser_timeout_ms,
    r.github_token !== undefined,
    r.github_api_url,
    r.github_raw_url,
    r.youtube_url,
    r.reddit_url,
    r.hister_url ?? null,
    r.hister_token !== undefined,
  ];
  // The service tiers count only when set, so other settings keep their fingerprint.
  if (r.firecrawl_url) {
    settings.push(`firecrawl:${r.firecrawl_url}`, r.firecrawl_api_key !== undefined);
  }
  if (r.crawl4ai_url) settings.push(`crawl4ai:${r.crawl4ai_url}`, r.crawl4ai_token !== undefined);
  return createHash("sha256").update(JSON.stringify(settings)).digest("hex").slice(0, 16);
}
