/**
 * Settings from the environment: the `GLEANER_<SECTION>_<KEY>` names and their aliases,
 * and the conversion of a string (environment or `--set`) into a setting's type.
 *
 * @module
 */
import { z } from "zod";
import { CHROMIUM_ENV_NAMES, DEPENDENCY_ENV_NAMES, PROCESS_ENV_NAMES } from "./env.ts";
import { ENV_ALIASES } from "./env_aliases.ts";
import { type ConfigInput, ConfigSchema } from "./schema.ts";

export { ENV_ALIASES };

/** The kind of value a setting takes, read from the schema. */
function fieldKind(
  section: string,
  key: string,
): "boolean" | "number" | "array" | "string" | "union" | "record" {
  const sectionSchema = (ConfigSchema.shape as Record<string, z.ZodType>)[section];
  // deno-lint-ignore no-explicit-any
  let field: any = (unwrap(sectionSchema) as z.ZodObject).shape[key];
  field = unwrap(field);
  if (field instanceof z.ZodBoolean) return "boolean";
  if (field instanceof z.ZodNumber) return "number";
  if (field instanceof z.ZodArray) return "array";
  if (field instanceof z.ZodUnion) return "union";
  if (field instanceof z.ZodRecord) return "record";
  return "string";
}

/** A field's schema without its `.default()` / `.optional()` wrappers. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodDefault || current instanceof z.ZodOptional) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/** Converts an environment/flag string into the setting's type (validated later by zod). */
export function coerceSetting(path: string, raw: string): unknown {
  const [section, key] = path.split(".");
  const kind = fieldKind(section, key);
  const trimmed = raw.trim();
  switch (kind) {
    case "boolean":
      return /^(1|true|yes|on)$/i.test(trimmed)
        ? true
        : /^(0|false|no|off)$/i.test(trimmed)
        ? false
        : trimmed;
    case "number":
      return trimmed === "" ? trimmed : Number(trimmed);
    case "array":
      return trimmed.startsWith("[")
        ? safeJson(trimmed)
        : trimmed.split(",").map((s) => s.trim()).filter(Boolean)
          .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    case "union":
      if (/^(1|true|yes|on)$/i.test(trimmed)) return true;
      if (/^(0|false|no|off)$/i.test(trimmed)) return false;
      return trimmed.startsWith("[")
        ? safeJson(trimmed)
        : trimmed.split(",").map((s) => s.trim()).filter(Boolean);
    case "record":
      // A JSON object (`{"en.wikipedia.org":"wikipedia_en_all"}`); anything else is refused by zod.
      return trimmed.startsWith("{") ? safeJson(trimmed) : raw;
    default:
      return raw;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Every `section.key` the schema knows. */
export function settingPaths(): string[] {
  const paths: string[] = [];
  for (const [section, schema] of Object.entries(ConfigSchema.shape)) {
    for (const key of Object.keys((unwrap(schema as z.ZodType) as z.ZodObject).shape)) {
      paths.push(`${section}.${key}`);
    }
  }
  return paths;
}

/** Reads `GLEANER_*` settings (and aliases) from an environment map. */
export function configFromEnv(env: Record<string, string | undefined>): ConfigInput {
  const out: Record<string, Record<string, unknown>> = {};
  const set = (path: string, raw: string) => {
    const [section, key] = path.split(".");
    (out[section] ??= {})[key] = coerceSetting(path, raw);
  };
  for (const [name, path] of Object.entries(ENV_ALIASES)) {
    const value = env[name];
    if (value !== undefined && value !== "") set(path, value);
  }
  for (const path of settingPaths()) {
    const name = `GLEANER_${path.replace(".", "_").toUpperCase()}`;
    const value = env[name];
    if (value !== undefined && value !== "") set(path, value);
  }
  return out as ConfigInput;
}

/**
 * Every environment name Gleaner reads, generated from the schema so that it
 * cannot drift: `GLEANER_CONFIG`, each setting's `GLEANER_<SECTION>_<KEY>`,
 * the aliases of {@link ENV_ALIASES}, then the fixed names of
 * `PROCESS_ENV_NAMES` (`HOME`, `XDG_*`, the extra CA files, the proxy and
 * OpenTelemetry variables) and the names dependencies read
 * (`DEPENDENCY_ENV_NAMES`) or Chromium is given (`CHROMIUM_ENV_NAMES`). The tasks' `--allow-env=…` is this list
 * (`tests/permissions_test.ts` fails when they differ).
 *
 * @example
 * ```ts
 * import { envNames } from "./env_settings.ts";
 * const names = envNames();
 * console.assert(names.includes("GLEANER_SEARCH_REGION") && names.includes("NODE_EXTRA_CA_CERTS"));
 * ```
 */
export function envNames(): string[] {
  const names = [
    "GLEANER_CONFIG",
    ...settingPaths().map(envName),
    ...Object.keys(ENV_ALIASES),
    ...PROCESS_ENV_NAMES,
    ...DEPENDENCY_ENV_NAMES,
    ...CHROMIUM_ENV_NAMES,
  ];
  return [...new Set(names)];
}

/** Environment name of a setting: `search.region` → `GLEANER_SEARCH_REGION`. */
export function envName(path: string): string {
  return `GLEANER_${path.replace(".", "_").toUpperCase()}`;
}
