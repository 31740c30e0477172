/**
 * Every setting's declaration ({@link SettingMeta}, written on its field in
 * `schema/<section>.ts`) looked up by `section.key`, and the lists that follow
 * from them: the secrets, the environment aliases, the environment-only
 * settings, the settings `PUT /config` may change and those a running server
 * reads on every call. Each list is derived here and nowhere written by hand.
 *
 * @example
 * ```ts
 * import { ENV_ALIASES, SECRET_KEYS, settingMeta, WRITABLE_SETTINGS } from "./setting_index.ts";
 * console.assert(settingMeta("read.browser_cdp_url")?.scope === "operator");
 * console.assert(SECRET_KEYS.has("server.api_key") && ENV_ALIASES.GLEANER_PORT === "server.port");
 * console.assert(WRITABLE_SETTINGS.has("rank.max_tokens") && !WRITABLE_SETTINGS.has("server.host"));
 * ```
 *
 * @module
 */
import { z } from "zod";
import { ConfigSchema } from "./schema.ts";
import { type SettingMeta, SETTINGS } from "./setting.ts";
import type { TenancyScope } from "./tenancy.ts";

/** A field's schema without its `.default()` / `.optional()` wrappers. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodDefault || current instanceof z.ZodOptional) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/** The fields of each section, by section name (own properties only). */
function sectionShape(section: string): Record<string, z.ZodType> | undefined {
  const sections = ConfigSchema.shape as Record<string, z.ZodType>;
  if (!Object.hasOwn(sections, section)) return undefined;
  return (unwrap(sections[section]) as z.ZodObject).shape as Record<string, z.ZodType>;
}

/**
 * The schema of `section.key`, or `undefined` for a name the configuration
 * does not have (`constructor`, `__proto__` and other inherited names
 * included).
 */
export function settingSchema(path: string): z.ZodType | undefined {
  const dot = path.indexOf(".");
  if (dot <= 0) return undefined;
  const shape = sectionShape(path.slice(0, dot));
  const key = path.slice(dot + 1);
  return shape && Object.hasOwn(shape, key) ? shape[key] : undefined;
}

/** Every `section.key` the schema knows, in the schema's order. */
export function settingPaths(): string[] {
  const paths: string[] = [];
  for (const section of Object.keys(ConfigSchema.shape)) {
    for (const key of Object.keys(sectionShape(section)!)) paths.push(`${section}.${key}`);
  }
  return paths;
}

/**
 * What `section.key` declares about itself ({@link SettingMeta}), or
 * `undefined` for an unknown name or a field that declares nothing (a test
 * fails on the latter).
 */
export function settingMeta(path: string): SettingMeta | undefined {
  const schema = settingSchema(path);
  return schema ? SETTINGS.get(schema) : undefined;
}

/** The settings whose declaration passes `test`, in the schema's order. */
export function settingsWhere(test: (meta: SettingMeta, path: string) => boolean): string[] {
  return settingPaths().filter((path) => {
    const meta = settingMeta(path);
    return meta !== undefined && test(meta, path);
  });
}

/** The settings of one {@link TenancyScope}, in the schema's order. */
export function settingsOfScope(scope: TenancyScope): string[] {
  return settingsWhere((meta) => meta.scope === scope);
}

/** The names of every setting that holds a secret (`section.key`). */
export const SECRET_KEYS: ReadonlySet<string> = new Set(settingsWhere((meta) => !!meta.secret));

/**
 * Settings taken from the environment only (never from the config file, `--set` or
 * `PUT /config`): the hosted-mode admin key and the opt-in to `PUT /config`.
 */
export const ENV_ONLY_KEYS: ReadonlySet<string> = new Set(settingsWhere((meta) => !!meta.envOnly));

/** The settings `PUT /config` may change (shared settings that tune results or time). */
export const WRITABLE_SETTINGS: ReadonlySet<string> = new Set(
  settingsWhere((meta) => meta.writable),
);

/**
 * The settings a running server reads on every call (the evidence budget and
 * ranking weights, the llms.txt allowlist): `PUT /config` applies them at
 * once. Every other setting is captured when the server starts.
 */
export const LIVE_SETTINGS: ReadonlySet<string> = new Set(settingsWhere((meta) => !!meta.live));

/**
 * Short environment names accepted besides `GLEANER_<SECTION>_<KEY>`: name → `section.key`.
 * A setting with two names lists them in order, the later winning when both are set.
 */
export const ENV_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  settingsWhere((meta) => (meta.env?.length ?? 0) > 0)
    .flatMap((path) => settingMeta(path)!.env!.map((name) => [name, path])),
);
