/**
 * Suggestions for mistyped settings: the nearest setting to a wrong name, and warnings for
 * `GLEANER_*` variables that name no setting.
 *
 * @module
 */
import { ENV_ALIASES, envName, settingPaths } from "./env_settings.ts";

/** `GLEANER_*` names that are not settings (the config file path, test and bench switches). */
export const NON_SETTING_ENV: readonly string[] = [
  "GLEANER_CONFIG",
  "GLEANER_REQUIRE_*",
  "GLEANER_TEST_*",
  "GLEANER_BENCH_*",
];

/** Levenshtein distance between two strings. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

/** The candidate nearest to `name` (case-insensitive), when one is close enough. */
export function nearest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/**
 * The setting (`section.key`) closest to a mistyped one, when one is close.
 *
 * @example
 * ```ts
 * import { nearestSetting } from "./suggest.ts";
 * console.assert(nearestSetting("search.searxng") === "search.searxng_url");
 * ```
 */
export function nearestSetting(path: string): string | undefined {
  return nearest(path, settingPaths());
}

/**
 * Warnings for `GLEANER_*` variables that name no setting (a misspelling is
 * otherwise silently ignored), each naming the nearest setting.
 *
 * @example
 * ```ts
 * import { unknownEnvWarnings } from "./suggest.ts";
 * const [warning] = unknownEnvWarnings({ GLEANER_SERACH_REGION: "de-de" });
 * console.assert(warning.includes("GLEANER_SEARCH_REGION"));
 * ```
 */
export function unknownEnvWarnings(env: Record<string, string | undefined>): string[] {
  const known = new Map<string, string>();
  for (const path of settingPaths()) known.set(envName(path), path);
  for (const [name, path] of Object.entries(ENV_ALIASES)) known.set(name, path);
  const ignored = (name: string) =>
    NON_SETTING_ENV.some((pattern) =>
      pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern
    );
  const warnings: string[] = [];
  for (const name of Object.keys(env)) {
    if (!name.startsWith("GLEANER_") || known.has(name) || ignored(name)) continue;
    const guess = nearest(name, [...known.keys()]);
    warnings.push(
      guess
        ? `${name} is not a Gleaner setting and is ignored; did you mean ${guess} (${
          known.get(guess)
        })?`
        : `${name} is not a Gleaner setting and is ignored`,
    );
  }
  return warnings;
}
