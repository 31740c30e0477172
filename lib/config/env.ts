/**
 * The one place Gleaner reads the process environment, and the paths that
 * follow from it. Every other module receives what it needs (a config
 * section, an `env` record or a path) from its caller; the layering test
 * (`tests/layering_test.ts`) fails on a `Deno.env` or `process.env` read
 * anywhere else.
 *
 * @example
 * ```ts
 * import { gleanerDataDir } from "./env.ts";
 * console.assert(gleanerDataDir({ XDG_DATA_HOME: "/data" }) === "/data/gleaner");
 * console.assert(gleanerDataDir({ XDG_DATA_HOME: "", HOME: "/home/a" }) === "/home/a/.local/share/gleaner");
 * ```
 *
 * @module
 */

/** An environment as a plain record (the shape {@link readEnv} returns). */
export type Env = Record<string, string | undefined>;

/**
 * The process environment as a plain object; empty when `--allow-env` is
 * not granted (Gleaner then runs on its defaults and explicit settings).
 *
 * @example
 * ```ts
 * import { readEnv } from "./env.ts";
 * const env = readEnv();
 * console.assert(typeof env === "object");
 * ```
 */
export function readEnv(): Env {
  try {
    return Deno.env.toObject();
  } catch {
    return {};
  }
}

/**
 * Gleaner's per-user data directory: `$XDG_DATA_HOME/gleaner` when
 * `XDG_DATA_HOME` is set and not empty (as the XDG Base Directory
 * specification says: an empty value counts as unset), else
 * `$HOME/.local/share/gleaner`; `undefined` when neither is known.
 *
 * @example
 * ```ts
 * import { gleanerDataDir } from "./env.ts";
 * console.assert(gleanerDataDir({ HOME: "/home/a" }) === "/home/a/.local/share/gleaner");
 * console.assert(gleanerDataDir({}) === undefined);
 * ```
 */
export function gleanerDataDir(env: Env): string | undefined {
  const base = env.XDG_DATA_HOME || (env.HOME ? `${env.HOME}/.local/share` : undefined);
  return base ? `${base.replace(/\/+$/, "")}/gleaner` : undefined;
}
