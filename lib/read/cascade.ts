/**
 * The reading cascade: each tier in order, skipped when it does not apply,
 * put off while domain memory has it on probation for the origin; the
 * rendering tiers (the browser) step in when the HTTP result is thin; the
 * fallback tiers (Wayback) stand in for some failures; every read says which
 * tier produced it, and a failed read says the most specific reason met.
 * Each tier declares when it runs and what its failure explains (`renders`,
 * `renderAfter`, `fallbackFor`, `readsCopy` in `types.ts`): the cascade never
 * looks at a tier's name to decide.
 *
 * Permissions: net access (through the guarded fetch); those of the browser tier
 * (`browser/launch.ts`) when a page is rendered.
 *
 * @module
 */
import { GleanerError, toGleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import type { Fetcher } from "../net/types.ts";
import { assertUrlAllowed } from "../net/address.ts";
import type { Cache, DomainStats } from "../store/mod.ts";
import type { Events } from "../telemetry/events.ts";
import { createOutageGate } from "../store/outage.ts";
import {
  countsAgainstTier,
  memoryPolicy,
  mostSpecificFailure,
  type TierFailure,
} from "./outcomes.ts";
import { createPageCache } from "./page_cache.ts";
import {
  CAPABILITY_SAMPLE_PAGES,
  type CapabilityFacts,
  type DomainCapabilities,
} from "../store/capabilities.ts";
import type { Page, ReadConfig, ReadContext, ReadRequest, Tier, TierName } from "./types.ts";
import { safeEndpoint } from "../config/redact.ts";

const log = getGleanerLogger("read");

/** Failures no other tier may work around (policy, not luck). */
const FINAL_CODES = new Set(["blocked_url", "robots_disallowed", "invalid_arguments", "too_large"]);

/** A `%` that does not start a two-hex-digit escape. */
const PERCENT_MALFORMED = /%(?![0-9a-fA-F]{2})/;

/** What the cascade is built from. */
export interface ReaderDeps {
  /** Configuration. */
  config: ReadConfig;
  /** Guarded fetcher. */
  fetcher: Fetcher;
  /** Tiers after the cache, in order. */
  tiers: Tier[];
  /** Page cache (namespace `pages`). */
  cache?: Cache;
  /** Per-origin tier memory. */
  domains?: DomainStats;
  /** Extracts HTML pages off the main thread (the tiers' {@link ReadContext.extract}). */
  extract?: ReadContext["extract"];
  /** Decodes and extracts fetched HTML bodies off the main thread ({@link ReadContext.extractBody}). */
  extractBody?: ReadContext["extractBody"];
  /** Forced tier decisions per URL (operator rules): true = force on, false = force off. */
  tierRule?: (url: URL, tier: TierName) => boolean | undefined;
  /** Receives a `tier_skip` event for each tier put off or turned off for a URL. */
  events?: Events;
}

/** Reads pages through the cascade. */
export interface Reader {
  /** Reads one URL; throws `GleanerError` with a stable code when no tier can. */
  read(request: ReadRequest): Promise<Page>;
}

/**
 * Parses a URL a caller gave, or fails with `invalid_arguments`: it must be
 * absolute, `http:` or `https:` (other schemes are named in the message),
 * have a host, and use well-formed percent-escapes (`%` then two hex digits).
 *
 * @example
 * ```ts
 * import { parsePageUrl } from "./cascade.ts";
 * console.assert(parsePageUrl("https://example.com/a#b").href === "https://example.com/a");
 * try { parsePageUrl("ftp://example.com/f"); } catch (e) { console.assert((e as { code: string }).code === "invalid_arguments"); }
 * ```
 */
export function parsePageUrl(raw: string): URL {
  const shown = String(raw).slice(0, 200);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GleanerError("invalid_arguments", `url: not a valid absolute URL: ${shown}`, {
      details: { field: "url" },
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new GleanerError(
      "invalid_arguments",
      `url: the ${url.protocol.slice(0, 40)} scheme is not supported (only http and https): ${
        url.protocol === "data:" || url.protocol === "javascript:" ? url.protocol : shown
      }`,
      { details: { field: "url", scheme: url.protocol.slice(0, -1).slice(0, 40) } },
    );
  }
  if (!url.hostname) {
    throw new GleanerError("invalid_arguments", `url: no host in ${shown}`, {
      details: { field: "url" },
    });
  }
  if (PERCENT_MALFORMED.test(url.pathname) || PERCENT_MALFORMED.test(url.search)) {
    throw new GleanerError(
      "invalid_arguments",
      `url: malformed percent-encoding (a % not followed by two hex digits): ${shown}`,
      { details: { field: "url" } },
    );
  }
  url.hash = "";
  return url;
}

/** What domain memory knows of an origin when a read starts. */
interface Recalled {
  /** The tiers put off there, with why: `probation` or `success_rate`. */
  skipped: Map<string, string>;
  /**
   * False when the read forces the browser (`render: "always"`, a selector to wait for): what
   * produces its page then says nothing about the origin's preferred strategy.
   */
  learnsStrategy?: boolean;
  /** Its capabilities, when any is known. */
  capabilities?: DomainCapabilities;
}

/**
 * Domain memory as the cascade uses it: `record` books how a tier did on an origin,
 * `recall` says what is known of it when a read starts (the tiers it puts off, its
 * capabilities), `learn` books what a tier's outcome showed of its capabilities.
 * Without `domains` they do nothing.
 */
function domainMemory(domains: DomainStats | undefined, config: ReadConfig): {
  record(origin: string, tier: TierName, ok: boolean, reason?: string): Promise<void>;
  recall(origin: string): Promise<Recalled>;
  learn(origin: string, tier: Tier, outcome: Page | undefined, known: Recalled): Promise<void>;
} {
  // Verdicts reached under other settings are not applied (see memoryPolicy).
  const scope = { policy: memoryPolicy(config) };
  // Domain memory is optional: an outage pauses it instead of slowing every read.
  const memory = createOutageGate();
  const memoryFailed = (error: unknown) => {
    if (memory.failed()) {
      log.warn("domain memory unavailable, reading without it: {error}", { error });
    }
  };

  async function record(origin: string, tier: TierName, ok: boolean, reason?: string) {
    if (!domains || !memory.open()) return;
    try {
      await domains.record(origin, tier, ok, reason, scope);
    } catch (error) {
      memoryFailed(error);
    }
  }

  /**
   * The tiers domain memory puts off on `origin`, with why: `probation` (failing now) or
   * `success_rate` (fewer than 30 % of at least 10 attempts in the window succeeded), and
   * the origin's capabilities.
   */
  async function recall(origin: string): Promise<Recalled> {
    if (!domains || !memory.open()) return { skipped: new Map() };
    try {
      const record = await domains.get(origin, scope);
      const skipped = new Map<string, string>();
      for (const [tier, state] of Object.entries(record?.tiers ?? {})) {
        if (state.skipped_until) skipped.set(tier, "probation");
        else if (state.low_success_rate) skipped.set(tier, "success_rate");
      }
      return { skipped, ...(record?.capabilities ? { capabilities: record.capabilities } : {}) };
    } catch (error) {
      memoryFailed(error);
      return { skipped: new Map() };
    }
  }

  /**
   * Books what a tier's outcome showed (`page`: the page it gave, thin or not; `undefined`: a
   * failure that counts against it): writes only what changed or is still sampled.
   */
  async function learn(origin: string, tier: Tier, page: Page | undefined, known: Recalled) {
    if (!domains || !memory.open() || tier.readsCopy) return;
    const facts = capabilityFacts(tier, page, known.capabilities, known.learnsStrategy ?? true);
    if (Object.keys(facts).length === 0) return;
    try {
      await domains.noteCapabilities(origin, facts);
    } catch (error) {
      memoryFailed(error);
    }
  }
  return { record, recall, learn };
}

/** What one outcome of `tier` on an origin tells domain memory that it does not know yet. */
function capabilityFacts(
  tier: Tier,
  page: Page | undefined,
  known: DomainCapabilities | undefined,
  learnsStrategy: boolean,
): CapabilityFacts {
  const facts: CapabilityFacts = {};
  // The cheap fetch of a page's metadata is the plain HTTP tier.
  const metadata = tier.name === "http" ? page?.signals?.head_metadata ?? false : undefined;
  if (metadata !== undefined && known?.metadata_fetch?.ok !== metadata) {
    facts.metadata_fetch = metadata;
  }
  if (!page) return facts;
  const signals = page.signals;
  if (signals && !page.thin && (known?.json_ld_article?.sampled ?? 0) < CAPABILITY_SAMPLE_PAGES) {
    facts.page = { json_ld_article: signals.json_ld_article, og_title: signals.og_title };
  }
  if (
    learnsStrategy && !page.thin && !tier.fallbackFor &&
    known?.preferred_strategy?.tier !== tier.name
  ) {
    facts.preferred_strategy = tier.name;
  }
  return facts;
}

/**
 * The tiers in the order a read tries them on an origin, and whether that order starts with
 * a rendering tier: the origin's preferred strategy (the tier that last produced a page
 * there) takes the place of the cheap fetch (the first tier declaring `renderAfter`, plain
 * HTTP) when it comes after it; the tiers chosen by URL or configured by the operator
 * (GitHub, YouTube, services, llms.txt…) keep their places, and copies are never preferred.
 */
function inPreferredOrder(
  tiers: readonly Tier[],
  known: Recalled,
): { order: readonly Tier[]; renders: boolean } {
  const preferred = known.capabilities?.preferred_strategy?.tier;
  const at = tiers.findIndex((t) => t.renderAfter !== undefined);
  const from = tiers.findIndex((t) => t.name === preferred && !t.fallbackFor && !t.readsCopy);
  if (at < 0 || from <= at) return { order: tiers, renders: false };
  const order = tiers.filter((_, i) => i !== from);
  order.splice(at, 0, tiers[from]);
  return { order, renders: tiers[from].renders === true };
}

/**
 * Creates a reader over the given tiers.
 *
 * Order of a read: the URL is checked (scheme, then the network policy in
 * force: a refused URL is never answered from the cache), the cache is
 * asked, then each applicable tier in order. Domain memory is a hint: tiers
 * on probation for the URL's origin, or with a low success rate there, are put off, and tried anyway when
 * every other tier failed or was put off too. Only outcomes that say
 * something about a tier on that origin are recorded (see `outcomes.ts`).
 * When no tier produced a page, the most specific failure met is thrown.
 *
 * @example
 * ```ts ignore
 * import { createReader } from "./cascade.ts";
 * const reader = createReader({ config, fetcher, tiers: [httpTier, browserTier] });
 * const page = await reader.read({ url: "https://example.com/" });
 * console.log(page.tier, page.title);
 * ```
 */
export function createReader(deps: ReaderDeps): Reader {
  const context: ReadContext = {
    config: deps.config,
    fetcher: deps.fetcher,
    ...(deps.extract ? { extract: deps.extract } : {}),
    ...(deps.extractBody ? { extractBody: deps.extractBody } : {}),
    ...(deps.domains ? { domains: deps.domains } : {}),
  };
  const pages = createPageCache(deps.cache, deps.config);
  const { record, recall, learn } = domainMemory(deps.domains, deps.config);

  return {
    async read(request) {
      const url = parsePageUrl(request.url);
      // The policy in force decides before the cache: a page cached under a
      // looser policy must not be served under a stricter one.
      assertUrlAllowed(url, deps.config.network);
      const render = await renderFor(request, deps.config);
      const effective: ReadRequest = { ...request, url: url.href, render };
      if (!request.noCache) {
        const cached = await pages.get(effective);
        if (cached) return { ...cached, url: request.url, tier: "cache" };
      }
      const origin = url.origin;
      const known = { ...await recall(origin), learnsStrategy: render !== "always" };
      const { skipped } = known;
      const { order, renders } = inPreferredOrder(deps.tiers, known);
      const failures: TierFailure[] = [];
      const deferred: Tier[] = [];
      let thinPage: Page | undefined;
      // In `auto` mode a rendering tier steps in only when a tier that declares `renderAfter`
      // was thin, failed with one of those codes, or was put off.
      let renderWanted = render === "always" || renders;

      const forcedFor = (tier: Tier) => deps.tierRule?.(url, tier.name);
      const noteSkip = skipNoter(deps.events, url.hostname);
      const applies = (tier: Tier): boolean => {
        if (tier.renders && (render === "never" || !renderWanted)) return false;
        const forced = forcedFor(tier);
        if (forced === false) noteSkip(tier, "tier_rule");
        if (forced !== undefined) return forced;
        return tier.canHandle(url, effective);
      };

      const attempt = async (tier: Tier): Promise<Page | undefined> => {
        if (request.signal?.aborted) {
          throw toGleanerError(request.signal.reason, `reading ${safeEndpoint(url)}`);
        }
        try {
          const page = await tier.read(url, effective, context);
          if (!page) return undefined;
          await learn(origin, tier, page, known);
          if (tier.renderAfter && render === "auto" && page.thin) {
            await record(origin, tier.name, false, "thin");
            thinPage = page;
            renderWanted = true;
            return undefined;
          }
          await record(origin, tier.name, true);
          return page;
        } catch (error) {
          const failure = toGleanerError(error, `reading ${url.href}`);
          // The caller gave up: nothing was learnt about the tier, and no other tier is wanted.
          if (request.signal?.aborted) throw failure;
          if (failure.code === "internal") {
            log.warn("{tier} failed on {url}: {error}", {
              tier: tier.name,
              url: safeEndpoint(url),
              error,
            });
          }
          if (countsAgainstTier(failure)) {
            await record(origin, tier.name, false, failure.code);
            await learn(origin, tier, undefined, known);
          }
          if (FINAL_CODES.has(failure.code)) throw failure;
          if (tier.renderAfter?.has(failure.code)) renderWanted = true;
          failures.push({
            tier: tier.name,
            error: failure,
            ...(tier.readsCopy ? { copy: true } : {}),
          });
          return undefined;
        }
      };

      const done = async (page: Page): Promise<Page> => {
        await pages.set(effective, page);
        return page;
      };

      for (const tier of order) {
        if (tier.fallbackFor || !applies(tier)) continue;
        if (forcedFor(tier) === undefined && skipped.has(tier.name)) {
          noteSkip(tier, skipped.get(tier.name)!);
          deferred.push(tier);
          if (tier.renderAfter) renderWanted = true;
          continue;
        }
        const page = await attempt(tier);
        if (page) return await done(page);
      }
      // Memory is a hint: what it put off is tried when nothing else produced a page.
      if (!thinPage && deferred.length > 0) {
        log.debug("{origin}: trying tiers on probation ({tiers})", {
          origin,
          tiers: deferred.map((t) => t.name).join(", "),
        });
        for (const tier of deferred) {
          if (!applies(tier)) continue;
          const page = await attempt(tier);
          if (page) return await done(page);
        }
      }
      // The browser could not do better: the thin page is still the best answer.
      if (thinPage) return thinPage;
      const cause = mostSpecificFailure(failures);
      if (cause) {
        for (const tier of deps.tiers) {
          if (!tier.fallbackFor?.has(cause.code) || !applies(tier)) continue;
          const page = await attempt(tier);
          if (page) return await done(page);
        }
      }
      throw noPage(failures, url, render);
    },
  };
}

/** A `tier_skip` event for each tier put off or turned off for one read (once per tier). */
function skipNoter(
  events: Events | undefined,
  host: string,
): (tier: Tier, reason: string) => void {
  const noted = new Set<string>();
  return (tier, reason) => {
    if (!events?.enabled || noted.has(tier.name)) return;
    noted.add(tier.name);
    events.tierSkip({ tier: tier.name, reason, host });
  };
}

/** Why no tier produced a page: the most specific failure met, else that none applied. */
function noPage(failures: readonly TierFailure[], url: URL, render: string): GleanerError {
  return mostSpecificFailure(failures) ??
    new GleanerError(
      "unsupported_content",
      `no reading tier applies to ${safeEndpoint(url)} (render ${render}, tier rules)`,
    );
}

/**
 * The render mode of a read after its selectors are checked: a
 * `waitForSelector` needs the browser, so it forces `always` and is refused
 * when the read (or `read.render`) says `never`.
 */
async function renderFor(
  request: ReadRequest,
  config: ReadConfig,
): Promise<"never" | "auto" | "always"> {
  const render = request.render ?? config.read.render;
  if (request.targetSelector === undefined && request.waitForSelector === undefined) return render;
  // Loaded with the first selector: the DOM library stays out of the start-up path.
  const { assertSelector } = await import("../extract/selector.ts");
  if (request.targetSelector !== undefined) {
    assertSelector("target_selector", request.targetSelector);
  }
  if (request.waitForSelector === undefined) return render;
  assertSelector("wait_for_selector", request.waitForSelector);
  if (render === "never") {
    throw new GleanerError(
      "invalid_arguments",
      `wait_for_selector needs the browser, but render is never${
        request.render === undefined ? " (read.render)" : ""
      }`,
      { details: { field: "wait_for_selector" } },
    );
  }
  return "always";
}
