/**
 * Validation of a partial configuration: unknown settings, the schema, cross-field checks.
 *
 * @module
 */
import type { z } from "zod";
import { GleanerError } from "../errors.ts";
import { type Config, ConfigSchema } from "./schema.ts";
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
  const result = ConfigSchema.safeParse(input ?? {});
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
  return result.data;
}

/**
 * Throws `invalid_arguments` naming the first unknown section or setting of a
 * partial configuration (and the nearest known one), so a typo in a config
 * file or in code is not silently ignored.
 */
export function assertKnownSettings(input: unknown, where: string): void {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return;
  const sections = ConfigSchema.shape as Record<string, z.ZodType>;
  for (const [section, values] of Object.entries(input)) {
    // Own names only: `constructor`, `__proto__` or `toString` are no section of the schema.
    if (!Object.hasOwn(sections, section)) {
      const guess = nearest(section, Object.keys(sections));
      throw new GleanerError(
        "invalid_arguments",
        `${where}: unknown section "${section}"${guess ? `; did you mean "${guess}"?` : ""}`,
        { details: { field: section } },
      );
    }
    if (values === null || typeof values !== "object" || Array.isArray(values)) continue;
    for (const key of Object.keys(values)) {
      if (settingSchema(`${section}.${key}`) !== undefined) continue;
      const guess = nearestSetting(`${section}.${key}`);
      throw new GleanerError(
        "invalid_arguments",
        `${where}: unknown setting "${section}.${key}"${guess ? `; did you mean "${guess}"?` : ""}`,
        { details: { field: `${section}.${key}` } },
      );
    }
  }
}
