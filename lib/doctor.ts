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
import { type Env, POSTGRES_ENV_NAMES, readHostEnv } from "./config/env.ts";
import { assertUrlAllowed } from "./net/address.ts";
import { maskUrl, safeEndpoint } from "./config/redact.ts";
import { permissionError, toGleanerError } from "./errors.ts";
import { memoryFilePath } from "./memory/stores.ts";
import { openSqliteMemoryBackend, type SqliteMemoryBackend } from "./memory/sqlite/backend.ts";
import { MEMORY_PATH, type MigrationResult } from "./store/sqlite.ts";
import { octalMode, storeFolder, type StoreMode, storeModes } from "./store/file_mode.ts";
import { lookup } from "node:dns/promises";
import type { ConfigProblem } from "./config/diagnose.ts";
import { SECRET_KEYS } from "./config/setting_index.ts";
import type { Fetcher } from "./net/types.ts";
import {
  ENV_UNSCOPED,
  FFI_UNSCOPED,
  grantsFor,
  permissionFlags,
  type PermissionGrants,
  resolvePaths,
} from "./permissions.ts";
import type { PgPool } from "./memory/postgres/client.ts";

/**
 * How a check came out: usable, usable but worth a look, not usable, or not checked (a network
 * check without `--online`, or one that could not reach the network).
 */
export type DoctorStatus = "ok" | "warn" | "fail" | "skip";

/** One check of the doctor report. */
export interface DoctorCheck {
  /** What was checked. */
  name: string;
  /** Whether it is usable. */
  ok: boolean;
  /** `ok`, `warn` (usable, but worth a look) or `fail` (not usable). */
  status: DoctorStatus;
  /** What was found, or why it is not usable. */
  detail: string;
  /** What to do about a warning or a failure. */
  fix?: string;
}

/** A check as the code below builds it: the status defaults from `ok`. */
type Draft = Omit<DoctorCheck, "status"> & { status?: DoctorStatus };

/** The doctor report. */
export interface DoctorReport {
  /** Gleaner's version. */
  version: string;
  /** True when every required check passed (optional ones may fail). */
  ok: boolean;
  /** The checks. */
  checks: DoctorCheck[];
}

/** What {@link runDoctor} may do beyond local checks. */
export interface DoctorOptions {
  /**
   * What loading the configuration found (`diagnoseConfig` in `lib/config/diagnose.ts`): the
   * file looked at and every problem, each reported as its own check.
   */
  configDiagnosis?: { file?: string; problems: readonly ConfigProblem[] };
  /**
   * Asks each configured keyed provider one cheap documented question
   * (`gleaner doctor --online`): whether its key is accepted, and what it
   * serves. Most providers count the call.
   */
  online?: boolean;
  /**
   * The environment the defaults come from (data directory, extra CA files,
   * home directory); default: a snapshot of the process environment
   * (`readHostEnv()` in `lib/config/env.ts`).
   */
  env?: Env;
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
export async function runDoctor(
  config: Config,
  options: DoctorOptions = {},
): Promise<DoctorReport> {
  const env = options.env ?? readHostEnv();
  const checks: Draft[] = [
    ...(options.configDiagnosis ? configChecks(options.configDiagnosis) : []),
    ...await permissionChecks(config),
    caCheck(env),
    await dnsCheck(),
  ];
  try {
    if (config.store.cache_url) await loadValkeyDriver();
    const store = openStore(config.store, { env });
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
  checks.push(...await memoryChecks(config, env));
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
    const status = await embedderStatus(config.embed, env);
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
  checks.push(...keyChecks(config));
  if (options.online) {
    const [{ probeProviders }, { createFetcher }] = await Promise.all([
      import("./search/providers/probe.ts"),
      import("./net/fetch.ts"),
    ]);
    const fetcher = createFetcher(config.network, { env });
    checks.push(...await keylessSearchChecks(config, fetcher));
    for (const row of await probeProviders(config, fetcher)) {
      // A call that failed for a reason that is not the key's (unreachable, busy) checked
      // nothing: it is not an ok.
      const unchecked = row.ok && row.code !== undefined;
      checks.push({
        name: `provider ${row.name} (${row.roles.join(", ")})`,
        ok: row.ok,
        ...(unchecked ? { status: "skip" as const } : {}),
        detail: unchecked ? `not checked: ${row.detail}` : row.detail,
      });
    }
  } else {
    checks.push({
      name: "web search",
      ok: true,
      status: "skip",
      detail: "not checked: that sends a search (and asks each keyed provider about its key)",
      fix: "run gleaner doctor --online",
    });
  }
  const privateNet = config.network.allow_private;
  checks.push({
    name: "ssrf protection",
    ok: true,
    detail: privateNet === false ? "on" : `relaxed: allow_private = ${JSON.stringify(privateNet)}`,
  });
  if (config.read.hister_url) checks.push(histerCheck(config));
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
  const done: DoctorCheck[] = checks.map((c) => ({
    ...c,
    status: c.status ?? (c.ok ? "ok" : "fail"),
  }));
  return { version: VERSION, ok: done.every((c) => c.ok), checks: done };
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
      why: POSTGRES_ENV_NAMES.includes(variable) ? "the PostgreSQL driver" : "settings",
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

async function permissionChecks(config: Config): Promise<Draft[]> {
  const paths = await resolvePaths(config);
  const grants = grantsFor(paths);
  const missing: string[] = [];
  const optional: string[] = [];
  for (const p of needed(grants)) {
    const { state } = await Deno.permissions.query(p.descriptor);
    if (state !== "granted") (p.optional ? optional : missing).push(`${p.flag} (${p.why})`);
  }
  const checks: Draft[] = [{
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

function caCheck(env: Env): Draft {
  try {
    const files = inspectExtraCa(env);
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

/**
 * The Hister fast path: whether the network policy lets Gleaner reach the configured server
 * (a local one must be listed in `network.allow_private`). Nothing is sent.
 */
function histerCheck(config: Config): Draft {
  const url = new URL(config.read.hister_url!);
  const shown = safeEndpoint(url);
  try {
    assertUrlAllowed(url, config.network);
    return {
      name: "browsing history (Hister)",
      ok: true,
      detail: `${shown}${config.read.hister_token ? " with read.hister_token" : ""}`,
    };
  } catch (error) {
    return {
      name: "browsing history (Hister)",
      ok: false,
      detail: `${shown} is refused by the network policy (${
        (error as Error).message
      }): add its origin to network.allow_private`,
    };
  }
}

async function dnsCheck(): Promise<Draft> {
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

/**
 * The memory section: the configured store opens, its schema is current (or
 * was brought up to date now), the vector extension loads, and the SQLite
 * file and folder are the owner's alone.
 */
async function memoryChecks(config: Config, env: Env): Promise<Draft[]> {
  const memory = config.memory;
  if (!memory.enabled) {
    return [{ name: "memory store", ok: true, detail: "turned off (memory.enabled is false)" }];
  }
  return memory.backend === "postgres"
    ? await postgresChecks(config)
    : await sqliteChecks(config, env);
}

/** Whether memories get vectors (an embedder is configured). */
function vectorsWanted(config: Config): boolean {
  return config.embed.provider !== "none";
}

function migrationCheck(from: number, to: number, applied: number[]): Draft {
  return {
    name: "memory migrations",
    ok: true,
    detail: applied.length === 0
      ? `schema ${to}: current`
      : `schema ${from} → ${to}: applied ${applied.join(", ")} now`,
  };
}

async function sqliteChecks(config: Config, env: Env): Promise<Draft[]> {
  const home = env.HOME;
  const memory = config.memory;
  let path: string;
  try {
    // Hosted mode: one file per user, each opened (and migrated) on first use;
    // their folder is checked here.
    path = memoryFilePath(memory, memory.hosted ? "gleaner-doctor" : undefined, env);
  } catch (error) {
    return [{
      name: "memory store",
      ok: false,
      detail: (error as Error).message,
      fix: `set ${
        String((error as { details?: { field?: unknown } }).details?.field ?? "memory.path")
      } (see the README's settings)`,
    }];
  }
  if (path === MEMORY_PATH) {
    return [{
      name: "memory store",
      ok: true,
      detail: "sqlite in memory (:memory:): nothing is kept",
    }];
  }
  if (memory.hosted) {
    const dir = storeFolder(path);
    const checks: Draft[] = [{
      name: "memory store",
      ok: true,
      detail: `sqlite, one file per user in ${dir} (each opened and migrated on first use)`,
    }];
    const modes = modesCheck(
      storeModes(path, { tighten: false, home }),
      () => storeModes(path, { tighten: true, home }),
    );
    if (modes) checks.push(modes);
    return checks;
  }

  const before = storeModes(path, { tighten: false, home });
  let migrated: MigrationResult | undefined;
  let backend: SqliteMemoryBackend;
  try {
    backend = openSqliteMemoryBackend(path, {
      home,
      onMigrated: (result) => (migrated = result),
    });
  } catch (error) {
    const named = permissionError((error as Error).cause ?? error, "memory store");
    const checks: Draft[] = [{
      name: "memory store",
      ok: false,
      detail: `sqlite ${path}: ${(error as Error).message}`,
      fix: named?.details?.flag
        ? `run with ${named.details.flag}${
          named.details.flag === "--allow-ffi" ? " (the sqlite-vec extension is native code)" : ""
        }`
        : "check that memory.path names a file you can write in a folder you own, or set another",
    }];
    const modes = modesCheck(before, () => storeModes(path, { tighten: false, home }));
    if (modes) checks.push(modes);
    return checks;
  }
  const checks: Draft[] = [];
  try {
    const counts = await backend.counts();
    checks.push({
      name: "memory store",
      ok: true,
      detail: `sqlite ${path} (${counts.live} ${
        counts.live === 1 ? "memory" : "memories"
      }, ${counts.pending} waiting for vectors)`,
    });
    if (migrated) checks.push(migrationCheck(migrated.from, migrated.to, migrated.applied));
    try {
      const row = backend.db.prepare("SELECT vec_version() AS v").get() as { v: string };
      const model = await backend.embeddingModel();
      checks.push({
        name: "memory vectors",
        ok: true,
        detail: `sqlite-vec ${row.v} loaded; ` + (
          !vectorsWanted(config)
            ? "unused (embed.provider is none: recall ranks with BM25 alone)"
            : model
            ? `model ${model.model}, ${model.dimensions} dimensions`
            : "no model yet (set on first use)"
        ),
      });
    } catch (error) {
      checks.push({
        name: "memory vectors",
        ok: !vectorsWanted(config),
        status: vectorsWanted(config) ? "fail" : "warn",
        detail: `sqlite-vec does not answer: ${(error as Error).message}`,
        fix: "reinstall the dependencies (deno install) so node_modules holds sqlite-vec's library",
      });
    }
  } finally {
    await backend.close();
  }
  const modes = modesCheck(before, () => storeModes(path, { tighten: false, home }));
  if (modes) checks.push(modes);
  return checks;
}

/**
 * The file-mode check from the modes found before opening and those after
 * (`after` re-reads them, or tightens them where nothing opened the store).
 */
function modesCheck(before: StoreMode[], after: () => StoreMode[]): Draft | undefined {
  if (Deno.build.os === "windows") return undefined;
  if (before.length === 0) {
    return {
      name: "memory file modes",
      ok: true,
      detail: "nothing on disk yet (created 0600 in a 0700 folder)",
    };
  }
  const loose = before.filter((m) => m.loose);
  if (loose.length === 0) {
    return {
      name: "memory file modes",
      ok: true,
      detail: before.map((m) => `${m.path} ${octalMode(m.mode)}`).join(", "),
    };
  }
  const now = new Map(after().map((m) => [m.path, m] as const));
  const left: string[] = [];
  const lines = loose.map((m) => {
    const current = now.get(m.path);
    if (current && !current.loose) {
      return `${m.kind} ${m.path} was ${octalMode(m.mode)}, tightened to ${
        octalMode(current.mode)
      }`;
    }
    left.push(m.path);
    return `${m.kind} ${m.path} is ${octalMode(current?.mode ?? m.mode)}` +
      (current?.left ?? m.left ? ` (left as it is: ${current?.left ?? m.left})` : "");
  });
  return {
    name: "memory file modes",
    ok: true,
    status: "warn",
    detail: lines.join("; "),
    fix: left.length === 0
      ? "nothing more to do: others could read the store until now, so check who had access"
      : `move memory.path into a folder only you can reach (mkdir -m 700), or chmod go-rwx ${
        left.join(" ")
      }`,
  };
}

async function postgresChecks(config: Config): Promise<Draft[]> {
  const url = config.memory.postgres_url;
  if (!url) {
    return [{
      name: "memory store",
      ok: false,
      detail: "memory.backend is postgres but memory.postgres_url is not set",
      fix: "set GLEANER_MEMORY_POSTGRES_URL (postgres://user:password@host:5432/db)",
    }];
  }
  const shown = maskUrl(url);
  // Loaded only here: SQLite users never load the PostgreSQL client.
  const [{ openPgPool, pgError }, { migratePostgres, PG_MIGRATIONS }] = await Promise.all([
    import("./memory/postgres/client.ts"),
    import("./memory/postgres/schema.ts"),
  ]);
  const checks: Draft[] = [];
  let pool: Awaited<ReturnType<typeof openPgPool>>;
  try {
    pool = await openPgPool({ url, max: 1 });
  } catch (error) {
    return [{
      name: "memory store",
      ok: false,
      detail: `postgres ${shown}: ${(error as Error).message}`,
      fix: "reinstall the dependencies (deno install) so the pg client is present",
    }];
  }
  try {
    let from: number;
    try {
      const { rows: [server] } = await pool.query<{ version: string }>(
        "SELECT current_setting('server_version') AS version",
      );
      const { rows: [table] } = await pool.query<{ t: boolean }>(
        "SELECT to_regclass('gleaner_memory_migrations') IS NOT NULL AS t",
      );
      from = table.t
        ? Number(
          (await pool.query<{ v: number | null }>(
            "SELECT max(version) AS v FROM gleaner_memory_migrations",
          )).rows[0].v ?? 0,
        )
        : 0;
      checks.push({
        name: "memory store",
        ok: true,
        detail: `postgres ${shown} (PostgreSQL ${server.version})`,
      });
    } catch (error) {
      const failure = pgError(error, "connect");
      const flag = failure.details?.flag;
      return [{
        name: "memory store",
        ok: false,
        detail: `postgres ${shown}: ${failure.message}`,
        fix: flag
          ? `grant it (${flag}${
            failure.details?.value ? `=${failure.details.value}` : ""
          }): deno task start and deno task mcp do`
          : "check that the server runs and that memory.postgres_url names its host, port, " +
            "database, user and password",
      }];
    }
    try {
      const to = await migratePostgres(pool);
      const applied = PG_MIGRATIONS.filter((m) => m.version > from && m.version <= to)
        .map((m) => m.version);
      checks.push(migrationCheck(from, to, applied));
    } catch (error) {
      checks.push({
        name: "memory migrations",
        ok: false,
        detail: pgError(error, "migrate").message,
        fix: "let the user of memory.postgres_url create tables in the database, and install " +
          "pgvector on the server (a superuser runs CREATE EXTENSION vector once)",
      });
    }
    checks.push(await pgVectorsCheck(pool, config));
  } finally {
    await pool.end().catch(() => {});
  }
  return checks;
}

/**
 * The PostgreSQL memory store's vectors: pgvector created and its library
 * loading, and how many saved vectors the instances' indexers have not moved
 * into the index yet (a backlog that stays large means they do not keep up).
 */
async function pgVectorsCheck(
  pool: PgPool,
  config: Config,
): Promise<Draft> {
  const [{ pgError }, { VectorIndexer }] = await Promise.all([
    import("./memory/postgres/client.ts"),
    import("./memory/postgres/indexer.ts"),
  ]);
  try {
    const { rows } = await pool.query<{ v: string }>(
      "SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'",
    );
    if (rows.length === 0) throw new Error("the vector extension is not created");
    // A distance proves the extension's library loads, not just its catalogue entry.
    await pool.query("SELECT '[1,0]'::vector <=> '[0,1]'::vector AS d");
    // Saved vectors the instances' indexers have not moved into the index yet
    // (a backlog that stays large means the indexers do not keep up).
    const staged = await new VectorIndexer(pool).backlog().catch(() => undefined);
    return {
      name: "memory vectors",
      ok: true,
      detail: `pgvector ${rows[0].v} loaded` +
        (vectorsWanted(config) ? "" : "; unused (embed.provider is none)") +
        (staged === undefined ? "" : `; ${staged} saved vectors waiting for the index`),
    };
  } catch (error) {
    return {
      name: "memory vectors",
      ok: false,
      detail: `pgvector: ${
        error instanceof Error && !("code" in error)
          ? error.message
          : pgError(error, "vector").message
      }`,
      fix: "install pgvector on the server and have a superuser run CREATE EXTENSION vector",
    };
  }
}

/** The configuration's problems, one check each; an ok line when there is none. */
function configChecks(diagnosis: { file?: string; problems: readonly ConfigProblem[] }): Draft[] {
  const source = diagnosis.file ? `file ${diagnosis.file}` : "no file";
  if (diagnosis.problems.length === 0) {
    return [{ name: "config", ok: true, detail: `${source}; every setting is valid` }];
  }
  return diagnosis.problems.map((problem) => ({
    name: `config ${problem.setting}`,
    ok: problem.status !== "fail",
    status: problem.status,
    detail: problem.message,
    fix: problem.fix,
  }));
}

/**
 * The settings that hold a key or token (not URLs, passwords or HMAC secrets): one word each,
 * never white space.
 */
function keyValues(config: Config): { setting: string; value: string }[] {
  const out: { setting: string; value: string }[] = [];
  const sections = config as unknown as Record<string, Record<string, unknown>>;
  for (const path of SECRET_KEYS) {
    if (!/(api_key|token|admin_key)$/.test(path)) continue;
    const [section, key] = path.split(".");
    const value = sections[section]?.[key];
    if (typeof value === "string") out.push({ setting: path, value });
  }
  for (const [name, settings] of Object.entries(config.search.providers ?? {})) {
    const value = (settings as { api_key?: unknown } | undefined)?.api_key;
    if (typeof value === "string") {
      out.push({ setting: `search.providers.${name}.api_key`, value });
    }
  }
  return out;
}

/** White space, a control character or an invisible one (zero-width, BOM, soft hyphen). */
function oddCharacter(char: string): boolean {
  const code = char.charCodeAt(0);
  return /\s/.test(char) || code < 0x20 || code === 0x7f || code === 0xad ||
    (code >= 0x200b && code <= 0x200f) || code === 0x2060 || code === 0xfeff;
}

/**
 * What is wrong with a key's characters, in words (never the key), or `undefined`.
 *
 * @example
 * ```ts
 * import { keyFormatProblem } from "./doctor.ts";
 * console.assert(keyFormatProblem("sk-abc123\n") === "contains a line break (at the end)");
 * console.assert(keyFormatProblem("sk abc") === "contains a space (inside)");
 * console.assert(keyFormatProblem("sk-abc123") === undefined);
 * ```
 *
 * @internal exported for tests only
 */
export function keyFormatProblem(value: string): string | undefined {
  if (value === "") return "is empty";
  const at = [...value].findIndex(oddCharacter);
  if (at === -1) return undefined;
  const chars = [...value];
  const char = chars[at];
  const what = char === "\n" || char === "\r" || char === "\u2028" || char === "\u2029"
    ? "a line break"
    : char === " " || char === "\u00a0"
    ? "a space"
    : char === "\t"
    ? "a tab"
    : "an invisible character";
  const where = at === 0
    ? "at the start"
    : chars.slice(at).every(oddCharacter)
    ? "at the end"
    : "inside";
  return `contains ${what} (${where})`;
}

/**
 * Every key and token set has the form of one: no white space, no line break, no invisible
 * character (a copy-paste that took the line's end along). The value is never shown.
 */
function keyChecks(config: Config): Draft[] {
  const keys = keyValues(config);
  const bad = keys.flatMap(({ setting, value }) => {
    const problem = keyFormatProblem(value);
    return problem ? [{ setting, problem }] : [];
  });
  if (bad.length === 0) {
    return keys.length === 0 ? [] : [{
      name: "keys",
      ok: true,
      detail: `${keys.length} set, each one word: ${keys.map((k) => k.setting).join(", ")}`,
    }];
  }
  return bad.map(({ setting, problem }) => ({
    name: `key ${setting}`,
    ok: false,
    detail: `${setting} ${problem}: a key or token never does`,
    fix: `set ${setting} again without it`,
  }));
}

/** Codes of a failed search that the configuration causes (the others: the network, the engine). */
const CONFIG_CODES = new Set(["blocked_url", "invalid_arguments", "unauthorized"]);

/**
 * `--online`: one search through each keyless search engine the configuration uses (DuckDuckGo,
 * SearXNG). A refusal the configuration causes fails; an engine that could not be reached is
 * not checked, and says why.
 */
async function keylessSearchChecks(config: Config, fetcher: Fetcher): Promise<Draft[]> {
  const engines = usableProviders(config, "search").filter((p) => p.keyless && p.search);
  // Side by side: each engine is its own host, paced on its own.
  return await Promise.all(engines.map(async (provider): Promise<Draft> => {
    try {
      const hits = await provider.search!({ query: "gleaner", max_results: 1 }, {
        config,
        fetcher,
      });
      return {
        name: `web search ${provider.name}`,
        ok: true,
        detail: `answered a one-result search (${hits.length} result${
          hits.length === 1 ? "" : "s"
        })`,
      };
    } catch (error) {
      const failure = toGleanerError(error, provider.name);
      const configured = CONFIG_CODES.has(failure.code);
      return {
        name: `web search ${provider.name}`,
        ok: !configured,
        status: configured ? "fail" : "skip",
        detail: `${configured ? "" : "not checked: "}${failure.code}: ${failure.message}`,
        fix: configured
          ? "change the setting the message names"
          : "check the network (offline? a proxy: network.proxy_url), then run again",
      };
    }
  }));
}

/** Labels of the text report, one width. */
const LABELS: Record<DoctorStatus, string> = {
  ok: "ok  ",
  warn: "warn",
  fail: "FAIL",
  skip: "skip",
};

/**
 * The report as text: a line per check (`ok`, `warn`, `FAIL`, `skip` for not checked), its
 * fix on the same line, then a summary line.
 *
 * @example
 * ```ts
 * import { formatDoctorReport } from "./doctor.ts";
 * const text = formatDoctorReport({
 *   version: "1.0.0",
 *   ok: false,
 *   checks: [
 *     { name: "store", ok: true, status: "ok", detail: "gleaner.db" },
 *     { name: "key search.providers.brave.api_key", ok: false, status: "fail", detail: "contains a line break", fix: "set it again" },
 *   ],
 * });
 * console.assert(text.includes("FAIL key search.providers.brave.api_key: contains a line break; fix: set it again"));
 * console.assert(text.trimEnd().endsWith("1 failed, 0 warnings, 0 not checked"));
 * ```
 */
export function formatDoctorReport(report: DoctorReport): string {
  const lines = [`gleaner doctor ${report.version}`];
  for (const check of report.checks) {
    lines.push(
      `${LABELS[check.status]} ${check.name}: ${check.detail}${
        check.fix && check.status !== "ok" ? `; fix: ${check.fix}` : ""
      }`,
    );
  }
  const count = (status: DoctorStatus) => report.checks.filter((c) => c.status === status).length;
  const warnings = count("warn");
  lines.push(
    `${count("fail")} failed, ${warnings} warning${warnings === 1 ? "" : "s"}, ${
      count("skip")
    } not checked`,
  );
  return lines.join("\n") + "\n";
}
