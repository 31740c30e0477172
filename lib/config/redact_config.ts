/**
 * The configuration made safe to print (`gleaner config`, `GET /config`): every
 * secret replaced, every URL masked. Which settings are secrets is declared on
 * their fields (`secret()` in `schema/secret.ts`, {@link SECRET_KEYS}).
 *
 * @module
 */
import { maskUrl } from "./redact.ts";
import type { Config } from "./schema.ts";
import { SECRET_KEYS } from "./setting_index.ts";

export { SECRET_KEYS };

/**
 * A copy of the configuration safe to print: every secret replaced by
 * `"[redacted]"` (the {@link SECRET_KEYS} and each `search.providers.<name>.api_key`), and
 * credentials in URLs masked.
 *
 * @example
 * ```ts
 * import { parseConfig } from "./parse.ts";
 * import { redactConfig } from "./redact_config.ts";
 * const shown = redactConfig(parseConfig({ server: { api_key: "s3cret" } }));
 * console.assert(shown.server.api_key === "[redacted]");
 * ```
 */
export function redactConfig(config: Config): Config {
  const copy = structuredClone(config) as unknown as Record<string, Record<string, unknown>>;
  for (const path of SECRET_KEYS) {
    const [section, key] = path.split(".");
    if (copy[section]?.[key] !== undefined) copy[section][key] = "[redacted]";
  }
  const providers = (copy.search?.providers ?? {}) as Record<string, Record<string, unknown>>;
  for (const settings of Object.values(providers)) {
    if (settings.api_key !== undefined) settings.api_key = "[redacted]";
  }
  return maskUrls(copy) as unknown as Config;
}

/** Every string that is a URL, anywhere in `value`, passed through {@link maskUrl}. */
function maskUrls(value: unknown): unknown {
  if (typeof value === "string") return maskUrl(value);
  if (Array.isArray(value)) return value.map(maskUrls);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskUrls(v)]));
  }
  return value;
}
