/**
 * Writes `lib/config/env_names.ts`: the environment names of `envNames()` and the short
 * names of `ENV_ALIASES` (both generated from the config schema's declarations) as plain
 * data, which the launcher reads without loading the schema. Run it after adding a setting
 * or an alias; `tests/permissions_test.ts` fails until then.
 *
 * ```sh
 * deno run --allow-read --allow-write=lib/config/env_names.ts scripts/env_names.ts
 * ```
 *
 * @module
 */
import { ENV_ALIASES, envNames } from "../lib/config/config.ts";

const TARGET = new URL("../lib/config/env_names.ts", import.meta.url);

/** The text of `lib/config/env_names.ts` for `names` and `aliases`. */
export function envNamesModule(
  names: readonly string[],
  aliases: Readonly<Record<string, string>>,
): string {
  return `/**
 * Every environment name Gleaner reads (\`envNames()\` of \`env_settings.ts\`) and the short
 * names it accepts (\`ENV_ALIASES\`), generated from the config schema's declarations as plain
 * data: the scoped \`--allow-env=…\` the launcher (\`scripts/launch.ts\`) grants and the aliases
 * of the settings that move paths (\`path_settings.ts\`), read without loading the schema.
 * Written by \`scripts/env_names.ts\`; \`tests/permissions_test.ts\` fails when it differs.
 *
 * @module
 */

/** The environment names of \`envNames()\`, in its order. */
export const ENV_NAMES: readonly string[] = [
${names.map((name) => `  ${JSON.stringify(name)},`).join("\n")}
];

/** The short environment names of \`ENV_ALIASES\`, in its order (a later name wins). */
export const ENV_ALIASES: Readonly<Record<string, string>> = {
${Object.entries(aliases).map(([name, path]) => `  ${name}: ${JSON.stringify(path)},`).join("\n")}
};
`;
}

if (import.meta.main) {
  await Deno.writeTextFile(TARGET, envNamesModule(envNames(), ENV_ALIASES));
}
