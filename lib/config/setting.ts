/**
 * What each setting declares about itself, on the field of its section schema
 * (`schema/<section>.ts`): its tenancy scope, whether `PUT /config` may change
 * it, whether it is a secret, its short environment names, whether it is taken
 * from the environment only, and whether a running server reads it on every
 * call. The lists the rest of Gleaner uses (secrets, aliases, environment-only
 * and writable settings) are derived from these declarations
 * (`setting_index.ts`), so nothing is listed twice.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { operatorOnly, SETTINGS, shared } from "./setting.ts";
 * const port = operatorOnly(z.number().default(8787), { env: ["GLEANER_PORT"] });
 * const budget = shared(z.number().default(4000), { live: true });
 * console.assert(SETTINGS.get(port)?.scope === "operator" && SETTINGS.get(port)?.writable === false);
 * console.assert(SETTINGS.get(budget)?.writable === true);
 * ```
 *
 * @module
 */
import { z } from "zod";
import type { TenancyScope } from "./tenancy.ts";

/** What a setting declares about itself. */
export interface SettingMeta {
  /**
   * Who it belongs to in hosted mode (see {@link TenancyScope}): `operator` (the
   * server's own, secrets, endpoints and files), `shared` (one value every tenant
   * gets the same of) or `tenant`.
   */
  readonly scope: TenancyScope;
  /**
   * `PUT /config` may change it. Never an operator setting: only shared values
   * that tune results or time, not those that fence the server.
   */
  readonly writable: boolean;
  /** A secret: redacted wherever the configuration is shown. */
  readonly secret?: boolean;
  /** Environment names accepted besides `GLEANER_<SECTION>_<KEY>`, later ones winning. */
  readonly env?: readonly string[];
  /** Taken from the environment only (never from the config file, `--set` or `PUT /config`). */
  readonly envOnly?: boolean;
  /** Read by a running server on every call: `PUT /config` applies it at once. */
  readonly live?: boolean;
}

/** The registry of every setting's {@link SettingMeta}, keyed by the field's schema. */
export const SETTINGS: z.core.$ZodRegistry<SettingMeta> = z.registry<SettingMeta>();

/** Options of the helpers below: everything but the scope (and, for operator settings, writable). */
export type SettingOptions = Omit<SettingMeta, "scope" | "writable">;

/**
 * Declares `meta` on a setting's schema (the whole field, `.default()` and
 * `.optional()` included) and returns the schema itself, its type unchanged.
 *
 * @throws {TypeError} when an operator setting or a secret is declared writable.
 */
export function setting<T extends z.ZodType>(schema: T, meta: SettingMeta): T {
  if (meta.writable && (meta.scope === "operator" || meta.secret || meta.envOnly)) {
    throw new TypeError(
      "an operator setting, a secret or an environment-only setting is never writable",
    );
  }
  SETTINGS.add(schema, meta);
  return schema;
}

/**
 * An operator setting: the server's own (its address, keys, endpoints its
 * credentials go to, files, the network guard's openings). Never writable.
 */
export function operatorOnly<T extends z.ZodType>(schema: T, options: SettingOptions = {}): T {
  return setting(schema, { ...options, scope: "operator", writable: false });
}

/**
 * A shared setting: one value every tenant gets the same of (call-time
 * defaults, timeouts, provider choice). Writable unless `writable: false`
 * (limits that bound work or hostile input).
 */
export function shared<T extends z.ZodType>(
  schema: T,
  options: SettingOptions & { writable?: boolean } = {},
): T {
  return setting(schema, { ...options, scope: "shared", writable: options.writable ?? true });
}
