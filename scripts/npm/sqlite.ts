/**
 * `node:sqlite` for the npm build: every `import { … } from "node:sqlite"` of
 * the sources is pointed here by `scripts/build_npm.ts` (as `_shims/sqlite.ts`).
 *
 * A static import of `node:sqlite` fails while Node links the module graph, on
 * a Node.js without it (20.x: `ERR_UNKNOWN_BUILTIN_MODULE`), before any code
 * runs, so no version check could speak first; and Node prints its SQLite
 * ExperimentalWarning as the builtin loads, before the warning filter is in
 * place. Loaded here, after the entry's version gate and warning filter have
 * run, it is neither: an old Node.js gets the gate's message, a current one
 * no warning.
 *
 * @module
 */
import process from "node:process";
import type * as Sqlite from "node:sqlite";
import { nodeVersionProblem } from "./node_gate.ts";

const problem = nodeVersionProblem(process.version);
if (problem) throw new Error(problem);
const sqlite: typeof Sqlite = await import("node:sqlite");

/** `node:sqlite`'s `DatabaseSync`. */
export const DatabaseSync: typeof Sqlite.DatabaseSync = sqlite.DatabaseSync;
/** `node:sqlite`'s `DatabaseSync` instance type. */
export type DatabaseSync = Sqlite.DatabaseSync;
/** `node:sqlite`'s `StatementSync`. */
export const StatementSync: typeof Sqlite.StatementSync = sqlite.StatementSync;
/** `node:sqlite`'s `StatementSync` instance type. */
export type StatementSync = Sqlite.StatementSync;
