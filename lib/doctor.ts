/**
 * `gleaner doctor`: what is present and what is missing, without side effects
 * beyond opening the store.
 *
 * Permissions: queries every grant of `lib/permissions.ts` (without prompting); read access to the
 * store, the CA files and the Chromium candidates.
 *
 * @module
 */
import type { Config } from "./config/config.ts";
import { findChromium } from "./read/browser/chromium.ts";
import { embedderStatus } from "./embed/mod.ts";
import { loadValkeyDriver, openStore } from "./store/mod.ts";
import { ROLES } from "./search/providers/types.ts";
import { usableProviders } from "./search/providers/registry.ts";
import { toolsFor } from "./tools/presentations.ts";
import { VERSION } from "./version.ts";
import { inspectExtraCa } from "./net/ca.ts";
import { permissionError } from "./errors.ts";
import { lookup } from "node:dns/promises";
import {
  ENV_UNSCOPED,
  FFI_UNSCOPED,
  grantsFor,
  permissionFlags,
  type PermissionGrants,
  resolvePaths,
} from "./permissions.ts";

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
 * Checks the permissions (each path, name and program Gleaner needs here, as
 * resolved by `lib/permissions.ts`), prints the resolved paths and the exact
 * `deno run` flags for this machine, then the extra CA files (`NODE_EXTRA_CA_CERTS`,
 * `DENO_CERT`), name resolution, the stores, the browser, the embedder and
 * network policy; each failed check says what to do.
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
  const checks: DoctorCheck[] = [
    ...await permissionChecks(config),
    caCheck(),
    await dnsCheck(),
  ];
  try {
    if (config.store.cache_url) await loadValkeyDriver();
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
  checks.push(memoryCheck(config));
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

/** A permission to check: its descriptor, the flag that grants it, and what is lost without it. */
interface Needed {
  descriptor: Deno.PermissionDescriptor;
  flag: string;
  why: string;
  optional?: boolean;
}

/** What Gleaner needs with `config` on this machine, each path and name on its own. */
function needed(grants: PermissionGrants): Needed[] {
  const list: Needed[] = [
    { descriptor: { name: "net" }, flag: "--allow-net", why: "every search and read" },
    {
      // node:https loads its trust store with sys access to "ca" (Deno 2.9); --allow-sys=ca is
      // not accepted, so the grant is the whole --allow-sys.
      descriptor: { name: "sys", kind: "ca" } as unknown as Deno.PermissionDescriptor,
      flag: "--allow-sys",
      why: 'every HTTPS read and search (node:https needs sys access to "ca")',
    },
  ];
  for (const path of grants.read) {
    list.push({
      descriptor: { name: "read", path },
      flag: `--allow-read=${path}`,
      why: "config, stores, models",
    });
  }
  if (grants.env === true) {
    list.push({
      descriptor: { name: "env" },
      flag: "--allow-env",
      why: "store.cache_url (Valkey)",
    });
  }
  for (const path of grants.write) {
    list.push({
      descriptor: { name: "write", path },
      flag: `--allow-write=${path}`,
      why: "stores",
    });
  }
  for (const variable of grants.env === true ? [] : grants.env) {
    list.push({
      descriptor: { name: "env", variable },
      flag: `--allow-env=${variable}`,
      why: "settings",
    });
  }
  for (const command of grants.run) {
    list.push({
      descriptor: { name: "run", command },
      flag: `--allow-run=${command}`,
      why: "the Chromium tier",
      optional: true,
    });
  }
  for (const path of grants.ffi) {
    list.push({
      // node:sqlite's allowExtension asks for the whole --allow-ffi (see FFI_UNSCOPED).
      descriptor: { name: "ffi" },
      flag: `--allow-ffi (for ${path})`,
      why: "memory vectors (sqlite-vec)",
      optional: true,
    });
  }
  return list;
}

async function permissionChecks(config: Config): Promise<DoctorCheck[]> {
  const paths = await resolvePaths(config);
  const grants = grantsFor(paths);
  const missing: string[] = [];
  const optional: string[] = [];
  for (const p of needed(grants)) {
    const { state } = await Deno.permissions.query(p.descriptor);
    if (state !== "granted") (p.optional ? optional : missing).push(`${p.flag} (${p.why})`);
  }
  const checks: DoctorCheck[] = [{
    name: "permissions",
    ok: missing.length === 0,
    detail: missing.length === 0
      ? "every permission Gleaner needs here is granted"
      : `missing: ${missing.join(", ")}; run again with these flags`,
  }];
  if (optional.length > 0) {
    checks.push({
      name: "permissions (optional)",
      ok: true,
      detail: `not granted: ${optional.join(", ")}`,
    });
  }
  checks.push({
    name: "paths",
    ok: true,
    detail: [
      `config file ${paths.config_file ?? "(none: no HOME)"}`,
      `data dir ${paths.data_dir ?? "(none: no HOME or XDG_DATA_HOME)"}`,
      ...(paths.store_file ? [`store ${paths.store_file}`] : []),
      ...(paths.memory_file ? [`memory ${paths.memory_file}`] : []),
      ...paths.models.map((m) => `model ${m}`),
      `chromium profiles ${paths.chromium_profiles}`,
      ...(paths.chromium ? [`chromium ${paths.chromium}`] : []),
      ...(paths.sqlite_vec ? [`sqlite-vec ${paths.sqlite_vec}`] : []),
    ].join("; "),
  });
  checks.push({
    name: "flags",
    ok: true,
    detail: `deno run ${permissionFlags(grants).join(" ")} (whole --allow-ffi: ${FFI_UNSCOPED}${
      grants.env === true ? `; whole --allow-env: ${ENV_UNSCOPED}` : ""
    })`,
  });
  return checks;
}

function caCheck(): DoctorCheck {
  try {
    const files = inspectExtraCa();
    if (files.length === 0) {
      return {
        name: "extra CA certificates",
        ok: true,
        detail: "none (NODE_EXTRA_CA_CERTS and DENO_CERT unset): the default trust store",
      };
    }
    const bad = files.filter((f) => f.error !== undefined);
    return {
      name: "extra CA certificates",
      ok: bad.length === 0,
      detail: files.map((f) =>
        f.error === undefined
          ? `${f.variable}=${f.path}: ${f.certificates} certificate(s) loaded`
          : `${f.variable}=${f.path}: ${f.error}; point it at a readable PEM file`
      ).join("; "),
    };
  } catch (error) {
    const named = permissionError(error, "reading the CA files");
    return {
      name: "extra CA certificates",
      ok: false,
      detail: named?.message ?? (error as Error).message,
    };
  }
}

async function dnsCheck(): Promise<DoctorCheck> {
  try {
    const answer = await lookup("localhost");
    return { name: "name resolution", ok: true, detail: `localhost is ${answer.address}` };
  } catch (error) {
    const named = permissionError(error, "name resolution");
    return {
      name: "name resolution",
      ok: false,
      detail: named?.message ??
        `cannot resolve localhost (${String((error as { code?: unknown }).code ?? error)}): ` +
          "check the resolver configuration (/etc/hosts, /etc/resolv.conf)",
    };
  }
}

function memoryCheck(config: Config): DoctorCheck {
  if (config.memory.backend === "postgres") {
    return {
      name: "memory store",
      ok: config.memory.postgres_url !== undefined,
      detail: config.memory.postgres_url !== undefined
        ? "postgres (memory.postgres_url set)"
        : "backend postgres without memory.postgres_url: set GLEANER_MEMORY_POSTGRES_URL",
    };
  }
  const path = config.memory.path;
  if (!path || path === ":memory:") {
    return { name: "memory store", ok: true, detail: path ?? "sqlite in the data dir (default)" };
  }
  try {
    Deno.statSync(path);
    return { name: "memory store", ok: true, detail: `sqlite ${path}` };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { name: "memory store", ok: true, detail: `sqlite ${path} (created on first save)` };
    }
    const named = permissionError(error, "memory store");
    return {
      name: "memory store",
      ok: false,
      detail: named?.message ?? `${path}: ${(error as Error).message}`,
    };
  }
}
