/**
 * Writes `lib/config/env_names.ts`: the environment names of `envNames()` (generated from
 * the config schema) as a plain list, which the launcher reads without loading the schema.
 * Run it after adding a setting or an alias; `tests/permissions_test.ts` fails until then.
 *
 * ```sh
 * deno run --allow-read --allow-write=lib/config/env_names.ts scripts/env_names.ts
 * ```
 *
 * @module
 */
import { envNames } from "../lib/config/config.ts";

const TARGET = new URL("../lib/config/env_names.ts", import.meta.url);

/** The text of `lib/config/env_names.ts` for `names`. */
export function envNamesModule(names: readonly string[]): string {
  return `/**
 * Every environment name Gleaner reads (\`envNames()\` of \`env_settings.ts\`, generated from
 * the config schema) as a plain list: the scoped \`--allow-env=…\` the launcher
 * (\`scripts/launch.ts\`) grants, read without loading the schema. Written by
 * \`scripts/env_names.ts\`; \`tests/permissions_test.ts\` fails when it differs from
 * \`envNames()\`.
 *
 * @module
 */

/** The environment names of \`envNames()\`, in its order. */
export const ENV_NAMES: readonly string[] = [
${names.map((name) => `  ${JSON.stringify(name)},`).join("\n")}
];
`;
}

if (import.meta.main) {
  await Deno.writeTextFile(TARGET, envNamesModule(envNames()));
}
