/**
 * `gleaner setup` (the command, in a fresh data directory) says what it did,
 * step by step, and proves the browser works: real Chromium launched, a page
 * rendered whose title only a running script sets. A browser that cannot
 * start fails that step alone, with the fix; the other steps are done.
 */
import assert from "node:assert/strict";
import { browserSuffix, chromium, ignoreBrowser } from "../testing/fixtures/browser.ts";
import { gleanerInProcess } from "../testing/fixtures/cli.ts";
import type { SetupReport } from "./setup.ts";

/** `gleaner setup <args>` in process: its steps, output and exit code are what is tested. */
async function setup(root: string, args: string[], env: Record<string, string> = {}) {
  const out = await gleanerInProcess(["setup", ...args], {
    ...Deno.env.toObject(),
    XDG_DATA_HOME: `${root}/data`,
    XDG_CONFIG_HOME: `${root}/config`,
    GLEANER_LOG_LEVEL: "warning",
    ...env,
  });
  return { code: out.code, stdout: out.out, stderr: out.err };
}

Deno.test({
  name:
    `gleaner setup: each step on its own line; stores created, model ready, a page rendered${browserSuffix}`,
  ignore: ignoreBrowser,
  async fn() {
    assert.ok(chromium, "Chromium is required (GLEANER_REQUIRE_BROWSER=1)");
    const root = await Deno.makeTempDir({ prefix: "gleaner-setup-" });
    try {
      const out = await setup(root, []);
      assert.equal(out.code, 0, out.stdout + out.stderr);
      const lines = out.stdout.trimEnd().split("\n");
      const line = (name: string) => lines.find((l) => l.startsWith(`ok   ${name}: `));
      assert.match(line("store") ?? out.stdout, new RegExp(`${root}/data/gleaner/gleaner\\.db`));
      assert.match(
        line("memory store") ?? out.stdout,
        /memory\.db: migrated from schema 0 to \d+; sqlite-vec/,
      );
      assert.match(line("ranking model") ?? out.stdout, /embedded a test sentence/);
      assert.match(
        line("browser") ?? out.stdout,
        /headless Chromium started and rendered a test page \(script ran\)/,
      );
      assert.match(lines.at(-1)!, /^ready in \d+\.\d s$/);
      await Deno.stat(`${root}/data/gleaner/gleaner.db`);
      await Deno.stat(`${root}/data/gleaner/memory.db`);

      // Again: nothing left to migrate, and the same report as JSON.
      const again = await setup(root, ["--json"]);
      const report = JSON.parse(again.stdout) as SetupReport;
      assert.equal(report.ok, true);
      assert.deepEqual(report.steps.map((s) => s.name), [
        "config",
        "store",
        "memory store",
        "ranking model",
        "query expansion",
        "browser",
      ]);
      assert.match(report.steps[2].detail, /memory\.db: schema \d+;/);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("gleaner setup: a browser that cannot start fails that step with its fix; the rest is done", async () => {
  const root = await Deno.makeTempDir({ prefix: "gleaner-setup-" });
  try {
    const out = await setup(root, [], { GLEANER_READ_CHROME_PATH: `${root}/no-chromium` });
    assert.equal(out.code, 1, out.stdout + out.stderr);
    const lines = out.stdout.trimEnd().split("\n");
    const browser = lines.find((l) => l.startsWith("FAIL browser: "));
    assert.ok(browser, out.stdout);
    assert.match(browser, /; fix: install Chromium .*read\.render: never turns the browser off/);
    for (const name of ["store", "memory store", "ranking model"]) {
      assert.ok(lines.some((l) => l.startsWith(`ok   ${name}: `)), `${name} done:\n${out.stdout}`);
    }
    assert.match(lines.at(-1)!, /^1 step failed/);

    // With the browser turned off there is nothing to prove.
    const off = await setup(root, [], { GLEANER_READ_RENDER: "never" });
    assert.equal(off.code, 0, off.stdout);
    assert.match(off.stdout, /^skip browser: read\.render is never/m);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
