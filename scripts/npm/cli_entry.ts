/**
 * Loaded first by the npm build's `gleaner` command (`_shims/cli_entry.ts`):
 * on a Node.js too old for Gleaner it prints `Gleaner needs Node.js >= X (this
 * is Y)` and exits 1 before anything else loads; otherwise it silences Node's
 * SQLite ExperimentalWarning, and only that one.
 *
 * @module
 */
import process from "node:process";
import { filterSqliteWarning, nodeVersionProblem } from "./node_gate.ts";

const problem = nodeVersionProblem(process.version);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
filterSqliteWarning(process as unknown as Parameters<typeof filterSqliteWarning>[0]);
