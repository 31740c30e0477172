import assert from "node:assert/strict";
import { filterSqliteWarning, NODE_ENGINES, nodeVersionProblem } from "./node_gate.ts";

Deno.test("node gate: 22.16+ and 24+ run; older ones and 23.x are refused, naming both", () => {
  for (const ok of ["v22.16.0", "v22.21.1", "22.16.0", "v24.0.0", "v25.2.1"]) {
    assert.equal(nodeVersionProblem(ok), undefined, ok);
  }
  assert.equal(nodeVersionProblem("v20.19.2"), "Gleaner needs Node.js >= 22.16 (this is 20.19.2)");
  assert.equal(nodeVersionProblem("v22.13.1"), "Gleaner needs Node.js >= 22.16 (this is 22.13.1)");
  assert.equal(nodeVersionProblem("v18.0.0"), "Gleaner needs Node.js >= 22.16 (this is 18.0.0)");
  assert.equal(
    nodeVersionProblem("v23.11.0"),
    "Gleaner needs Node.js >= 22.16 on 22.x, or >= 24 (this is 23.11.0)",
  );
  assert.match(nodeVersionProblem("nonsense")!, /needs Node\.js >= 22\.16/);
  assert.equal(NODE_ENGINES, "^22.16.0 || >=24.0.0");
});

Deno.test("node gate: only the SQLite ExperimentalWarning is dropped", () => {
  const seen: unknown[][] = [];
  const target = { emitWarning: (...args: unknown[]) => void seen.push(args) };
  filterSqliteWarning(target as { emitWarning: (w: string | Error, ...r: unknown[]) => void });
  const sqlite = "SQLite is an experimental feature and might change at any time";
  target.emitWarning(sqlite, "ExperimentalWarning");
  target.emitWarning(sqlite, { type: "ExperimentalWarning" });
  target.emitWarning(Object.assign(new Error(sqlite), { name: "ExperimentalWarning" }));
  target.emitWarning(
    "WASI is an experimental feature and might change at any time",
    "ExperimentalWarning",
  );
  target.emitWarning(sqlite, "DeprecationWarning");
  target.emitWarning("Buffer() is deprecated", "DeprecationWarning", "DEP0005");
  assert.deepEqual(seen.map((args) => [String(args[0]), args[1]]), [
    ["WASI is an experimental feature and might change at any time", "ExperimentalWarning"],
    [sqlite, "DeprecationWarning"],
    ["Buffer() is deprecated", "DeprecationWarning"],
  ]);
});
