/**
 * Where the browser tier finds Chromium and keeps its throwaway profiles:
 * small and free of puppeteer, so that `gleaner doctor` and the permission
 * grants (`lib/permissions.ts`) can name the executable without loading the
 * browser driver.
 *
 * Permissions: read access to the candidate paths (to find the executable);
 * the browser tier itself runs it (`--allow-run=<path>`) and writes its
 * profiles under {@link chromiumProfileRoot}.
 *
 * @module
 */
import type { ReadSection } from "../../config/sections.ts";
import type { Env } from "../../config/env.ts";
import { GleanerError } from "../../errors.ts";

/**
 * The directory the browser tier's throwaway Chromium profiles are made in:
 * `$TMPDIR/gleaner-chromium` (`/tmp/gleaner-chromium` when `TMPDIR` is unset
 * or not readable), `TMPDIR` taken from `env` (the entry point's environment
 * snapshot), so that a scoped `--allow-write` needs only this one
 * directory of the temporary space.
 *
 * @example
 * ```ts
 * import { chromiumProfileRoot } from "./chromium.ts";
 * console.assert(chromiumProfileRoot({ TMPDIR: "/var/tmp/" }) === "/var/tmp/gleaner-chromium");
 * console.assert(chromiumProfileRoot({}) === "/tmp/gleaner-chromium");
 * ```
 */
export function chromiumProfileRoot(env: Env): string {
  const base = (env.TMPDIR || "/tmp").replace(/\/+$/, "") || "/";
  return `${base === "/" ? "" : base}/gleaner-chromium`;
}

/** Where Chromium is looked for when `read.chrome_path` is not set. */
export const CHROMIUM_CANDIDATES: readonly string[] = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
];

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * The Chromium executable to launch: `read.chrome_path` (which env
 * `GLEANER_CHROME_PATH` sets, see `ENV_ALIASES` in `config.ts`), else the first of {@link CHROMIUM_CANDIDATES} that
 * exists. Throws `provider_unavailable` naming `read.chrome_path` otherwise.
 *
 * @example
 * ```ts
 * import { findChromium } from "./chromium.ts";
 * import { parseConfig } from "@gleaner/gleaner";
 * const path = await findChromium(parseConfig({})).catch(() => undefined);
 * console.log(path ?? "no Chromium here");
 * ```
 */
export async function findChromium(
  config: { read: Pick<ReadSection, "chrome_path"> },
): Promise<string> {
  const explicit = config.read.chrome_path;
  if (explicit) {
    if (await isFile(explicit)) return explicit;
    throw new GleanerError(
      "provider_unavailable",
      `Chromium not found at ${explicit}: set read.chrome_path (or GLEANER_CHROME_PATH) to a Chromium executable`,
      { details: { field: "read.chrome_path" } },
    );
  }
  for (const candidate of CHROMIUM_CANDIDATES) {
    if (await isFile(candidate)) return candidate;
  }
  throw new GleanerError(
    "provider_unavailable",
    "no Chromium found: install it (apt-get install chromium) or set read.chrome_path (or GLEANER_CHROME_PATH)",
    { details: { field: "read.chrome_path" } },
  );
}
