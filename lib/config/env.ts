/**
 * The one place Gleaner reads the process environment, and the paths that
 * follow from it. Every other module receives what it needs (a config
 * section, an `env` record or a path) from its caller; the layering test
 * (`tests/layering_test.ts`) fails on a `Deno.env` or `process.env` read
 * anywhere else.
 *
 * @example
 * ```ts
 * import { gleanerDataDir } from "./env.ts";
 * console.assert(gleanerDataDir({ XDG_DATA_HOME: "/data" }) === "/data/gleaner");
 * console.assert(gleanerDataDir({ XDG_DATA_HOME: "", HOME: "/home/a" }) === "/home/a/.local/share/gleaner");
 * ```
 *
 * Permissions: env access to the names it is asked for (`readEnv(names)`; the whole environment
 * when `--allow-env` is whole); nothing else.
 *
 * @module
 */

/** An environment as a plain record (the shape {@link readEnv} returns). */
export type Env = Record<string, string | undefined>;

/**
 * The environment names Gleaner reads besides its settings' own names
 * (`GLEANER_*` and the aliases, which `envNames()` in `config.ts` lists from
 * the schema): the per-user directories, the temporary directory (the
 * browser tier's profiles), the extra CA files, the standard
 * proxy variables and the OpenTelemetry variables. The scoped
 * `--allow-env=…` of the tasks is this list plus the schema's names.
 */
export const PROCESS_ENV_NAMES: readonly string[] = [
  "HOME",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "TMPDIR",
  "NODE_EXTRA_CA_CERTS",
  // Read by node:https (Deno 2.9) whenever NODE_EXTRA_CA_CERTS is set.
  "NODE_USE_SYSTEM_CA",
  "DENO_CERT",
  // Where Deno keeps npm packages when Gleaner runs from JSR (lib/permissions.ts grants it).
  "DENO_DIR",
  "HTTPS_PROXY",
  "https_proxy",
  "HTTP_PROXY",
  "http_proxy",
  "NO_PROXY",
  "no_proxy",
  "OTEL_SDK_DISABLED",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
  "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
  "OTEL_EXPORTER_OTLP_PROTOCOL",
  "OTEL_EXPORTER_OTLP_TIMEOUT",
  "OTEL_TRACES_EXPORTER",
  "OTEL_METRICS_EXPORTER",
  "OTEL_BSP_SCHEDULE_DELAY",
  "OTEL_BSP_MAX_QUEUE_SIZE",
  "OTEL_METRIC_EXPORT_INTERVAL",
  "OTEL_RESOURCE_ATTRIBUTES",
  "OTEL_SERVICE_NAME",
];

/**
 * Environment names Gleaner's npm dependencies read by name when they load
 * (measured under the scoped grant: a read of an ungranted name throws in
 * Deno): `ws` (through puppeteer-core, the browser tier) reads
 * `WS_NO_BUFFER_UTIL` and `WS_NO_UTF_8_VALIDATE`; puppeteer-core reads its
 * `PUPPETEER_*` switches and `CHROME_CONFIG_HOME` when it launches Chromium.
 * Part of the scoped
 * `--allow-env=…` list.
 */
export const DEPENDENCY_ENV_NAMES: readonly string[] = [
  "WS_NO_BUFFER_UTIL",
  "WS_NO_UTF_8_VALIDATE",
  "PUPPETEER_WEBDRIVER_BIDI_ONLY",
  "PUPPETEER_TEST_EXPERIMENTAL_CHROME_FEATURES",
  "PUPPETEER_DANGEROUS_NO_SANDBOX",
  "CHROME_CONFIG_HOME",
  // Deno's node:child_process reads it on every spawn (puppeteer-core spawns Chromium).
  "NODE_V8_COVERAGE",
];

/**
 * Environment names the PostgreSQL driver (`npm:pg` 8.23 with `pg-connection-string` and
 * `pgpass`) reads for what `memory.postgres_url` leaves out, the libpq conventions: in
 * `pg/lib/connection-parameters.js` `PGUSER`, `PGDATABASE`, `PGPORT`, `PGHOST`,
 * `PGPASSWORD`, `PGBINARY`, `PGOPTIONS`, `PGCLIENT_ENCODING`, `PGREPLICATION`, `PGAPPNAME`,
 * `PGSSLMODE`, `PGSSLNEGOTIATION` and `PGCONNECT_TIMEOUT`; the default user `USER`
 * (`USERNAME` on Windows) in `pg/lib/defaults.js`; `NODE_PG_FORCE_NATIVE` in `pg/lib/index.js`;
 * `PGPASSFILE` and `PGPASS_NO_DEESCAPE` (`APPDATA` on Windows) in `pgpass/lib/helper.js`.
 * Granted (scoped `--allow-env=…`, `lib/permissions.ts`) only when the memory store is on
 * PostgreSQL: the driver is loaded only then. Giving every connection parameter explicitly
 * would not spare the reads: the driver consults the environment for every parameter given
 * as a false value (`binary: false`, an empty password).
 */
export const POSTGRES_ENV_NAMES: readonly string[] = [
  "PGUSER",
  "PGDATABASE",
  "PGPORT",
  "PGHOST",
  "PGPASSWORD",
  "PGBINARY",
  "PGOPTIONS",
  "PGCLIENT_ENCODING",
  "PGREPLICATION",
  "PGAPPNAME",
  "PGSSLMODE",
  "PGSSLNEGOTIATION",
  "PGCONNECT_TIMEOUT",
  "PGPASSFILE",
  "PGPASS_NO_DEESCAPE",
  "NODE_PG_FORCE_NATIVE",
  "USER",
  "USERNAME",
  "APPDATA",
];

/**
 * The variables a launched Chromium gets from Gleaner's environment (and no
 * others: keys and settings stay with Gleaner): where home, temporary space
 * and caches are, the program path, the locale, the time zone and the font
 * configuration. Part of the scoped `--allow-env=…` list.
 */
export const CHROMIUM_ENV_NAMES: readonly string[] = [
  "HOME",
  "TMPDIR",
  "PATH",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "TZ",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "XDG_RUNTIME_DIR",
  "FONTCONFIG_PATH",
  "FONTCONFIG_FILE",
];

/**
 * The variables the composition root (`lib/gleaner.ts`, the doctor, the
 * permission planner) reads once and hands down as an {@link Env} snapshot:
 * {@link PROCESS_ENV_NAMES} (data directories, temporary space, CA files,
 * OpenTelemetry) and {@link CHROMIUM_ENV_NAMES} (what a launched Chromium
 * gets). Library modules take what they need from that snapshot and never
 * read the environment themselves.
 *
 * @internal exported for tests only
 */
export const HOST_ENV_NAMES: readonly string[] = [
  ...new Set([...PROCESS_ENV_NAMES, ...CHROMIUM_ENV_NAMES]),
];

/**
 * The snapshot of {@link HOST_ENV_NAMES} an entry point reads once at start-up
 * and passes to the modules that need a default from the environment (the
 * data directory, the temporary directory, the extra CA files, the
 * OpenTelemetry exporter, Chromium's environment).
 *
 * @example
 * ```ts
 * import { readHostEnv } from "./env.ts";
 * console.assert(typeof readHostEnv() === "object");
 * ```
 */
export function readHostEnv(): Env {
  return readEnv(HOST_ENV_NAMES);
}

/**
 * The process environment as a plain object. With the whole `--allow-env`
 * that is every variable; with a scoped `--allow-env=A,B,…` (as the tasks
 * grant it) it is the variables of `names` that are granted and set (the
 * default: {@link PROCESS_ENV_NAMES}); empty when no env access is granted
 * (Gleaner then runs on its defaults and explicit settings).
 *
 * @example
 * ```ts
 * import { readEnv } from "./env.ts";
 * const env = readEnv(["HOME"]);
 * console.assert(typeof env === "object");
 * ```
 */
export function readEnv(names: readonly string[] = PROCESS_ENV_NAMES): Env {
  // Queried first: an ungranted read would prompt on a terminal instead of failing.
  if (granted({ name: "env" })) return Deno.env.toObject();
  const env: Env = {};
  for (const name of names) {
    if (!granted({ name: "env", variable: name })) continue;
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * True when the whole environment may be read (`--allow-env` without a
 * list): what a dependency that enumerates it (`Object.keys(process.env)`)
 * needs. Asks without prompting.
 *
 * @example
 * ```ts
 * import { wholeEnvGranted } from "./env.ts";
 * console.assert(typeof wholeEnvGranted() === "boolean");
 * ```
 */
export function wholeEnvGranted(): boolean {
  return granted({ name: "env" });
}

function granted(descriptor: Deno.EnvPermissionDescriptor): boolean {
  try {
    return Deno.permissions.querySync(descriptor).state === "granted";
  } catch {
    return false;
  }
}

/**
 * Gleaner's per-user data directory: `$XDG_DATA_HOME/gleaner` when
 * `XDG_DATA_HOME` is set and not empty (as the XDG Base Directory
 * specification says: an empty value counts as unset), else
 * `$HOME/.local/share/gleaner`; `undefined` when neither is known.
 *
 * @example
 * ```ts
 * import { gleanerDataDir } from "./env.ts";
 * console.assert(gleanerDataDir({ HOME: "/home/a" }) === "/home/a/.local/share/gleaner");
 * console.assert(gleanerDataDir({}) === undefined);
 * ```
 */
export function gleanerDataDir(env: Env): string | undefined {
  const base = env.XDG_DATA_HOME || (env.HOME ? `${env.HOME}/.local/share` : undefined);
  return base ? `${base.replace(/\/+$/, "")}/gleaner` : undefined;
}

/**
 * Where the config file is looked for: `$GLEANER_CONFIG`, else
 * `$XDG_CONFIG_HOME/gleaner/config.json`, else `$HOME/.config/gleaner/config.json`;
 * `undefined` when none of them is known.
 *
 * @example
 * ```ts
 * import { configFilePath } from "./env.ts";
 * console.assert(configFilePath({ HOME: "/home/a" }) === "/home/a/.config/gleaner/config.json");
 * console.assert(configFilePath({ GLEANER_CONFIG: "/etc/g.json", HOME: "/home/a" }) === "/etc/g.json");
 * ```
 */
export function configFilePath(env: Env): string | undefined {
  if (env.GLEANER_CONFIG) return env.GLEANER_CONFIG;
  const base = env.XDG_CONFIG_HOME ?? (env.HOME ? `${env.HOME}/.config` : undefined);
  return base ? `${base}/gleaner/config.json` : undefined;
}
