/**
 * Finding, launching and connecting to Chromium for the browser tier.
 *
 * A launched Chromium gets its own egress proxy (`proxy.ts`), started before
 * it and stopped after it: {@link egressArgs} make that proxy Chromium's only
 * way out and switch Chromium's own name resolution off, so every connection
 * is checked where it is made (no DNS-rebinding window).
 *
 * An external browser (`read.browser_cdp_url`) cannot be made to use the
 * proxy: for it only request interception applies, and the rebinding window,
 * preconnects and workers' WebSockets stay unguarded. The tier logs a warning
 * once when it connects to one.
 *
 * Nothing a page does is written outside the throwaway profile: downloads are
 * denied ({@link DOWNLOADS_DENIED}; in an external browser, in a context of the
 * tier's own), and a launched Chromium's home, caches and crash reports are
 * made inside the profile ({@link CHROMIUM_ROOM}).
 *
 * Permissions: run access to the Chromium executable (`--allow-run=<path>`) and read access to it;
 * read and write access to `chromiumProfileRoot()`; env access to `CHROMIUM_ENV_NAMES` (what
 * Chromium is given) and to the names puppeteer-core and ws read (`DEPENDENCY_ENV_NAMES`).
 *
 * @module
 */
import puppeteer, {
  type Browser,
  type BrowserContext,
  type DownloadBehavior,
  type LaunchOptions,
} from "puppeteer-core";
import type { NetworkSection, ReadSection } from "../../config/sections.ts";
import { GleanerError, permissionError } from "../../errors.ts";
import type { Resolver } from "../../net/fetch.ts";
import { type EgressProxy, startEgressProxy } from "./proxy.ts";
import { chromiumProfileRoot, findChromium } from "./chromium.ts";
import { CHROMIUM_ENV_NAMES, type Env } from "../../config/env.ts";

/**
 * The settings a launch reads: an external CDP endpoint or Chromium's path,
 * and the network policy its egress proxy enforces.
 */
export interface LaunchSettings {
  /** `read.browser_cdp_url` and `read.chrome_path`. */
  readonly read: Pick<ReadSection, "browser_cdp_url" | "chrome_path">;
  /** The guarded network layer's settings. */
  readonly network: NetworkSection;
}

/**
 * Flags every Chromium the tier launches gets: headless, no sandbox (it runs
 * as an unprivileged child of Gleaner, often inside a container), no GPU, no
 * QUIC (every request must be a TCP request the interception sees), and no
 * background traffic of its own (updates, sync, first-run, DNS prefetching).
 *
 * @internal exported for tests only
 */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--dns-prefetch-disable",
  "--disable-crash-reporter",
  "--disable-breakpad",
];

/**
 * What every page the tier opens does with a download (a link with `download`, a response
 * sent as `Content-Disposition: attachment`): refused, nothing is written
 * (https://chromedevtools.github.io/devtools-protocol/tot/Browser/#method-setDownloadBehavior).
 */
const DOWNLOADS_DENIED: DownloadBehavior = { policy: "deny" };

/**
 * Flags that keep the process tree small (measured with `bench/browser.ts`;
 * together they took the peak from 40 processes / 1.1 GB PSS to 8-10
 * processes / ~0.55 GB PSS at 4 concurrent pages):
 * - no back/forward cache and no spare renderer: left pages die at once
 *   instead of lingering in their own renderer processes;
 * - no site isolation: a page's cross-site frames share its renderer. With
 *   `--no-sandbox` renderers are not confined anyway, the profile is
 *   throwaway and holds no credentials, and every frame's requests are still
 *   intercepted, so isolation bought little here;
 * - GPU and network service inside the browser process (two fewer processes);
 * - V8 lite mode (no optimising compiler: less memory, pages run once);
 * - no autofill server queries (Chromium's own traffic: one per form page
 *   in the benchmark; the egress proxy would refuse them anyway).
 *
 * The browser tier adds `--renderer-process-limit` (see `rendererLimit` in
 * `lib/read/browser/browser.ts`).
 */
export const CHROMIUM_MEMORY_ARGS: readonly string[] = [
  "--disable-features=BackForwardCache,SpareRendererForSitePerProcess,IsolateOrigins,site-per-process,AutofillServerCommunication",
  "--disable-site-isolation-trials",
  "--enable-features=NetworkServiceInProcess",
  "--in-process-gpu",
  "--js-flags=--lite-mode",
];

/**
 * Flags that send all of Chromium's traffic through the egress proxy at
 * `proxyUrl` (checked with Chromium 156 in `launch_test.ts`):
 * - `--proxy-server`: every http, https (CONNECT) and WebSocket (CONNECT)
 *   connection goes to the proxy, which resolves and checks the host;
 * - `--proxy-bypass-list=<-loopback>`: removes Chromium's implicit bypass
 *   for `localhost`, `127.0.0.0/8` and `[::1]`, so loopback is judged by
 *   `network.allow_private` like everything else;
 * - `--host-resolver-rules`: any name Chromium would still resolve itself
 *   (it does not for proxied requests) fails, except the proxy's 127.0.0.1;
 * - `--force-webrtc-ip-handling-policy=disable_non_proxied_udp`: WebRTC may
 *   not send UDP outside the proxy (page scripts also lose `RTCPeerConnection`).
 *
 * @example
 * ```ts
 * import { egressArgs } from "./launch.ts";
 * console.assert(egressArgs("http://127.0.0.1:8899")[0] === "--proxy-server=http://127.0.0.1:8899");
 * ```
 */
export function egressArgs(proxyUrl: string): string[] {
  return [
    `--proxy-server=${proxyUrl}`,
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  ];
}

export { CHROMIUM_CANDIDATES, chromiumProfileRoot, findChromium } from "./chromium.ts";

/**
 * Throws `provider_unavailable` naming `--allow-run` unless Deno may run
 * `executable`.
 */
async function assertRunAllowed(executable: string): Promise<void> {
  const status = await Deno.permissions.query({ name: "run", command: executable });
  if (status.state !== "granted") {
    throw new GleanerError(
      "provider_unavailable",
      `the browser tier needs --allow-run (or --allow-run=${executable}) to launch Chromium`,
      { details: { flag: "--allow-run" } },
    );
  }
}

/** A running (or connected) browser and how to let it go. */
export interface BrowserHandle {
  /** The puppeteer browser. */
  browser: Browser;
  /**
   * The context the tier opens its pages in, downloads denied ({@link DOWNLOADS_DENIED}):
   * the default one of a launched browser, a context of its own in an external one.
   */
  context: BrowserContext;
  /** True when Gleaner launched it (false for `read.browser_cdp_url`). */
  launched: boolean;
  /** Process id of the launched browser, when known. */
  pid?: number;
  /** The egress proxy of a launched browser (absent for an external one). */
  proxy?: EgressProxy;
  /** Closes a launched browser, its proxy and its profile, or disconnects from an external one. */
  dispose(): Promise<void>;
}

/** Options of {@link openBrowser}. */
export interface OpenBrowserOptions {
  /** Name resolution of the egress proxy (default: the system resolver); tests simulate DNS with it. */
  resolver?: Resolver;
  /**
   * The proxy refuses targets not approved through `handle.proxy.approve`
   * (default true: the tier approves what request interception lets through;
   * see `proxy.ts`).
   */
  approvedOnly?: boolean;
  /**
   * The entry point's environment snapshot (`readHostEnv()` in
   * `lib/config/env.ts`): where the profiles go (`TMPDIR`, see
   * {@link chromiumProfileRoot}) and the variables a launched Chromium gets
   * ({@link CHROMIUM_ENV_NAMES} only). Default: none (profiles under `/tmp`,
   * an empty environment for Chromium).
   */
  env?: Env;
}

/**
 * Launches Chromium (fresh temporary profile, {@link CHROMIUM_ARGS}, talking
 * over a pipe so no DevTools port is opened) behind a new egress proxy
 * ({@link egressArgs}), or connects to `read.browser_cdp_url` when set (no
 * proxy then).
 *
 * @example
 * ```ts ignore
 * import { openBrowser } from "./launch.ts";
 * import { parseConfig } from "@gleaner/gleaner";
 * const handle = await openBrowser(parseConfig({}));
 * await handle.dispose();
 * ```
 */
export async function openBrowser(
  config: LaunchSettings,
  extraArgs: readonly string[] = [],
  options: OpenBrowserOptions = {},
): Promise<BrowserHandle> {
  const endpoint = config.read.browser_cdp_url;
  if (endpoint) {
    let browser: Browser;
    try {
      browser = /^wss?:/i.test(endpoint)
        ? await puppeteer.connect({ browserWSEndpoint: endpoint, protocolTimeout: 30_000 })
        : await puppeteer.connect({ browserURL: endpoint, protocolTimeout: 30_000 });
    } catch (error) {
      throw new GleanerError(
        "provider_unavailable",
        "could not connect to the DevTools endpoint in read.browser_cdp_url",
        { cause: error, details: { field: "read.browser_cdp_url" } },
      );
    }
    // A context of the tier's own: downloads denied there without changing the operator's
    // default context, and the tier's pages and cookies apart from the browser's others.
    let context: BrowserContext;
    try {
      context = await browser.createBrowserContext({ downloadBehavior: DOWNLOADS_DENIED });
    } catch (error) {
      await browser.disconnect().catch(() => {});
      throw new GleanerError(
        "provider_unavailable",
        "the DevTools endpoint in read.browser_cdp_url refused a browser context with downloads denied",
        { cause: error, details: { field: "read.browser_cdp_url" } },
      );
    }
    return {
      browser,
      context,
      launched: false,
      dispose: async () => {
        try {
          await context.close();
        } catch {
          // Already gone.
        }
        try {
          await browser.disconnect();
        } catch {
          // Already gone.
        }
      },
    };
  }

  const executable = await findChromium(config);
  await assertRunAllowed(executable);
  const proxy = await startEgressProxy(config.network, {
    resolver: options.resolver,
    approvedOnly: options.approvedOnly ?? true,
  });
  const root = chromiumProfileRoot(options.env ?? {});
  let profile: string;
  try {
    await Deno.mkdir(root, { recursive: true, mode: 0o700 });
    profile = await Deno.makeTempDir({ dir: root, prefix: "profile-" });
  } catch (error) {
    await proxy.close();
    throw error;
  }
  let browser: Browser;
  try {
    browser = await launchChromium({
      executablePath: executable,
      headless: true,
      pipe: true,
      userDataDir: profile,
      downloadBehavior: DOWNLOADS_DENIED,
      // Chromium's environment: only what it needs (puppeteer would pass the whole process
      // environment, which a scoped --allow-env cannot enumerate, and which holds the keys),
      // its home and caches inside the profile, its temporary files beside the profiles.
      env: await chromiumEnv(options.env ?? {}, root, profile),
      // The egress flags come last so that extraArgs cannot replace them.
      args: [...CHROMIUM_ARGS, ...CHROMIUM_MEMORY_ARGS, ...extraArgs, ...egressArgs(proxy.url)],
      // Keep Chromium's popup blocker on: a popup would be a page without interception.
      ignoreDefaultArgs: ["--disable-popup-blocking"],
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      protocolTimeout: 30_000,
    });
  } catch (error) {
    await removeProfileFolders(profile);
    await proxy.close();
    // A grant the launch needs (an environment name, the profile folder) is named as such.
    const denied = permissionError(error, `launching Chromium at ${executable}`);
    if (denied) throw denied;
    throw new GleanerError("provider_unavailable", `Chromium at ${executable} failed to start`, {
      cause: error,
      details: { field: "read.chrome_path" },
    });
  }
  // The folder of Chromium's singleton socket where it is outside the profile, read while it runs.
  const singleton = await singletonDir(root, profile);
  // Chromium opens one blank tab at start; the tier makes its own pages.
  for (const page of await browser.pages().catch(() => [])) await page.close().catch(() => {});
  return {
    browser,
    context: browser.defaultBrowserContext(),
    launched: true,
    pid: browser.process()?.pid,
    proxy,
    dispose: async () => {
      try {
        await browser.close();
      } catch {
        try {
          browser.process()?.kill("SIGKILL");
        } catch {
          // Already gone.
        }
      }
      await proxy.close();
      await removeProfileFolders(profile, singleton);
    },
  };
}

/**
 * Removes a launched Chromium's profile and the folder of its singleton socket. Chromium may
 * still be flushing its profile: a failed removal is retried twice, 100 ms apart.
 */
async function removeProfileFolders(profile: string, singleton?: string): Promise<void> {
  if (singleton) await Deno.remove(singleton, { recursive: true }).catch(() => undefined);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await Deno.remove(profile, { recursive: true });
      return;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * The folder of a running Chromium's singleton socket (`org.chromium.Chromium.XXXXXX` in
 * `root`, where its profile's `SingletonSocket` link points), read while Chromium runs:
 * Chromium removes the folder and the link on a clean exit, but not when it is killed or
 * gives up on its shutdown, and the link may be gone before the folder.
 */
async function singletonDir(root: string, profile: string): Promise<string | undefined> {
  const target = await Deno.readLink(`${profile}/SingletonSocket`).catch(() => undefined);
  const dir = target?.slice(0, target.lastIndexOf("/"));
  const inRoot = dir?.startsWith(`${root}/org.chromium.Chromium.`) &&
    !dir.includes("/", root.length + 1);
  return inRoot ? dir : undefined;
}

/**
 * Launches Chromium; one that closes while it starts (its first protocol calls
 * answer `Target closed`, as happens on a loaded machine) gets one more try, any
 * other failure is thrown at once.
 */
function launchChromium(options: LaunchOptions): Promise<Browser> {
  return puppeteer.launch(options).catch((error) => {
    const closed = error instanceof Error &&
      (error.name === "TargetCloseError" || /Target closed/.test(error.message));
    return closed ? puppeteer.launch(options) : Promise.reject(error);
  });
}

/**
 * Where a launched Chromium's own files go, inside its throwaway profile: what
 * it would otherwise write under the host's `HOME` (`.config/chromium/Crash
 * Reports`, `.cache/dconf`, `.pki/nssdb`, `Downloads`) and its runtime
 * directory. Removed with the profile.
 */
const CHROMIUM_ROOM: Readonly<Record<string, string>> = {
  HOME: ".home",
  XDG_CONFIG_HOME: ".home/.config",
  XDG_CACHE_HOME: ".home/.cache",
  XDG_DATA_HOME: ".home/.local/share",
  XDG_RUNTIME_DIR: ".run",
};

/**
 * The longest `TMPDIR` Chromium is given: it keeps its singleton socket at
 * `$TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket`, and a Unix socket's
 * path holds at most 108 bytes on Linux (104 on macOS).
 */
const MAX_CHROMIUM_TMPDIR = 104 - "/org.chromium.Chromium.XXXXXX/SingletonSocket".length - 4;

/**
 * The environment of a launched Chromium: the {@link CHROMIUM_ENV_NAMES} of
 * `env` that are set, with its home and XDG directories made inside `profile`
 * ({@link CHROMIUM_ROOM}) and its temporary directory (where its singleton
 * socket lives while it runs) the profile itself, removed with it; the
 * profiles' root `root` when the profile's path is too long for a socket path,
 * the host's `TMPDIR` when that is too. So nothing it writes lands in the
 * host's home or outlives the browser, a Chromium killed or retried included.
 */
async function chromiumEnv(
  env: Env,
  root: string,
  profile: string,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of CHROMIUM_ENV_NAMES) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  for (const [name, relative] of Object.entries(CHROMIUM_ROOM)) {
    const path = `${profile}/${relative}`;
    await Deno.mkdir(path, { recursive: true, mode: 0o700 });
    out[name] = path;
  }
  const tmp = [profile, root].find((dir) =>
    new TextEncoder().encode(dir).length <= MAX_CHROMIUM_TMPDIR
  );
  if (tmp) out.TMPDIR = tmp;
  return out;
}
