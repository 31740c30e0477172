/**
 * The headless-browser tier: renders pages in Chromium (driven by
 * `puppeteer-core`) when plain HTTP returns a shell that needs JavaScript.
 *
 * One browser is launched lazily and shared; reads borrow pages from a
 * bounded pool (`read.browser_pages`; extra reads wait), each with its own
 * deadline (`read.browser_timeout_ms`). The pages are shared by call
 * (`pool.ts`, `../call.ts`): waiting calls take turns, and a call holding two
 * or more pages beyond a waiting call gives its newest back (that read starts
 * again on its next turn). All browser work of one call, waiting for pages
 * included, ends twice `read.browser_timeout_ms` after the call first got a
 * page; a read still waiting or rendering then fails alone with `timeout`,
 * its page closed and its slot given back. The browser closes itself after
 * `read.browser_idle_ms` without reads and starts again on the next one.
 *
 * Every request a page makes passes the same address checks as the guarded
 * fetch twice: when request interception pauses it (`guard.ts`), and
 * when Chromium connects, in the tier's egress proxy (`proxy.ts`),
 * which is a launched Chromium's only way out and checks the address the
 * connection really uses (no DNS-rebinding window). Images, fonts, media and
 * stylesheets are never fetched. The main navigation to a blocked URL fails
 * with `blocked_url`. Downloads are refused: a page writes no file anywhere
 * (`launch.ts`).
 *
 * With `read.browser_cdp_url` (an external browser) the proxy cannot be
 * imposed: only request interception guards that browser, so a rebinding
 * name, preconnects and workers' WebSockets are not covered. The tier logs a
 * warning once when it connects to one; prefer the launched browser when
 * pages are untrusted.
 *
 * @module
 */
import type { HTTPRequest, Page } from "puppeteer-core";
import type { NetworkSection, ReadSection } from "../../config/sections.ts";
import type { Env } from "../../config/env.ts";
import { GleanerError, toGleanerError } from "../../errors.ts";
import { getGleanerLogger } from "../../log.ts";
import { withDeadline } from "../../async/deadline.ts";
import { assertUrlAllowed } from "../../net/address.ts";
import type { Resolver } from "../../net/fetch.ts";
import {
  assertHostAllowed,
  createRequestGuard,
  type RequestFilter,
  type RequestGuard,
} from "./guard.ts";
import { type BlockList, loadBlockLists } from "./block_lists.ts";
import { type BrowserHandle, openBrowser } from "./launch.ts";
import type { EgressProxy, EgressProxyStats } from "./proxy.ts";
import { createSlotPool, type SlotLease, type SlotPool } from "./pool.ts";
import { BROWSER_CALL_FACTOR, ReadCall } from "../call.ts";

export type { RequestFilter } from "./guard.ts";

const log = getGleanerLogger("read", "browser");

/** How long closing a page may take before the read goes on without waiting for it (ms). */
const PAGE_CLOSE_MS = 5_000;

/** Resource types never fetched by the browser tier. */
const BLOCKED_RESOURCE_TYPES: readonly string[] = ["image", "font", "media", "stylesheet"];

/** Options of one browser read. */
export interface BrowserReadOptions {
  /** CSS selector to wait for (within the timeout) before the DOM is taken. */
  waitForSelector?: string;
  /** CSS selector of the one element whose `outerHTML` is returned instead of the page. */
  targetSelector?: string;
  /** Deadline of this read once it has a page (default `read.browser_timeout_ms`). */
  timeoutMs?: number;
  /** Cancels the read (also while it waits for a page). */
  signal?: AbortSignal;
  /**
   * The call this read is one of: its reads take one turn in the page pool, and all their
   * browser work (waiting for a page included) ends {@link BROWSER_CALL_FACTOR} times the
   * read's timeout after the call's first read got a page. Default: the read alone, its turn
   * shared with the other reads of the same `signal`.
   */
  call?: ReadCall;
}

/** What a browser read returns. Non-2xx statuses are returned, not thrown. */
export interface BrowserReadResult {
  /** The final URL after redirects (and client-side navigation). */
  url: string;
  /** The rendered DOM serialised (`page.content()`), or the target element's `outerHTML`. */
  html: string;
  /** HTTP status of the main document (0 when the browser reported none). */
  status: number;
  /** The document title after scripts ran. */
  title: string;
}

/** Counters describing the browser tier right now. */
export interface BrowserTierStats {
  /** True while a browser is running (or connected). */
  running: boolean;
  /** Process id of the launched browser (absent for an external endpoint). */
  pid?: number;
  /** Port (on 127.0.0.1) of the egress proxy of a launched browser. */
  proxyPort?: number;
  /** Counters of that egress proxy. */
  proxy?: EgressProxyStats;
  /** Pages in use. */
  busy: number;
  /** Pages kept open for reuse. */
  idle: number;
  /** Reads waiting for a page. */
  waiting: number;
  /** Callers (calls) holding or waiting for a page. */
  callers: number;
  /** Pages taken back from a caller so that a waiting one got its share, since the browser started. */
  revoked: number;
}

/** The browser tier; see {@link createBrowserTier}. */
export interface BrowserTier {
  /**
   * Renders one URL and returns its DOM. Throws `GleanerError`:
   * `blocked_url` (address policy), `not_found` (the host name could not be resolved),
   * `selector_not_found` (`targetSelector` missing, `waitForSelector` never shown before
   * the deadline), `timeout`, `too_large`, `invalid_arguments`
   * (bad URL or selector), `provider_unavailable` (no Chromium, no
   * `--allow-run`, network failure).
   */
  read(url: string, options?: BrowserReadOptions): Promise<BrowserReadResult>;
  /** Closes the browser (or disconnects), removes its profile and clears timers. Reads fail afterwards. */
  close(): Promise<void>;
  /** Current counters (for health checks and benchmarks). */
  stats(): BrowserTierStats;
}

/**
 * The settings the browser engine reads: its own `read.browser_*` settings,
 * the operator's block lists, where Chromium is (or its CDP endpoint), and
 * the network policy.
 */
export interface BrowserSettings {
  /** The engine's `read.*` settings. */
  readonly read: Pick<
    ReadSection,
    | "browser_idle_ms"
    | "browser_timeout_ms"
    | "browser_pages"
    | "block_lists"
    | "browser_cdp_url"
    | "chrome_path"
  >;
  /** The guarded network layer's settings. */
  readonly network: NetworkSection;
}

/** Options of {@link createBrowserTier} beyond the config. */
export interface BrowserTierOptions {
  /** Narrows what pages may request, on top of the address policy (never widens it). */
  requestFilter?: RequestFilter;
  /** Resource types to block (default {@link BLOCKED_RESOURCE_TYPES}). */
  blockedResourceTypes?: readonly string[];
  /** Extra Chromium flags for a launched browser. */
  extraArgs?: readonly string[];
  /** Quiet time (ms) after `load` before the DOM is taken, so late XHR can land (default 250, capped by the deadline and at 2 s of waiting). */
  settleMs?: number;
  /**
   * Name resolution for the address checks (interception and egress proxy;
   * default: the system resolver). Answers are checked like any other;
   * tests use it to simulate DNS, rebinding included.
   */
  resolver?: Resolver;
  /**
   * The entry point's environment snapshot: where a launched Chromium keeps its
   * profiles and what environment it gets (see `OpenBrowserOptions.env` in
   * `launch.ts`).
   */
  env?: Env;
}

/**
 * Removes network APIs that request interception cannot see (WebSocket
 * handshakes, WebTransport, WebRTC) before any page script runs.
 */
const PAGE_PRELUDE = `(() => {
  for (const name of ["WebSocket", "WebTransport", "RTCPeerConnection", "webkitRTCPeerConnection"]) {
    try { Object.defineProperty(globalThis, name, { value: undefined, configurable: false, writable: false }); } catch {}
  }
})();`;

/** Per-page state the interception handler reads for the current read. */
interface PooledPage {
  page: Page;
  /** The egress proxy of the browser the page belongs to (absent for an external browser). */
  proxy?: EgressProxy;
  guard?: RequestGuard;
  /** The operator's ad and tracker rules (`read.block_lists`), when configured. */
  blockList?: BlockList;
  /** The host of the page being read (for third-party and `domain=` rules). */
  pageHost?: string;
  /** Set when the main frame's navigation (or a redirect of it) was blocked. */
  blockedNavigation?: GleanerError;
}

interface Session {
  handle: BrowserHandle;
  pool: SlotPool<PooledPage>;
  closing: boolean;
  blockList?: BlockList;
}

/**
 * Decides one request of a page: a blocked resource type, an ad or tracker of the
 * operator's lists, or a request the read's guard refuses is aborted; any other is
 * approved at the egress proxy and let through.
 */
async function interceptRequest(
  entry: PooledPage,
  request: HTTPRequest,
  blockedTypes: ReadonlySet<string>,
  timeoutMs: number,
): Promise<void> {
  if (request.isInterceptResolutionHandled()) return;
  const url = request.url();
  const type = request.resourceType();
  const isMainNavigation = request.isNavigationRequest() &&
    request.frame() === entry.page.mainFrame();
  try {
    if (blockedTypes.has(type)) {
      await request.abort("blockedbyclient");
      return;
    }
    // An ad or tracker of the operator's lists is never requested (the page itself always is).
    if (
      !isMainNavigation && entry.blockList?.blocks({ url, type, pageHost: entry.pageHost })
    ) {
      log.debug("blocked {type} request to {origin}: read.block_lists", {
        type,
        origin: safeOrigin(url),
      });
      await request.abort("blockedbyclient");
      return;
    }
    const guard = entry.guard;
    const blocked = guard
      ? await guard.check(url, type)
      // Between reads (about:blank) nothing may load.
      : url === "about:blank"
      ? undefined
      : new GleanerError("blocked_url", "no read in progress");
    if (blocked) {
      if (isMainNavigation) entry.blockedNavigation ??= blocked;
      log.debug("blocked {type} request to {origin}: {reason}", {
        type,
        origin: safeOrigin(url),
        reason: blocked.message,
      });
      await request.abort("blockedbyclient");
      return;
    }
    approveEgress(entry, url, timeoutMs);
    await request.continue();
  } catch {
    // The page or request went away meanwhile.
  }
}

/** Lets the egress proxy connect to the target of a request interception allowed. */
function approveEgress(entry: PooledPage, raw: string, timeoutMs: number): void {
  if (!entry.proxy) return;
  const url = new URL(raw);
  if (url.protocol !== "http:" && url.protocol !== "https:") return;
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  entry.proxy.approve(url.hostname, port, timeoutMs + 5_000);
}

/**
 * The operator's filter lists once read (`read.block_lists`), logged; a list that cannot be
 * read stops the launch.
 */
async function operatorBlockList(loading: Promise<BlockList>): Promise<BlockList> {
  let blockList: BlockList;
  try {
    blockList = await loading;
  } catch (error) {
    throw new GleanerError(
      "provider_unavailable",
      `read.block_lists: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  log.debug("ad and tracker blocking: {rules} rules ({skipped} lines left out)", {
    rules: blockList.rules,
    skipped: blockList.skipped,
  });
  return blockList;
}

/** The outer HTML of the first element `selector` matches (`target_selector`). */
async function targetHtml(
  page: PooledPage["page"],
  selector: string,
  url: URL,
  signal: AbortSignal,
): Promise<string> {
  let found: string | null;
  try {
    found = await page.$eval(selector, (el) => el.outerHTML).catch((error: unknown) => {
      if (String(error).includes("failed to find element")) return null;
      throw error;
    });
  } catch (error) {
    throw selectorError(error, "target_selector", selector, url, signal);
  }
  if (found === null) {
    throw new GleanerError(
      "selector_not_found",
      `target_selector ${JSON.stringify(selector)} matched nothing on ${url.href}`,
      { details: { field: "target_selector", selector } },
    );
  }
  return found;
}

/**
 * Creates the browser tier. Nothing is launched until the first read.
 *
 * @example
 * ```ts ignore
 * import { createBrowserTier } from "./browser.ts";
 * import { parseConfig } from "@gleaner/gleaner";
 * const tier = createBrowserTier(parseConfig({ read: { browser_pages: 2 } }));
 * try {
 *   const page = await tier.read("https://example.com/", { targetSelector: "main" });
 *   console.log(page.status, page.title, page.html.length);
 * } finally {
 *   await tier.close();
 * }
 * ```
 */
export function createBrowserTier(
  config: BrowserSettings,
  options: BrowserTierOptions = {},
): BrowserTier {
  const blockedTypes = new Set(options.blockedResourceTypes ?? BLOCKED_RESOURCE_TYPES);
  const settleMs = options.settleMs ?? 250;
  const maxHtml = config.network.max_decompressed_bytes;
  let session: Promise<Session> | undefined;
  let current: Session | undefined;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let active = 0;
  let warnedExternal = false;
  /** The operator's filter lists, read once (nothing is downloaded). */
  let blocking: Promise<BlockList> | undefined;

  const clearIdle = () => {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = undefined;
  };

  const armIdle = () => {
    clearIdle();
    if (closed || active > 0 || !session) return;
    idleTimer = setTimeout(() => {
      idleTimer = undefined;
      if (active === 0 && !closed) {
        log.debug("closing idle browser");
        void shutdown();
      }
    }, config.read.browser_idle_ms);
    Deno.unrefTimer(idleTimer);
  };

  const shutdown = async () => {
    const pending = session;
    session = undefined;
    current = undefined;
    if (!pending) return;
    let s: Session;
    try {
      s = await pending;
    } catch {
      return; // The launch failed: nothing to close.
    }
    s.closing = true;
    await s.pool.drain(new GleanerError("provider_unavailable", "the browser was closed"));
    await s.handle.dispose();
  };

  const newPage = async (s: Session): Promise<PooledPage> => {
    // The handle's context denies downloads: a page cannot write a file anywhere.
    const page = await s.handle.context.newPage();
    const entry: PooledPage = { page, proxy: s.handle.proxy, blockList: s.blockList };
    page.setDefaultTimeout(config.read.browser_timeout_ms);
    await page.setUserAgent({ userAgent: config.network.user_agent });
    await page.setBypassServiceWorker(true);
    await page.evaluateOnNewDocument(PAGE_PRELUDE);
    page.on("dialog", (dialog) => void dialog.dismiss().catch(() => {}));
    page.on("popup", (popup) => void popup?.close().catch(() => {}));
    await page.setRequestInterception(true);
    page.on(
      "request",
      (request) =>
        void interceptRequest(entry, request, blockedTypes, config.read.browser_timeout_ms),
    );
    return entry;
  };

  const start = (): Promise<Session> => {
    if (session) return session;
    const launching = (async () => {
      const blockList = config.read.block_lists.length > 0
        ? await operatorBlockList(blocking ??= loadBlockLists(config.read.block_lists))
        : undefined;
      const handle = await openBrowser(config, [
        `--renderer-process-limit=${rendererLimit(config.read.browser_pages)}`,
        ...(options.extraArgs ?? []),
      ], { resolver: options.resolver, env: options.env });
      if (!handle.proxy && !warnedExternal) {
        warnedExternal = true;
        log.warning(
          "read.browser_cdp_url is set: the egress proxy cannot be imposed on an external browser; " +
            "only request interception guards it (DNS rebinding, preconnects and workers' WebSockets are not covered)",
        );
      }
      const s: Session = {
        handle,
        closing: false,
        pool: undefined as unknown as SlotPool<PooledPage>,
        blockList,
      };
      s.pool = createSlotPool<PooledPage>({
        max: config.read.browser_pages,
        create: () => newPage(s),
        destroy: (entry) => closePage(entry.page),
      });
      handle.browser.on("disconnected", () => {
        if (current === s && !s.closing) {
          log.warning("browser disconnected; it will be started again on the next read");
          session = undefined;
          current = undefined;
          void s.pool.drain(new GleanerError("provider_unavailable", "the browser went away"));
          void handle.dispose();
        }
      });
      log.debug("browser ready (pid {pid})", { pid: handle.pid ?? "external" });
      current = s;
      return s;
    })();
    session = launching;
    launching.catch(() => {
      if (session === launching) session = undefined;
    });
    return launching;
  };

  const read = async (
    rawUrl: string,
    readOptions: BrowserReadOptions = {},
  ): Promise<BrowserReadResult> => {
    if (closed) throw new GleanerError("provider_unavailable", "the browser tier is closed");
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw new GleanerError("invalid_arguments", "url: not a valid absolute URL");
    }
    assertUrlAllowed(url, config.network);
    await assertHostAllowed(url.hostname, config.network, url.origin, options.resolver);
    readOptions.signal?.throwIfAborted();

    const itemMs = readOptions.timeoutMs ?? config.read.browser_timeout_ms;
    const callMs = BROWSER_CALL_FACTOR * itemMs;
    // A read without a call is a call of its own; its turn is shared with the reads of the
    // same signal (one tool call's).
    const call = readOptions.call ?? new ReadCall();
    const caller: object = readOptions.call ?? readOptions.signal ?? call;
    const callTimeout = () =>
      new GleanerError(
        "timeout",
        `browser read of ${url.href} stopped: the call's browser work reached its deadline of ` +
          `${callMs} ms (${BROWSER_CALL_FACTOR} × read.browser_timeout_ms)`,
        { details: { field: "read.browser_timeout_ms", deadline_ms: callMs } },
      );

    active++;
    clearIdle();
    try {
      const s = await start();
      // A read whose page was taken back for another caller starts again when its turn comes.
      for (let resumed = false;; resumed = true) {
        const lease = await acquireBefore(s.pool, {
          caller,
          first: resumed,
          signal: readOptions.signal,
          call,
          callMs,
          timeout: callTimeout,
        });
        const left = call.startBrowser() + callMs - performance.now();
        const result = await renderOnLease(s.pool, lease, url, readOptions, {
          timeoutMs: Math.max(1, Math.min(itemMs, left)),
          // The call's deadline comes first: running out is reported as the call's.
          timeoutError: left < itemMs ? callTimeout : undefined,
        });
        if (result) return result;
      }
    } catch (error) {
      throw toGleanerError(error, `browser read of ${url.href}`);
    } finally {
      active--;
      armIdle();
    }
  };

  /**
   * Waits for a page of the pool as `caller`: until `signal` aborts (then
   * rejects with its reason), or until the call's deadline (`callMs` after
   * its browser clock started, once it has) passes (then rejects with
   * `timeout()`).
   */
  const acquireBefore = async (
    pool: SlotPool<PooledPage>,
    wait: {
      caller: object;
      first: boolean;
      signal?: AbortSignal;
      call: ReadCall;
      callMs: number;
      timeout: () => GleanerError;
    },
  ): Promise<SlotLease<PooledPage>> => {
    const ended = () => {
      const started = wait.call.browserStarted();
      return started !== undefined && started + wait.callMs <= performance.now();
    };
    if (ended()) throw wait.timeout();
    const giveUp = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const forget = wait.call.whenBrowserStarts((at) => {
      timer = setTimeout(
        () => giveUp.abort(wait.timeout()),
        Math.max(0, at + wait.callMs - performance.now()),
      );
    });
    const onCancel = () => giveUp.abort(wait.signal!.reason);
    if (wait.signal?.aborted) onCancel();
    wait.signal?.addEventListener("abort", onCancel, { once: true });
    try {
      const lease = await pool.acquire({
        caller: wait.caller,
        first: wait.first,
        signal: giveUp.signal,
      });
      if (giveUp.signal.aborted || ended()) {
        // The page came as the wait ended (a page being made): it goes back unused.
        await pool.release(lease, true);
        throw giveUp.signal.aborted ? giveUp.signal.reason : wait.timeout();
      }
      return lease;
    } finally {
      forget();
      clearTimeout(timer);
      wait.signal?.removeEventListener("abort", onCancel);
    }
  };

  /**
   * Renders on a leased page and gives the page back: made blank after a
   * render that finished, closed after one that failed or was cut short (a
   * deadline, a cancel, the page taken back). `undefined` when the pool took
   * the page back for another caller before the render finished: the read
   * asks again.
   */
  const renderOnLease = async (
    pool: SlotPool<PooledPage>,
    lease: SlotLease<PooledPage>,
    url: URL,
    readOptions: BrowserReadOptions,
    limits: { timeoutMs: number; timeoutError?: () => GleanerError },
  ): Promise<BrowserReadResult | undefined> => {
    const entry = lease.item;
    let healthy = false;
    try {
      const result = await renderWithDeadline(entry, url, readOptions, lease.revoked, limits);
      healthy = true;
      return result;
    } catch (error) {
      if (lease.revoked.aborted && error === lease.revoked.reason) {
        // Like any render cut short, the page is closed rather than reused: a navigation or
        // request stopped midway can leave it never idle again (every later read would wait
        // out the settle time).
        log.debug("gave a page back to another caller; {url} waits for its turn again", {
          url: safeOrigin(url.href),
        });
        return undefined;
      }
      throw error;
    } finally {
      entry.guard = undefined;
      entry.blockedNavigation = undefined;
      if (healthy) healthy = await resetPage(entry.page);
      await pool.release(lease, healthy);
    }
  };

  const renderWithDeadline = async (
    entry: PooledPage,
    url: URL,
    readOptions: BrowserReadOptions,
    revoked: AbortSignal,
    limits: { timeoutMs: number; timeoutError?: () => GleanerError },
  ): Promise<BrowserReadResult> => {
    const { timeoutMs } = limits;
    const timedOut = limits.timeoutError ??
      (() =>
        new GleanerError(
          "timeout",
          `browser read of ${url.href} timed out after ${timeoutMs} ms`,
        ));
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(timedOut()), timeoutMs);
    const onCancel = () =>
      deadline.abort(new GleanerError("timeout", `browser read of ${url.href} was cancelled`));
    const onRevoked = () => deadline.abort(revoked.reason);
    readOptions.signal?.addEventListener("abort", onCancel, { once: true });
    revoked.addEventListener("abort", onRevoked, { once: true });
    const signal = deadline.signal;
    const aborted = new Promise<never>((_, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
    aborted.catch(() => {});
    // Revoked (or cancelled) before it began: nothing to start.
    if (revoked.aborted) onRevoked();
    else if (readOptions.signal?.aborted) onCancel();
    try {
      if (signal.aborted) throw signal.reason;
      return await Promise.race([
        render(entry, url, readOptions, signal, timeoutMs, limits.timeoutError),
        aborted,
      ]);
    } finally {
      clearTimeout(timer);
      readOptions.signal?.removeEventListener("abort", onCancel);
      revoked.removeEventListener("abort", onRevoked);
    }
  };

  const render = async (
    entry: PooledPage,
    url: URL,
    readOptions: BrowserReadOptions,
    signal: AbortSignal,
    timeoutMs: number,
    callTimeout?: () => GleanerError,
  ): Promise<BrowserReadResult> => {
    const started = performance.now();
    const remaining = () => Math.max(1, timeoutMs - (performance.now() - started));
    const { page } = entry;
    entry.guard = createRequestGuard(config.network, options.requestFilter, options.resolver);
    entry.pageHost = url.hostname;
    entry.blockedNavigation = undefined;

    let response;
    try {
      response = await page.goto(url.href, { waitUntil: "load", timeout: remaining(), signal });
    } catch (error) {
      if (entry.blockedNavigation) throw entry.blockedNavigation;
      if (callTimeout && isTimeout(error)) throw callTimeout();
      throw proxyRefusal(entry, error) ?? navigationError(error, url, signal);
    }
    if (entry.blockedNavigation) throw entry.blockedNavigation;
    if (response && entry.proxy?.isRefusal(response.headers())) {
      // The guard let it go but the proxy refused it at connect time (a rebinding name).
      const target = new URL(response.url());
      throw entry.proxy.refusalFor(target.hostname, defaultPort(target)) ??
        new GleanerError("blocked_url", `${target.origin} is blocked by the egress proxy`);
    }

    if (settleMs > 0) {
      await page.waitForNetworkIdle({
        idleTime: settleMs,
        timeout: Math.min(2_000, remaining()),
        signal,
      }).catch(() => {});
    }
    if (readOptions.waitForSelector) {
      // The wait ends a little before the read's deadline, so a selector that never shows
      // is reported as such (how long was waited) rather than as the read timing out.
      const waitMs = Math.max(1, remaining() - Math.min(500, timeoutMs / 10));
      const waitStarted = performance.now();
      try {
        await page.waitForSelector(readOptions.waitForSelector, { timeout: waitMs, signal });
      } catch (error) {
        if (callTimeout && isTimeout(error)) throw callTimeout();
        throw selectorError(error, "wait_for_selector", readOptions.waitForSelector, url, signal, {
          waitedMs: Math.round(performance.now() - waitStarted),
        });
      }
    }
    if (entry.blockedNavigation) throw entry.blockedNavigation;

    let html: string;
    if (readOptions.targetSelector) {
      html = await targetHtml(page, readOptions.targetSelector, url, signal);
    } else {
      html = await page.content();
    }
    if (html.length > maxHtml) {
      throw new GleanerError(
        "too_large",
        `rendered page ${url.href} exceeds network.max_decompressed_bytes`,
      );
    }
    return {
      url: page.url(),
      html,
      status: response?.status() ?? 0,
      title: await page.title(),
    };
  };

  /**
   * Closes a page, waiting at most {@link PAGE_CLOSE_MS}: puppeteer waits for
   * Chromium to report the target gone, and a page closed while a navigation
   * or an intercepted request was being cut short can wait for that forever,
   * which held its read (and its call) with it. A page that does not close in
   * time is left to the browser, which closes with it.
   */
  const closePage = async (page: Page): Promise<void> => {
    await withDeadline(page.close(), PAGE_CLOSE_MS, () => {
      log.debug("a page did not close within {ms} ms; it is left to the browser", {
        ms: PAGE_CLOSE_MS,
      });
    });
  };

  /** Leaves a page blank for the next read; false when it should be discarded. */
  const resetPage = async (page: Page): Promise<boolean> => {
    try {
      await page.goto("about:blank", { timeout: 5_000 });
      return true;
    } catch {
      return false;
    }
  };

  return {
    read,
    async close() {
      closed = true;
      clearIdle();
      await shutdown();
    },
    stats() {
      const s = current;
      const pool = s?.pool.stats() ?? { busy: 0, idle: 0, waiting: 0, callers: 0, revoked: 0 };
      return {
        running: s !== undefined,
        pid: s?.handle.pid,
        proxyPort: s?.handle.proxy?.port,
        proxy: s?.handle.proxy?.stats(),
        ...pool,
      };
    },
  };
}

/** True for puppeteer's own timeout (a wait or a navigation that ran out of time). */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}

function defaultPort(url: URL): number {
  return Number(url.port || (url.protocol === "https:" ? 443 : 80));
}

/**
 * The egress proxy's refusal behind a failed navigation: Chromium reports a
 * refused tunnel (https) as `ERR_TUNNEL_CONNECTION_FAILED`, whatever the
 * proxy answered, so the proxy's record for the target says whether it was a
 * refusal or a network failure.
 */
function proxyRefusal(entry: PooledPage, error: unknown): GleanerError | undefined {
  if (!entry.proxy) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  const match = /net::ERR_TUNNEL_CONNECTION_FAILED at (\S+)/.exec(message);
  if (!match) return undefined;
  try {
    const target = new URL(match[1]);
    const refusal = entry.proxy.refusalFor(target.hostname, defaultPort(target));
    return refusal?.code === "blocked_url" ? refusal : undefined;
  } catch {
    return undefined;
  }
}

function safeOrigin(raw: string): string {
  try {
    const url = new URL(raw);
    return url.protocol.startsWith("http") ? url.origin : url.protocol;
  } catch {
    return "(invalid URL)";
  }
}

function navigationError(error: unknown, url: URL, signal: AbortSignal): GleanerError {
  if (signal.aborted && signal.reason instanceof GleanerError) return signal.reason;
  if (error instanceof GleanerError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === "TimeoutError") {
    return new GleanerError("timeout", `browser read of ${url.href} timed out`, { cause: error });
  }
  const netError = /net::(ERR_[A-Z_]+)/.exec(message)?.[1];
  if (netError === "ERR_NAME_NOT_RESOLVED") {
    return new GleanerError("not_found", `could not resolve ${url.hostname}`, {
      cause: error,
    });
  }
  if (netError === "ERR_BLOCKED_BY_CLIENT") {
    return new GleanerError("blocked_url", `${url.origin} is blocked`, { cause: error });
  }
  return new GleanerError(
    "provider_unavailable",
    `the browser could not load ${url.href}${netError ? ` (${netError})` : ""}`,
    { cause: error },
  );
}

function selectorError(
  error: unknown,
  field: "wait_for_selector" | "target_selector",
  selector: string,
  url: URL,
  signal: AbortSignal,
  waited?: { waitedMs: number },
): GleanerError {
  if (signal.aborted && signal.reason instanceof GleanerError) return signal.reason;
  if (error instanceof GleanerError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === "TimeoutError") {
    const after = waited ? ` after ${waited.waitedMs} ms` : " in time";
    return new GleanerError(
      "selector_not_found",
      `${field} ${JSON.stringify(selector)} did not appear on ${url.href}${after}`,
      {
        cause: error,
        details: { field, selector, ...(waited ? { waited_ms: waited.waitedMs } : {}) },
      },
    );
  }
  if (/not a valid selector|SyntaxError|Unexpected token|Invalid selector/i.test(message)) {
    return new GleanerError("invalid_arguments", `${field}: not a valid CSS selector`, {
      cause: error,
      details: { field },
    });
  }
  return new GleanerError("internal", `${field} lookup on ${url.href} failed`, {
    cause: error,
    details: { field },
  });
}

/**
 * Renderer processes for `pages` concurrent pages: one per two pages. The
 * pages share them as separate JavaScript contexts (the same trade as
 * Chromium's site isolation being off, see `CHROMIUM_MEMORY_ARGS`).
 * `deno task bench browser` (130 real pages, 4 at once): one renderer per
 * page peaked at 710-774 MB PSS, one per two pages at 555-556 MB, with p95
 * 4.2-4.5 s both ways; a single renderer saved 30 MB more but p95 rose to
 * 4.8 s.
 *
 * @example
 * ```ts
 * import { rendererLimit } from "./browser.ts";
 * console.assert(rendererLimit(4) === 2 && rendererLimit(1) === 1 && rendererLimit(5) === 3);
 * ```
 */
export function rendererLimit(pages: number): number {
  return Math.max(1, Math.ceil(pages / 2));
}
