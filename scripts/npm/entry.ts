/**
 * Loaded first by the npm build's library entry points (`_shims/entry.ts`):
 * on a Node.js too old for Gleaner, importing the library throws
 * `Gleaner needs Node.js >= X (this is Y)` before anything else runs;
 * otherwise it silences Node's SQLite ExperimentalWarning, and only that one.
 *
 * @module
 */
import process from "node:process";
import { filterSqliteWarning, nodeVersionProblem } from "./node_gate.ts";

const problem = nodeVersionProblem(process.version);
if (problem) throw new Error(problem);
filterSqliteWarning(process as unknown as Parameters<typeof filterSqliteWarning>[0]);
