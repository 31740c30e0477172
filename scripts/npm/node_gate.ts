/**
 * The Node.js versions the npm build runs on, and the one start-up warning it
 * silences. `scripts/build_npm.ts` copies this file into the build as
 * `_shims/node_gate.ts` (with `entry.ts` and `cli_entry.ts`, which apply it)
 * and writes {@link NODE_ENGINES} into `package.json`.
 *
 * Why these versions: the store uses `node:sqlite` unflagged (Node 22.13,
 * 23.4) with `allowExtension` (22.13, 23.5), `DatabaseSync#isOpen` (22.15,
 * 23.11) and `DatabaseSync#isTransaction` (22.16, 24.0; no 23.x has it), see
 * https://nodejs.org/docs/latest/api/sqlite.html. So: 22.16 or a later 22.x,
 * or 24 and later.
 *
 * @module
 */

/** The lowest Node.js 22 release with every `node:sqlite` member Gleaner uses. */
export const MIN_NODE_VERSION = "22.16.0";

/** The `engines.node` range of the npm package. */
export const NODE_ENGINES = "^22.16.0 || >=24.0.0";

const [MIN_MAJOR, MIN_MINOR] = MIN_NODE_VERSION.split(".").map(Number);
/** `22.16`, as the messages show it. */
const MIN_SHOWN = `${MIN_MAJOR}.${MIN_MINOR}`;

/**
 * Why Node.js `version` (`process.version`, `v22.15.1` or `22.15.1`) cannot
 * run Gleaner, or `undefined` when it can.
 *
 * @example
 * ```ts
 * import { nodeVersionProblem } from "./node_gate.ts";
 * console.assert(nodeVersionProblem("v22.16.0") === undefined);
 * console.assert(nodeVersionProblem("v20.19.2") === "Gleaner needs Node.js >= 22.16 (this is 20.19.2)");
 * ```
 */
export function nodeVersionProblem(version: string): string | undefined {
  const shown = version.replace(/^v/, "");
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(shown);
  if (!match) return `Gleaner needs Node.js >= ${MIN_SHOWN} (this is ${shown || "unknown"})`;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (major >= 24 || (major === MIN_MAJOR && minor >= MIN_MINOR)) return undefined;
  if (major === 23) {
    return `Gleaner needs Node.js >= ${MIN_SHOWN} on 22.x, or >= 24 (this is ${shown})`;
  }
  return `Gleaner needs Node.js >= ${MIN_SHOWN} (this is ${shown})`;
}

/**
 * True for exactly Node's start-up notice that `node:sqlite` is experimental
 * (`ExperimentalWarning: SQLite is an experimental feature …`), nothing else.
 *
 * @example
 * ```ts
 * import { isSqliteExperimentalWarning } from "./node_gate.ts";
 * console.assert(isSqliteExperimentalWarning("SQLite is an experimental feature and might change at any time", "ExperimentalWarning"));
 * console.assert(!isSqliteExperimentalWarning("WASI is an experimental feature", "ExperimentalWarning"));
 * ```
 */
export function isSqliteExperimentalWarning(warning: unknown, type: unknown): boolean {
  const name = warning instanceof Error ? warning.name : type;
  const message = warning instanceof Error ? warning.message : warning;
  return name === "ExperimentalWarning" && typeof message === "string" &&
    message.startsWith("SQLite is an experimental feature");
}

/** The part of `process` the filter replaces. */
interface WarningEmitter {
  emitWarning: (warning: string | Error, ...rest: unknown[]) => void;
}

/**
 * Drops the SQLite ExperimentalWarning from `target.emitWarning` (Node's
 * `process`); every other warning passes unchanged.
 *
 * @example
 * ```ts
 * import { filterSqliteWarning } from "./node_gate.ts";
 * const seen: unknown[] = [];
 * const target = { emitWarning: (w: string | Error, ..._rest: unknown[]) => void seen.push(w) };
 * filterSqliteWarning(target);
 * target.emitWarning("SQLite is an experimental feature and might change at any time", "ExperimentalWarning");
 * target.emitWarning("something else", "DeprecationWarning");
 * console.assert(seen.length === 1 && seen[0] === "something else");
 * ```
 */
export function filterSqliteWarning(target: WarningEmitter): void {
  const emit = target.emitWarning;
  target.emitWarning = function (warning: string | Error, ...rest: unknown[]) {
    const options = rest[0];
    const type = typeof options === "string"
      ? options
      : (options as { type?: unknown } | undefined)?.type;
    if (isSqliteExperimentalWarning(warning, type)) return;
    return emit.call(this, warning, ...rest);
  };
}
