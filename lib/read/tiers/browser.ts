/**
 * The browser tier of the cascade: headless Chromium for pages that need
 * JavaScript, with the same address checks and robots.txt as plain HTTP.
 *
 * @module
 */
import type { RobotsChecker } from "../../net/robots.ts";
import type { Env } from "../../config/env.ts";
import type {
  BrowserSettings,
  BrowserTier as BrowserEngine,
  BrowserTierStats,
} from "../browser/browser.ts";
import { pageFromHtml } from "./http.ts";
import { assertPageStatus } from "../status.ts";
import type { Tier } from "../types.ts";
import { defineTier } from "./define.ts";

/** A browser {@link Tier} plus a way to close the browser it owns. */
export interface ClosableTier extends Tier {
  /** Closes the browser, if it was started. */
  close(): Promise<void>;
  /** The browser's counters, or `undefined` before the first browser read. */
  stats(): BrowserTierStats | undefined;
}

/**
 * Creates the browser tier; Chromium starts on first use. The engine is built
 * with the settings given here ({@link BrowserSettings}, by the composition
 * root); each read extracts under the tier's declared slice.
 *
 * @example
 * ```ts ignore
 * import { createBrowserReadTier } from "./browser.ts";
 * const tier = createBrowserReadTier(config, { robots: fetcher.robots });
 * const page = await tier.read(new URL("https://example.com/app"), { url: "https://example.com/app", render: "always" }, context);
 * await tier.close();
 * ```
 */
export function createBrowserReadTier(
  config: BrowserSettings,
  deps: { robots?: RobotsChecker; engine?: BrowserEngine; env?: Env } = {},
): ClosableTier {
  let engine = deps.engine;
  // One engine however many reads start before it is loaded: each would launch its own
  // Chromium otherwise, past read.browser_pages, and only the last would be closed.
  let loading: Promise<BrowserEngine> | undefined;
  const load = () =>
    loading ??= import("../browser/browser.ts").then((m) => {
      engine ??= m.createBrowserTier(config, { env: deps.env });
      return engine;
    });
  const tier = defineTier({
    name: "browser",
    // The public web, rendered the same for everyone.
    scope: "shared",
    settings: { read: ["max_html_chars", "max_links"] },
    renders: true,
    canHandle: (url) => url.protocol === "http:" || url.protocol === "https:",
    async read(url, request, context) {
      if (config.network.respect_robots) await deps.robots?.assertAllowed(url.href, request.signal);
      // Loaded on first use: puppeteer costs every process ~70 ms at start-up otherwise.
      const browser = engine ?? await load();
      // The whole rendered page comes back and extraction keeps the target element, as
      // in the HTTP tier: the page's title and metadata stay, and both tiers agree.
      const result = await browser.read(url.href, {
        waitForSelector: request.waitForSelector,
        signal: request.signal,
        call: request.call,
      });
      assertPageStatus(result.status, url.href);
      return await pageFromHtml(result.html, request.url, result.url, "browser", {
        extract: context.extract,
        config: context.config,
        signal: request.signal,
        targetSelector: request.targetSelector,
      });
    },
  });
  return Object.assign(tier, {
    async close() {
      // An engine still loading is closed too (its reads then fail).
      await (engine ?? await loading?.catch(() => undefined))?.close();
    },
    stats: () => engine?.stats(),
  });
}
