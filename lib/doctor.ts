/**
 * `gleaner doctor`: what is present and what is missing, without side effects
 * beyond opening the store.
 *
 * @module
 */
import type { Config } from "./config/config.ts";
import { findChromium } from "./read/browser/launch.ts";
import { embedderStatus } from "./embed/mod.ts";
import { openStore } from "./store/mod.ts";
import { ROLES } from "./search/providers/types.ts";
import { usableProviders } from "./search/providers/registry.ts";
import { toolsFor } from "./tools/presentations.ts";
import { VERSION } from "./version.ts";

/** One check of the doctor report. */
export interface DoctorCheck {
  /** What was checked. */
  name: string;
  /** Whether it is usable. */
  ok: boolean;
  /** What was found, or why it is not usable. */
  detail: string;
}

/** The doctor report. */
export interface DoctorReport {
  /** Gleaner's version. */
  version: string;
  /** True when every required check passed (optional ones may fail). */
  ok: boolean;
  /** The checks. */
  checks: DoctorCheck[];
}

/**
 * Checks the store, the browser, the embedder and network policy.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "@gleaner/gleaner";
 * import { runDoctor } from "./doctor.ts";
 * const report = await runDoctor(parseConfig({ store: { path: ":memory:" } }));
 * console.log(report.checks.map((c) => `${c.ok ? "ok" : "--"} ${c.name}: ${c.detail}`).join("\n"));
 * ```
 */
export async function runDoctor(config: Config): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  try {
    const store = openStore(config.store);
    const stats = await store.cache.stats();
    checks.push({
      name: "store",
      ok: true,
      detail: `${store.path ?? "store"} (${JSON.stringify(stats)})`,
    });
    await store.close();
  } catch (error) {
    checks.push({ name: "store", ok: false, detail: String(error) });
  }
  if (config.read.browser_cdp_url) {
    checks.push({ name: "browser", ok: true, detail: `external DevTools endpoint configured` });
  } else {
    try {
      checks.push({ name: "browser", ok: true, detail: await findChromium(config) });
    } catch (error) {
      checks.push({
        name: "browser (optional)",
        ok: true,
        detail: `not available: ${(error as Error).message}`,
      });
    }
  }
  try {
    const status = await embedderStatus(config.embed);
    checks.push({ name: "embedder", ok: true, detail: JSON.stringify(status) });
  } catch (error) {
    checks.push({
      name: "embedder (optional)",
      ok: true,
      detail: `not available: ${(error as Error).message}`,
    });
  }
  try {
    const roles = ROLES.map((role) => {
      const names = usableProviders(config, role).map((p) => p.name);
      if (role === "contents") names.push("gleaner");
      return `${role}: ${names.join(", ") || "none"}`;
    });
    const tools = toolsFor(config).map((t) => t.name);
    checks.push({
      name: "search providers",
      ok: true,
      detail: `${roles.join("; ")} (presentation ${config.search.presentation}: ${
        tools.join(", ")
      })`,
    });
  } catch (error) {
    checks.push({ name: "search providers", ok: false, detail: (error as Error).message });
  }
  const privateNet = config.network.allow_private;
  checks.push({
    name: "ssrf protection",
    ok: true,
    detail: privateNet === false ? "on" : `relaxed: allow_private = ${JSON.stringify(privateNet)}`,
  });
  const proxyUrl = config.network.proxy_url;
  let proxyLabel = "";
  try {
    proxyLabel = proxyUrl ? new URL(proxyUrl).origin : "";
  } catch {
    proxyLabel = "(invalid)";
  }
  checks.push({
    name: "outbound proxy",
    ok: true,
    detail: proxyUrl
      ? `${proxyLabel}${
        config.network.no_proxy.length > 0
          ? `, bypassed for ${config.network.no_proxy.join(", ")}`
          : ""
      } (resolved addresses are checked by the proxy, not by Gleaner)`
      : "none: direct connections",
  });
  return { version: VERSION, ok: checks.every((c) => c.ok), checks };
}
