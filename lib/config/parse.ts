/**
 * Validation of a partial configuration: unknown settings, the schema, cross-field checks.
 *
 * @module
 */
import type { z } from "zod";
import { GleanerError } from "../errors.ts";
import { type Config, ConfigSchema, PARSED_RARELY } from "./schema.ts";
import { settingSchema } from "./setting_index.ts";
import { nearest, nearestSetting } from "./suggest.ts";

/**
 * Validates a partial configuration and fills in defaults.
 *
 * @example
 * ```ts
 * import { parseConfig } from "./parse.ts";
 * const config = parseConfig({ server: { port: 9000 } });
 * console.assert(config.server.port === 9000 && config.server.host === "127.0.0.1");
 * ```
 */
export function parseConfig(input: unknown = {}): Config {
  assertKnownSettings(input, "config");
  const result = ConfigSchema.safeParse(input ?? {}, PARSED_RARELY);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue.path.join(".") || "(root)";
    throw new GleanerError("invalid_arguments", `config: ${field}: ${issue.message}`, {
      details: { field },
    });
  }
  if (result.data.crawl.engine === "firecrawl" && !result.data.read.firecrawl_url) {
    throw new GleanerError(
      "invalid_arguments",
      'config: crawl.engine: "firecrawl" needs read.firecrawl_url (the Firecrawl API base URL)',
      { details: { field: "crawl.engine" } },
    );
  }
  if (result.data.server.management && !result.data.server.management_token) {
    throw new GleanerError(
      "invalid_arguments",
      "config: server.management: the management views need server.management_token " +
        "(GLEANER_MANAGEMENT_TOKEN, at least 24 characters)",
      { details: { field: "server.management" } },
    );
  }
  return result.data;
}

/** A section or setting a partial configuration names that does not exist. */
export interface UnknownSetting {
  /** `section` or `section.key`. */
  path: string;
  /** True for a whole unknown section. */
  section: boolean;
  /** The nearest known name, when one is close. */
  guess?: string;
}

/**
 * Every unknown section and setting of a partial configuration, each with the nearest known
 * name when one is close.
 *
 * @example
 * ```ts
 * import { unknownSettings } from "./parse.ts";
 * const [typo] = unknownSettings({ search: { regoin: "de-de" } });
 * console.assert(typo.path === "search.regoin" && typo.guess === "search.region");
 * ```
 */
export function unknownSettings(input: unknown): UnknownSetting[] {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return [];
  const sections = ConfigSchema.shape as Record<string, z.ZodType>;
  const out: UnknownSetting[] = [];
  for (const [section, values] of Object.entries(input)) {
    // Own names only: `constructor`, `__proto__` or `toString` are no section of the schema.
    if (!Object.hasOwn(sections, section)) {
      const guess = nearest(section, Object.keys(sections));
      out.push({ path: section, section: true, ...(guess ? { guess } : {}) });
      continue;
    }
    if (values === null || typeof values !== "object" || Array.isArray(values)) continue;
    for (const key of Object.keys(values)) {
      if (settingSchema(`${section}.${key}`) !== undefined) continue;
      const guess = nearestSetting(`${section}.${key}`);
      out.push({ path: `${section}.${key}`, section: false, ...(guess ? { guess } : {}) });
    }
  }
  return out;
}

/**
 * Throws `invalid_arguments` naming the first unknown section or setting of a
 * partial configuration (and the nearest known one), so a typo in a config
 * file or in code is not silently ignored.
 */
export function assertKnownSettings(input: unknown, where: string): void {
  const [first] = unknownSettings(input);
  if (!first) return;
  const hint = first.guess ? `; did you mean "${first.guess}"?` : "";
  throw new GleanerError(
    "invalid_arguments",
    `${where}: unknown ${first.section ? "section" : "setting"} "${first.path}"${hint}`,
    { details: { field: first.path } },
  );
}
