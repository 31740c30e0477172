/**
 * Loaded first by the npm build's library entry points (`_shims/entry.ts`):
 * silences Node's SQLite ExperimentalWarning, and only that one.
 *
 * @module
 */
import process from "node:process";
import { filterSqliteWarning } from "./node_gate.ts";

filterSqliteWarning(process as unknown as Parameters<typeof filterSqliteWarning>[0]);
