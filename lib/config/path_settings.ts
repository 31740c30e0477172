/**
 * The few settings that decide which paths, programs and environment names Gleaner
 * needs (`lib/permissions.ts`), read from the same layers as `loadConfig`, highest
 * first: `--set` flags, the environment (`GLEANER_<SECTION>_<KEY>` and the aliases of
 * {@link ENV_ALIASES}), the config file, the defaults. The launcher behind
 * `deno task start` / `deno task mcp` (`scripts/launch.ts`) reads them before every
 * start without the schema, so it loads no validation library; `loadConfig` stays the
 * judge of every value (one it refuses is passed on as given, and the server explains
 * it). `lib/config/path_settings_test.ts` holds the two readers equal, layer by layer.
 *
 * Permissions: read access to the config file.
 *
 * @module
 */
import type { Config } from "./schema.ts";
import { ENV_ALIASES } from "./env_names.ts";
import { configFilePath, type Env } from "./env.ts";
import { parseConfigText } from "./jsonc.ts";

/** The settings {@link loadPathSettings} reads (a subset of {@link Config}). */
export interface PathSettings {
  /** Whether `PUT /config` may write the config file (environment only). */
  server: Pick<Config["server"], "allow_config_write">;
  /** The cache store's file and server. */
  store: Pick<Config["store"], "path" | "cache_url">;
  /** The memory store's engine, file, server and hosted-mode folder. */
  memory: Pick<
    Config["memory"],
    "enabled" | "backend" | "postgres_url" | "path" | "hosted" | "hosted_dir"
  >;
  /** The embedder and its model folder. */
  embed: Pick<Config["embed"], "provider" | "models_dir">;
  /** The browser tier's executable and endpoint, and the tier rules file. */
  read: Pick<
    Config["read"],
    "render" | "chrome_path" | "browser_cdp_url" | "tier_rules_path" | "block_lists"
  >;
  /** The NATS credentials and CA files of the events publisher. */
  events: Pick<Config["events"], "nats_credentials_file" | "nats_ca_file">;
}

/**
 * The schema's defaults of {@link PathSettings} (settings without a default are left out).
 *
 * @internal exported for tests only
 */
export const PATH_DEFAULTS: Readonly<Record<string, string | boolean>> = {
  "server.allow_config_write": false,
  "memory.enabled": true,
  "memory.backend": "sqlite",
  "memory.hosted": false,
  "embed.provider": "static",
  "read.render": "auto",
};

/**
 * Every `section.key` of {@link PathSettings}.
 *
 * @internal exported for tests only
 */
export const PATH_SETTING_KEYS: readonly string[] = [
  "server.allow_config_write",
  "store.path",
  "store.cache_url",
  "memory.enabled",
  "memory.backend",
  "memory.postgres_url",
  "memory.path",
  "memory.hosted",
  "memory.hosted_dir",
  "embed.provider",
  "embed.models_dir",
  "read.render",
  "read.chrome_path",
  "read.browser_cdp_url",
  "read.tier_rules_path",
  "read.block_lists",
  "events.nats_credentials_file",
  "events.nats_ca_file",
];

const BOOLEAN_KEYS = new Set(["server.allow_config_write", "memory.enabled", "memory.hosted"]);
const ARRAY_KEYS = new Set(["read.block_lists"]);
/** Taken from the environment only, as `loadConfig` does (`ENV_ONLY_KEYS`). */
const ENV_ONLY = new Set(["server.allow_config_write"]);

/** Options of {@link loadPathSettings}: what `loadConfig` takes. */
export interface PathSettingsOptions {
  /** The environment. */
  env: Env;
  /** `--set` flags (`section.key` → string). */
  flags?: Record<string, string>;
  /** The config file given with `--config` (default: {@link configFilePath}). */
  file?: string;
}

/**
 * The {@link PathSettings} of the layers in `options`. A config file that cannot be
 * read or parsed counts as empty (the server refuses it and says why).
 *
 * @example
 * ```ts
 * import { loadPathSettings } from "./path_settings.ts";
 * const settings = await loadPathSettings({
 *   env: { GLEANER_DB: "/srv/g.db", GLEANER_MEMORY_HOSTED: "yes" },
 *   flags: { "read.render": "never" },
 * });
 * console.assert(settings.store.path === "/srv/g.db" && settings.memory.hosted === true);
 * console.assert(settings.read.render === "never" && settings.embed.provider === "static");
 * ```
 */
export async function loadPathSettings(options: PathSettingsOptions): Promise<PathSettings> {
  const { env } = options;
  const values = new Map<string, unknown>(Object.entries(PATH_DEFAULTS));
  const path = options.file ?? configFilePath(env);
  if (path) {
    const file = await Deno.readTextFile(path).then(parseConfigText).catch(() => undefined) as
      | Record<string, Record<string, unknown> | undefined>
      | undefined;
    for (const key of PATH_SETTING_KEYS) {
      if (ENV_ONLY.has(key)) continue;
      const [section, name] = key.split(".");
      const value = file?.[section]?.[name];
      if (value !== undefined) values.set(key, value);
    }
  }
  // As configFromEnv: the aliases first, then the full names (which win).
  const fromEnv: [string, string][] = [
    ...Object.entries(ENV_ALIASES).map(([name, key]) => [name, key] as [string, string]),
    ...PATH_SETTING_KEYS.map((key) => [`GLEANER_${key.replace(".", "_").toUpperCase()}`, key]),
  ].filter(([, key]) => PATH_SETTING_KEYS.includes(key)) as [string, string][];
  for (const [name, key] of fromEnv) {
    const value = env[name];
    if (value !== undefined && value !== "") values.set(key, coerce(key, value));
  }
  for (const [key, value] of Object.entries(options.flags ?? {})) {
    if (PATH_SETTING_KEYS.includes(key) && !ENV_ONLY.has(key)) values.set(key, coerce(key, value));
  }
  const get = <T>(key: string) => values.get(key) as T;
  return {
    server: { allow_config_write: get("server.allow_config_write") },
    store: { path: get("store.path"), cache_url: get("store.cache_url") },
    memory: {
      enabled: get("memory.enabled"),
      backend: get("memory.backend"),
      postgres_url: get("memory.postgres_url"),
      path: get("memory.path"),
      hosted: get("memory.hosted"),
      hosted_dir: get("memory.hosted_dir"),
    },
    embed: { provider: get("embed.provider"), models_dir: get("embed.models_dir") },
    read: {
      render: get("read.render"),
      chrome_path: get("read.chrome_path"),
      browser_cdp_url: get("read.browser_cdp_url"),
      tier_rules_path: get("read.tier_rules_path"),
      block_lists: get("read.block_lists") ?? [],
    },
    events: {
      nats_credentials_file: get("events.nats_credentials_file"),
      nats_ca_file: get("events.nats_ca_file"),
    },
  };
}

/** `coerceSetting` of `env_settings.ts` for the kinds of {@link PATH_SETTING_KEYS}. */
function coerce(key: string, raw: string): unknown {
  if (ARRAY_KEYS.has(key)) {
    const trimmed = raw.trim();
    if (trimmed.startsWith("[")) {
      try {
        return JSON.parse(trimmed);
      } catch {
        return trimmed;
      }
    }
    return trimmed.split(",").map((s) => s.trim()).filter(Boolean);
  }
  if (!BOOLEAN_KEYS.has(key)) return raw;
  const trimmed = raw.trim();
  if (/^(1|true|yes|on)$/i.test(trimmed)) return true;
  if (/^(0|false|no|off)$/i.test(trimmed)) return false;
  return trimmed;
}
