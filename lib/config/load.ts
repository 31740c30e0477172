/**
 * Loading the configuration the way every entry point does: defaults, config file, environment,
 * code overrides, CLI flags.
 *
 * Permissions: env access to `envNames()` (through `readEnv`); read access to the config file.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import { configFilePath, readEnv } from "./env.ts";
import { parseConfigText } from "./jsonc.ts";
import { coerceSetting, configFromEnv, envName, envNames } from "./env_settings.ts";
import { assertKnownSettings, parseConfig } from "./parse.ts";
import { dropShadowedProviderKeys, oldProviderKeyWarnings } from "./provider_keys.ts";
import type { Config, ConfigInput } from "./schema.ts";
import { ENV_ONLY_KEYS } from "./setting_index.ts";
import { unknownEnvWarnings } from "./suggest.ts";

export { ENV_ONLY_KEYS };

/**
 * Deep-merges partial configurations, later ones winning: setting by setting, and in
 * `search.providers` provider by provider and setting by setting (a provider's API key too,
 * whichever of its two spellings each layer uses).
 */
export function mergeConfig(...layers: (ConfigInput | undefined)[]): ConfigInput {
  const out: Record<string, Record<string, unknown>> = {};
  for (const given of layers) {
    if (!given) continue;
    const layer = withProvidersObject(given);
    dropShadowedProviderKeys(out, layer);
    for (const [section, values] of Object.entries(layer)) {
      if (!values || typeof values !== "object") continue;
      const below = out[section]?.providers;
      out[section] = { ...out[section], ...values };
      const above = (values as Record<string, unknown>).providers;
      if (section === "search" && isRecord(below) && isRecord(above)) {
        const merged: Record<string, unknown> = { ...below };
        for (const [name, settings] of Object.entries(above)) {
          merged[name] = isRecord(settings) && isRecord(below[name])
            ? { ...below[name], ...settings }
            : settings;
        }
        out[section].providers = merged;
      }
    }
  }
  return out as ConfigInput;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The layer with `search.providers` given as JSON text (`GLEANER_SEARCH_PROVIDERS`) parsed. */
function withProvidersObject(layer: ConfigInput): ConfigInput {
  const providers = (layer.search as Record<string, unknown> | undefined)?.providers;
  if (typeof providers !== "string") return layer;
  let parsed: unknown;
  try {
    parsed = JSON.parse(providers);
  } catch {
    return layer; // the schema names the field and refuses it
  }
  if (!isRecord(parsed)) return layer;
  return { ...layer, search: { ...layer.search, providers: parsed } } as ConfigInput;
}

export { configFilePath } from "./env.ts";

/**
 * The config file {@link loadConfig} reads with the same options: `file` (the `--config`
 * flag), else `$GLEANER_CONFIG`, else `$XDG_CONFIG_HOME/gleaner/config.json`. A server
 * writes `PUT /config` settings to this file, the one it loaded.
 *
 * @example
 * ```ts
 * import { loadedConfigFile } from "./load.ts";
 * console.assert(loadedConfigFile({ env: { GLEANER_CONFIG: "/etc/g.json" } }) === "/etc/g.json");
 * console.assert(loadedConfigFile({ file: "my.json", env: { GLEANER_CONFIG: "/etc/g.json" } }) === "my.json");
 * ```
 */
export function loadedConfigFile(
  options: { file?: string; env?: Record<string, string | undefined> } = {},
): string | undefined {
  return options.file ?? configFilePath(options.env ?? readEnv(envNames()));
}

/**
 * Loads the configuration the way every entry point does: defaults, then the
 * config file, then the environment, then CLI flags (`section.key` → string).
 *
 * @example
 * ```ts
 * import { loadConfig } from "./load.ts";
 * const config = await loadConfig({ env: { GLEANER_PORT: "9001" }, flags: {} });
 * console.assert(config.server.port === 9001);
 * ```
 */
export async function loadConfig(
  options: {
    env?: Record<string, string | undefined>;
    flags?: Record<string, string>;
    file?: string;
    /** Settings given in code; above the environment, below CLI flags. */
    overrides?: ConfigInput;
    /** Receives warnings (a misspelt `GLEANER_*` name); default: the `gleaner.config` logger. */
    warn?: (message: string) => void;
  } = {},
): Promise<Config> {
  const env = options.env ?? readEnv(envNames());
  const warn = options.warn ?? ((message: string) => getGleanerLogger("config").warn(message));
  for (const message of unknownEnvWarnings(env)) warn(message);
  const path = loadedConfigFile({ file: options.file, env });
  let fileLayer: ConfigInput | undefined;
  if (path) {
    try {
      fileLayer = parseConfigText(await Deno.readTextFile(path)) as ConfigInput;
    } catch (error) {
      if (error instanceof Deno.errors.NotCapable) throw error;
      const explicit = options.file !== undefined || env.GLEANER_CONFIG !== undefined;
      if (!(error instanceof Deno.errors.NotFound) || explicit) {
        throw new GleanerError("invalid_arguments", `config file ${path} could not be read`, {
          cause: error,
        });
      }
    }
  }
  if (fileLayer !== undefined) assertKnownSettings(fileLayer, `config file ${path}`);
  for (const key of ENV_ONLY_KEYS) {
    const [section, name] = key.split(".");
    const values = (fileLayer as Record<string, Record<string, unknown> | undefined> | undefined)
      ?.[section];
    if (values && name in values) throw envOnly(`config file ${path}`, key);
  }
  const flagLayer: Record<string, Record<string, unknown>> = {};
  for (const [path, raw] of Object.entries(options.flags ?? {})) {
    if (ENV_ONLY_KEYS.has(path)) throw envOnly("--set", path);
    const [section, key] = path.split(".");
    (flagLayer[section] ??= {})[key] = coerceSetting(path, raw);
  }
  for (
    const message of [
      ...oldProviderKeyWarnings(fileLayer, `config file ${path}`),
      ...oldProviderKeyWarnings(options.overrides, "settings given in code"),
      ...oldProviderKeyWarnings(flagLayer as ConfigInput, "--set"),
    ]
  ) warn(message);
  return parseConfig(
    mergeConfig(
      proxyFromEnv(env),
      fileLayer,
      configFromEnv(env),
      options.overrides,
      flagLayer as ConfigInput,
    ),
  );
}

function envOnly(where: string, key: string): GleanerError {
  return new GleanerError(
    "invalid_arguments",
    `${where}: ${key} is taken from the environment only (${envName(key)})`,
    { details: { field: key } },
  );
}

/**
 * The proxy settings the standard environment variables give, as the lowest
 * layer of the configuration (any `network.proxy_url` / `network.no_proxy`
 * setting wins): `network.proxy_url` from `https_proxy`, `HTTPS_PROXY`,
 * `http_proxy` or `HTTP_PROXY` (the first one set; one proxy serves both
 * schemes; a value without a scheme is read as `http://`), and
 * `network.no_proxy` from `no_proxy` or `NO_PROXY` (comma-separated).
 *
 * @example
 * ```ts
 * import { proxyFromEnv } from "./load.ts";
 * const layer = proxyFromEnv({ HTTPS_PROXY: "proxy.corp:3128", NO_PROXY: "intranet.corp, .lan" });
 * console.assert(layer.network?.proxy_url === "http://proxy.corp:3128");
 * console.assert(layer.network?.no_proxy?.join() === "intranet.corp,.lan");
 * ```
 */
export function proxyFromEnv(env: Record<string, string | undefined>): ConfigInput {
  const pick = (...names: string[]) =>
    names.map((name) => env[name]?.trim()).find((value) => value !== undefined && value !== "");
  const network: Partial<Config["network"]> = {};
  const proxy = pick("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY");
  if (proxy !== undefined) {
    network.proxy_url = /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
  }
  const noProxy = pick("no_proxy", "NO_PROXY");
  if (noProxy !== undefined) {
    network.no_proxy = noProxy.split(/[\s,]+/).filter((entry) => entry !== "");
  }
  return Object.keys(network).length > 0 ? { network } : {};
}
