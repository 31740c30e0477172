/**
 * robots.txt per origin (RFC 9309) with `robots-parser`, fetched through the
 * guarded fetcher and kept in a bounded in-memory LRU.
 *
 * Policy:
 * - 2xx: the file's rules for the `Gleaner` token (else `*`), cached 24 h.
 * - 4xx (404, 401, 403, 410…): no rules, everything allowed (RFC 9309 §2.3.1.3), cached 24 h.
 * - 5xx, network failure, timeout of the robots fetch, blocked address: allowed
 *   and cached 10 minutes. RFC 9309 asks crawlers to assume "disallow all"
 *   on 5xx; Gleaner reads single pages on a user's request, not a crawl, so it
 *   treats an unreachable robots.txt as no rules. The page fetch that follows
 *   still goes through every other guard.
 * - One fetch per origin at a time, shared by concurrent callers, bounded by
 *   its own timeout; a caller whose signal aborts stops waiting (`timeout`)
 *   while the shared fetch finishes and fills the cache.
 *
 * @module
 */
import { LruCache } from "../cache/lru_cache.ts";
import { SingleFlight } from "../async/single_flight.ts";
import robotsParserModule from "robots-parser";
import type { Logger } from "@logtape/logtape";
import { GleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import type { RobotsState } from "./robots_state.ts";
import type { Fetcher } from "./types.ts";

/** The product token matched against `User-agent:` lines. */
const ROBOTS_TOKEN = "Gleaner";

/** How long a fetched robots.txt is trusted (24 h). */
const ROBOTS_TTL_MS = 24 * 60 * 60 * 1000;

/** How long an unreachable robots.txt (5xx, network error) counts as "allow all". */
const ROBOTS_FAILURE_TTL_MS = 10 * 60 * 1000;

/** Largest robots.txt read (RFC 9309 asks for at least 500 KiB). */
const ROBOTS_MAX_BYTES = 512 * 1024;

/** The part of robots-parser's `Robot` used here (its bundled typings do not type-check). */
interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
}

const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => Robot;

interface Entry {
  robot: Robot | null; // null = allow everything
  expires: number;
  state: RobotsState;
}

/** Options of {@link createRobotsChecker}. */
export interface RobotsCheckerOptions {
  /** Token matched against `User-agent:` lines; default `Gleaner`. */
  token?: string;
  /** Origins kept in memory (least recently used dropped first); default 1000. */
  maxOrigins?: number;
  /** Timeout of one robots.txt fetch (ms); default 10 s. */
  timeoutMs?: number;
  /** Clock, for tests of expiry. */
  now?: () => number;
  /** Logger; default `gleaner.net.robots`. */
  logger?: Logger;
}

/** Answers "may Gleaner fetch this URL?" from the origin's robots.txt. */
export interface RobotsChecker {
  /** True when robots.txt allows the URL for Gleaner. */
  isAllowed(url: string | URL, signal?: AbortSignal): Promise<boolean>;
  /** Throws `GleanerError` `robots_disallowed` when robots.txt disallows the URL. */
  assertAllowed(url: string | URL, signal?: AbortSignal): Promise<void>;
  /** `Crawl-delay` (seconds) for Gleaner on that origin, if robots.txt names one and it is cached. */
  crawlDelay(url: string | URL): number | undefined;
  /** What the origin's robots.txt said, while it is cached (`undefined` when not cached). */
  stateOf(origin: string): RobotsState | undefined;
  /** Forgets every cached robots.txt. */
  clear(): void;
  /**
   * Calls `listener` with what each robots.txt fetch found (the domain
   * memory keeps it for `domain_stats`); one listener, replaced by the next.
   */
  observe(listener: (origin: string, state: RobotsState) => void): void;
}

/** What a fetched robots.txt means for Gleaner. */
function stateOf(origin: string, robot: Robot, text: string, token: string): RobotsState {
  if (robot.isAllowed(`${origin}/`, token) === false) return "disallow_all";
  for (const match of text.matchAll(/^\s*disallow\s*:\s*(\/[^\s#]*)/gim)) {
    const path = match[1].replace(/[*$].*$/, "");
    if (robot.isAllowed(`${origin}${path}`, token) === false) return "partial";
  }
  return "allow_all";
}

function untilAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    return Promise.reject(new GleanerError("timeout", "robots.txt check was cancelled"));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new GleanerError("timeout", "robots.txt check was cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Creates a robots.txt checker that fetches through `fetcher` (with
 * `robots: false`, so no recursion).
 *
 * @example
 * ```ts ignore
 * import { createFetcher } from "./fetch.ts";
 * import { createRobotsChecker } from "./robots.ts";
 * import { parseConfig } from "@gleaner/gleaner";
 * const robots = createRobotsChecker(createFetcher(parseConfig({}).network));
 * await robots.assertAllowed("https://example.com/page");
 * ```
 */
export function createRobotsChecker(
  fetcher: Fetcher,
  options: RobotsCheckerOptions = {},
): RobotsChecker {
  const token = options.token ?? ROBOTS_TOKEN;
  const maxOrigins = options.maxOrigins ?? 1000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const now = options.now ?? Date.now;
  const logger = options.logger ?? getGleanerLogger("net", "robots");
  const cache = new LruCache<string, Entry>(maxOrigins);
  const inflight = new SingleFlight<string, Entry>();
  let listener: ((origin: string, state: RobotsState) => void) | undefined;
  const report = (origin: string, state: RobotsState) => {
    try {
      listener?.(origin, state);
    } catch (error) {
      logger.debug("robots.txt listener failed: {error}", { error });
    }
  };

  const remember = (origin: string, entry: Entry) => {
    cache.set(origin, entry);
    return entry;
  };

  const load = async (origin: string): Promise<Entry> => {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const res = await fetcher.fetch(robotsUrl, {
        robots: false,
        maxBytes: ROBOTS_MAX_BYTES,
        timeoutMs,
        headers: { accept: "text/plain,*/*;q=0.5" },
      });
      if (res.status >= 200 && res.status < 300) {
        const text = res.text();
        const robot = robotsParser(res.url, text);
        const state = stateOf(origin, robot, text, token);
        report(origin, state);
        return remember(origin, { robot, expires: now() + ROBOTS_TTL_MS, state });
      }
      if (res.status >= 400 && res.status < 500) {
        report(origin, "missing");
        return remember(origin, { robot: null, expires: now() + ROBOTS_TTL_MS, state: "missing" });
      }
      logger.info("robots.txt of {origin} answered {status}; allowing", {
        origin,
        status: res.status,
      });
    } catch (error) {
      logger.info("robots.txt of {origin} unreachable ({code}); allowing", {
        origin,
        code: error instanceof GleanerError ? error.code : "error",
      });
    }
    report(origin, "error");
    return remember(origin, {
      robot: null,
      expires: now() + ROBOTS_FAILURE_TTL_MS,
      state: "error",
    });
  };

  const entryFor = async (url: URL, signal?: AbortSignal): Promise<Entry> => {
    const origin = url.origin;
    const cached = cache.get(origin);
    if (cached && cached.expires > now()) return cached;
    return await untilAborted(inflight.run(origin, () => load(origin)), signal);
  };

  const isAllowed = async (input: string | URL, signal?: AbortSignal): Promise<boolean> => {
    const url = new URL(input);
    if (url.protocol !== "http:" && url.protocol !== "https:") return true;
    if (url.pathname === "/robots.txt") return true;
    const entry = await entryFor(url, signal);
    return entry.robot?.isAllowed(url.href, token) ?? true;
  };

  return {
    isAllowed,
    async assertAllowed(input, signal) {
      if (!(await isAllowed(input, signal))) {
        const url = new URL(input);
        throw new GleanerError(
          "robots_disallowed",
          `robots.txt of ${url.origin} disallows ${url.pathname}`,
          { details: { origin: url.origin, path: url.pathname } },
        );
      }
    },
    crawlDelay(input) {
      const url = new URL(input);
      return cache.get(url.origin)?.robot?.getCrawlDelay(token);
    },
    stateOf(origin) {
      const entry = cache.get(origin);
      return entry && entry.expires > now() ? entry.state : undefined;
    },
    clear() {
      cache.clear();
    },
    observe(next) {
      listener = next;
    },
  };
}
