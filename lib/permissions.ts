/**
 * The narrowest Deno permissions Gleaner needs on this machine, resolved from
 * the configuration and the environment at start: what `gleaner doctor`
 * prints and what `deno task start` / `deno task mcp` grant (through
 * `scripts/launch.ts`).
 *
 * | flag            | scope                                                                                     |
 * | --------------- | ----------------------------------------------------------------------------------------- |
 * | `--allow-net`   | open: Gleaner reads the web; the SSRF guard (`lib/net/`) is the fence                     |
 * | `--allow-sys`   | open: `node:https` loads its trust store with sys access to `"ca"`, which cannot be named |
 * | `--allow-env`   | the names of `ENV_NAMES` (`lib/config/env_names.ts`, generated from the config schema),   |
 * |                 | with the PostgreSQL driver's `POSTGRES_ENV_NAMES` when the memory store is on PostgreSQL; |
 * |                 | whole with a Valkey cache server (`store.cache_url`): see {@link ENV_UNSCOPED}            |
 * | `--allow-read`  | the config file, the tier rules file, the data directory, the store and memory files'     |
 * |                 | folders, the hosted mode's user folder, the models,                                       |
 * |                 | the extra CA files, Chromium's profile folder, Gleaner's own folder (workers' modules);   |
 * |                 | on PostgreSQL the password file (`PGPASSFILE`, else `~/.pgpass`) when the URL has no      |
 * |                 | password, the `sslcert`/`sslkey`/`sslrootcert` files the URL names and its Unix socket    |
 * |                 | folder                                                                                    |
 * | `--allow-write` | the data directory, the store and memory files' folders, the hosted mode's user folder,   |
 * |                 | Chromium's profile folder; the config file's folder with `server.allow_config_write`;     |
 * |                 | on PostgreSQL over a Unix socket, the socket's folder                                     |
 * | `--allow-run`   | the Chromium executable the browser tier would launch (none when there is none)           |
 * | `--allow-ffi`   | open: see {@link FFI_UNSCOPED} (it loads sqlite-vec's library only)                       |
 *
 * `--no-prompt` too: a grant that is missing fails with an error naming the flag instead of
 * asking on the terminal.
 *
 * The module loads neither the config schema nor an npm package (sqlite-vec's library is
 * looked up only when asked, for `gleaner doctor`): the launcher runs it before every start.
 *
 * Permissions: this module reads the environment names of `ENV_NAMES`
 * and stats the Chromium candidates (read access to them).
 *
 * @module
 */
import {
  configFilePath,
  type Env,
  gleanerDataDir,
  POSTGRES_ENV_NAMES,
  readEnv,
} from "./config/env.ts";
import { ENV_NAMES } from "./config/env_names.ts";
import type { PathSettings } from "./config/path_settings.ts";
import { chromiumProfileRoot, findChromium } from "./read/browser/chromium.ts";

/** The directories and files Gleaner touches, resolved for this machine. */
export interface GleanerPaths {
  /** The config file looked for (it need not exist). */
  config_file?: string;
  /**
   * The config file's folder when `PUT /config` may write settings to it
   * (`server.allow_config_write`): a temporary file there is renamed over it.
   */
  config_write_dir?: string;
  /** The per-user data directory (`$XDG_DATA_HOME/gleaner`). */
  data_dir?: string;
  /** The cache store's SQLite file (`undefined` when in memory or in the data dir by default). */
  store_file?: string;
  /** The memory SQLite file (`undefined` when in memory, on PostgreSQL or in the data dir). */
  memory_file?: string;
  /** The hosted mode's per-user memory folder when `memory.hosted_dir` sets it. */
  hosted_dir?: string;
  /** The tier rules file (`read.tier_rules_path`). */
  tier_rules?: string;
  /** The NATS credentials and CA files (`events.nats_credentials_file`, `events.nats_ca_file`). */
  nats_files?: string[];
  /** The browser tier's filter lists (`read.block_lists`). */
  block_lists?: string[];
  /** Model directories read (the shipped static model, `embed.models_dir`). */
  models: string[];
  /**
   * Gleaner's own files when it runs from files (a checkout): Deno checks read
   * access for every module a worker loads (`lib/extract/worker.ts`,
   * `lib/embed/use_lite_worker.ts` and their imports, npm packages included).
   * Run from a registry (JSR), Deno's cache directory, where the workers' npm
   * packages are (`$DENO_DIR`, else `$XDG_CACHE_HOME/deno` or `~/.cache/deno`).
   */
  code?: string;
  /** Extra CA files (`NODE_EXTRA_CA_CERTS`, `DENO_CERT`). */
  ca_files: string[];
  /** The folder of the browser tier's throwaway Chromium profiles. */
  chromium_profiles: string;
  /** The Chromium executable, when one is configured or found. */
  chromium?: string;
  /** True when a Valkey cache server is configured (`store.cache_url`). */
  valkey?: boolean;
  /** sqlite-vec's loadable library, when it can be resolved (and was asked for). */
  sqlite_vec?: string;
  /** What the PostgreSQL driver touches, when the memory store is on PostgreSQL. */
  postgres?: PostgresPaths;
}

/** The files and folders the PostgreSQL driver (`npm:pg`) touches for `memory.postgres_url`. */
export interface PostgresPaths {
  /**
   * The password file the driver reads when the URL gives no password and the server asks for
   * one (`PGPASSFILE`, else `~/.pgpass`).
   */
  pgpass?: string;
  /** The `sslcert`, `sslkey` and `sslrootcert` files the URL names (read when it is parsed). */
  ssl_files: string[];
  /** The folder of the Unix socket the URL (or `PGHOST`) names (connecting needs read and write). */
  socket_dir?: string;
}

/** Scoped grants: a list of values per permission; `true` where the grant stays open. */
export interface PermissionGrants {
  /** Always open (see the module doc). */
  net: true;
  /** Always open (see the module doc). */
  sys: true;
  /** The environment names Gleaner reads (`ENV_NAMES`, …); `true`: the whole environment. */
  env: string[] | true;
  /** Paths that may be read. */
  read: string[];
  /** Paths that may be written. */
  write: string[];
  /** Executables that may be run. */
  run: string[];
  /** The libraries Gleaner loads (sqlite-vec); the grant itself stays open. */
  ffi: string[];
}

/**
 * Why `--allow-env` is whole when a Valkey cache server is configured: the
 * driver `iovalkey` depends on `debug@4`, which enumerates the environment
 * when it loads (`Object.keys(process.env)`, looking for `DEBUG_*`), and Deno
 * answers an enumeration only under the whole `--allow-env`. Without
 * `store.cache_url` the driver is never loaded (`lib/store/valkey_client.ts`).
 */
export const ENV_UNSCOPED: string =
  "store.cache_url: iovalkey's debug@4 enumerates the whole environment when it loads";

/**
 * Why `--allow-ffi` stays whole: in Deno 2.9 `node:sqlite` opens a database
 * with `allowExtension: true` (needed to load sqlite-vec into the memory
 * file) only under the whole `--allow-ffi`; `--allow-ffi=<vec0.so>` is
 * refused with "Requires ffi access" before any library is named.
 */
export const FFI_UNSCOPED: string =
  "node:sqlite's allowExtension (for sqlite-vec) asks for the whole --allow-ffi in Deno 2.9";

/** The shipped static model (`STATIC_MODEL_URL` of `lib/embed/static.ts`, not imported: the launcher stays light). */
const STATIC_MODEL_URL: URL = new URL("../models/static/", import.meta.url);

/** The folder of Gleaner's own modules (`lib/` is in it). */
const CODE_ROOT: URL = new URL("../", import.meta.url);

/** Options of {@link resolvePaths} and {@link permissionGrants}. */
export interface PermissionOptions {
  /** The environment (default: the process environment, `ENV_NAMES` only). */
  env?: Env;
  /** The config file given with `--config` (default: `$GLEANER_CONFIG` or the XDG path). */
  configFile?: string;
  /** Working directory that relative store paths resolve against (default: `Deno.cwd()`). */
  cwd?: string;
  /**
   * Look up sqlite-vec's library (loads the `sqlite-vec` package; default `true`). Its grant
   * is the whole `--allow-ffi` either way: the launcher leaves it out.
   */
  libraries?: boolean;
}

/**
 * The paths Gleaner would touch with `config` (the whole configuration, or the
 * {@link PathSettings} the launcher reads) on this machine.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "@gleaner/gleaner";
 * import { resolvePaths } from "./permissions.ts";
 * const paths = await resolvePaths(parseConfig({}), { env: { HOME: "/home/a" } });
 * console.assert(paths.data_dir === "/home/a/.local/share/gleaner");
 * ```
 */
export async function resolvePaths(
  config: PathSettings,
  options: PermissionOptions = {},
): Promise<GleanerPaths> {
  const env = options.env ?? readEnv([...ENV_NAMES, ...POSTGRES_ENV_NAMES]);
  const cwd = options.cwd ?? Deno.cwd();
  const file = (path: string | undefined) =>
    path === undefined || path === "" || path === ":memory:" ? undefined : absolute(path, cwd, env);
  const models: string[] = [];
  if (config.embed.provider === "static" && STATIC_MODEL_URL.protocol === "file:") {
    models.push(filePath(STATIC_MODEL_URL));
  }
  if (config.embed.models_dir) models.push(absolute(config.embed.models_dir, cwd, env));
  let chromium: string | undefined;
  if (!config.read.browser_cdp_url && config.read.render !== "never") {
    chromium = await findChromium(config).catch(() => undefined);
  }
  let sqliteVec: string | undefined;
  if (options.libraries !== false) {
    try {
      sqliteVec = (await import("sqlite-vec")).getLoadablePath();
    } catch {
      // An unsupported platform: memory runs without vectors.
    }
  }
  const configFile = options.configFile ?? configFilePath(env);
  return {
    config_file: configFile,
    config_write_dir: config.server.allow_config_write && configFile
      ? dirname(absolute(configFile, cwd, env))
      : undefined,
    data_dir: gleanerDataDir(env),
    store_file: file(config.store.path),
    memory_file: config.memory.backend === "sqlite" ? file(config.memory.path) : undefined,
    hosted_dir: config.memory.hosted && config.memory.hosted_dir
      ? absolute(config.memory.hosted_dir, cwd, env)
      : undefined,
    tier_rules: file(config.read.tier_rules_path),
    nats_files: [config.events.nats_credentials_file, config.events.nats_ca_file]
      .map(file).filter((path) => path !== undefined),
    block_lists: (config.read.block_lists ?? []).map(file).filter((path) => path !== undefined),
    models,
    code: CODE_ROOT.protocol === "file:"
      ? filePath(CODE_ROOT).replace(/\/$/, "")
      : denoCacheDir(env),
    ca_files: ["NODE_EXTRA_CA_CERTS", "DENO_CERT"].map((name) => env[name] ?? "")
      .filter((path) => path !== "").map((path) => absolute(path, cwd, env)),
    chromium_profiles: chromiumProfileRoot(env),
    chromium,
    sqlite_vec: sqliteVec,
    valkey: config.store.cache_url !== undefined,
    postgres: config.memory.enabled && config.memory.backend === "postgres"
      ? postgresPaths(config.memory.postgres_url, env, cwd)
      : undefined,
  };
}

/**
 * What the PostgreSQL driver touches for `url`, read as `pg-connection-string` reads it: the
 * host from `?host=`, the URL's host (`%2F…` for a socket folder), a `socket:` URL or a bare
 * path, else `PGHOST`; a host that starts with `/` is a Unix socket folder.
 *
 * @example
 * ```ts
 * import { postgresPaths } from "./permissions.ts";
 * const paths = postgresPaths("postgres://g@%2Frun%2Fpostgresql/g?sslrootcert=ca.pem", {
 *   HOME: "/home/a",
 * }, "/srv");
 * console.assert(paths.socket_dir === "/run/postgresql" && paths.ssl_files[0] === "/srv/ca.pem");
 * console.assert(paths.pgpass === "/home/a/.pgpass");
 * ```
 *
 * @internal exported for tests only
 */
export function postgresPaths(url: string | undefined, env: Env, cwd: string): PostgresPaths {
  let host: string | undefined;
  let password = "";
  const ssl: string[] = [];
  if (url?.startsWith("/")) {
    host = url.split(" ")[0];
  } else if (url) {
    let parsed: URL | undefined;
    let dummyHost = false;
    try {
      parsed = new URL(url, "postgres://base");
    } catch {
      try {
        parsed = new URL(url.replace("@/", "@___DUMMY___/"), "postgres://base");
        dummyHost = true;
      } catch {
        // The server refuses the URL and says why.
      }
    }
    if (parsed) {
      const query = parsed.searchParams;
      password = query.get("password") || safeDecode(parsed.password);
      for (const name of ["sslcert", "sslkey", "sslrootcert"]) {
        const file = query.get(name);
        if (file) ssl.push(absolute(file, cwd, env));
      }
      host = parsed.protocol === "socket:" ? safeDecode(parsed.pathname) : query.get("host") ||
        safeDecode((dummyHost ? "" : parsed.hostname).replace(/^\[(.+)\]$/, "$1"));
    }
  }
  host ||= env.PGHOST;
  const pgpass = password || env.PGPASSWORD !== undefined
    ? undefined
    : env.PGPASSFILE || (env.HOME ? `${env.HOME.replace(/\/+$/, "")}/.pgpass` : undefined);
  return {
    pgpass: pgpass ? absolute(pgpass, cwd, env) : undefined,
    ssl_files: ssl,
    socket_dir: host?.startsWith("/") ? host.replace(/(.)\/+$/, "$1") : undefined,
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The scoped grants for `config` on this machine (see the module doc).
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "@gleaner/gleaner";
 * import { permissionGrants } from "./permissions.ts";
 * const grants = await permissionGrants(parseConfig({}), { env: { HOME: "/home/a" } });
 * console.assert(grants.write.includes("/home/a/.local/share/gleaner"));
 * ```
 */
export async function permissionGrants(
  config: PathSettings,
  options: PermissionOptions = {},
): Promise<PermissionGrants> {
  return grantsFor(await resolvePaths(config, options));
}

/**
 * The grants that follow from resolved paths.
 *
 * @example
 * ```ts
 * import { grantsFor } from "./permissions.ts";
 * const grants = grantsFor({
 *   data_dir: "/d/gleaner",
 *   memory_file: "/m/memory.db",
 *   models: [],
 *   ca_files: [],
 *   chromium_profiles: "/tmp/gleaner-chromium",
 * });
 * console.assert(grants.write.join() === "/d/gleaner,/m,/tmp/gleaner-chromium");
 * ```
 */
export function grantsFor(paths: GleanerPaths): PermissionGrants {
  const folders = [paths.store_file, paths.memory_file].filter((p) => p !== undefined)
    .map(dirname);
  const pg = paths.postgres;
  const write = unique([
    paths.data_dir,
    ...folders,
    paths.hosted_dir,
    paths.chromium_profiles,
    paths.config_write_dir,
    pg?.socket_dir,
  ]);
  return {
    net: true,
    sys: true,
    env: paths.valkey ? true : unique([...ENV_NAMES, ...(pg ? POSTGRES_ENV_NAMES : [])]),
    read: unique([
      paths.config_file,
      paths.tier_rules,
      ...(paths.nats_files ?? []),
      ...(paths.block_lists ?? []),
      ...write,
      ...paths.models,
      paths.code,
      // The browser tier checks that the executable is a file before it runs it.
      paths.chromium,
      ...paths.ca_files,
      pg?.pgpass,
      ...pg?.ssl_files ?? [],
    ]),
    write,
    run: unique([paths.chromium]),
    ffi: unique([paths.sqlite_vec]),
  };
}

/**
 * The `deno run` flags of `grants`: open flags bare (`--allow-net`,
 * `--allow-sys`, `--allow-ffi`: see {@link FFI_UNSCOPED}; `--allow-env`
 * when `env` is `true`, see {@link ENV_UNSCOPED}), scoped ones as
 * `--allow-x=a,b`; a permission with nothing to grant is left out. Then
 * `--no-prompt`: what is not granted fails (naming the flag) instead of asking.
 *
 * @example
 * ```ts
 * import { permissionFlags } from "./permissions.ts";
 * const flags = permissionFlags({
 *   net: true, sys: true, env: ["HOME"], read: ["/d"], write: ["/d"], run: [], ffi: [],
 * });
 * console.assert(
 *   flags.join(" ") ===
 *     "--allow-net --allow-sys --allow-ffi --allow-env=HOME --allow-read=/d --allow-write=/d --no-prompt",
 * );
 * ```
 */
export function permissionFlags(grants: PermissionGrants): string[] {
  const flags = ["--allow-net", "--allow-sys", "--allow-ffi"];
  if (grants.env === true) flags.push("--allow-env");
  for (const name of ["env", "read", "write", "run"] as const) {
    const values = grants[name];
    if (values !== true && values.length > 0) flags.push(`--allow-${name}=${values.join(",")}`);
  }
  flags.push("--no-prompt");
  return flags;
}

function denoCacheDir(env: Env): string | undefined {
  if (env.DENO_DIR) return env.DENO_DIR;
  const base = env.XDG_CACHE_HOME || (env.HOME ? `${env.HOME}/.cache` : undefined);
  return base ? `${base}/deno` : undefined;
}

function unique(values: (string | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => v !== undefined && v !== ""))];
}

function dirname(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash > 0 ? path.slice(0, slash) : "/";
}

/** The path of a `file:` URL (percent-decoded; a drive letter's leading `/` dropped). */
function filePath(url: URL): string {
  const path = decodeURIComponent(url.pathname);
  return /^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path;
}

function absolute(path: string, cwd: string, env: Env): string {
  if (path.startsWith("/")) return path;
  if (path.startsWith("~/") && env.HOME) return `${env.HOME}${path.slice(1)}`;
  return `${cwd.replace(/\/+$/, "")}/${path.replace(/^\.\//, "")}`;
}
