/**
 * `gleaner serve` in an unknown state ends itself: after an unhandled promise
 * rejection or an error thrown from a callback, the real server process logs
 * the failure (level fatal, category `gleaner.process`), flushes its logs and
 * exits with code 70, so a supervisor restarts a clean process.
 */
import assert from "node:assert/strict";
import { DENO_RUN_FLAGS } from "../testing/fixtures/world.ts";
import { freePort } from "../testing/fixtures/serve.ts";
import { UNCAUGHT_EXIT_CODE } from "../lib/log.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;
const PRELOAD = new URL("./testdata/careless_preload.ts", import.meta.url).pathname;

async function serveCarelessly(kind: "rejection" | "throw") {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...DENO_RUN_FLAGS, `--preload=${PRELOAD}`, CLI, "serve"],
    env: {
      CARELESS: kind,
      GLEANER_PORT: String(port),
      GLEANER_STORE_PATH: ":memory:",
      GLEANER_MEMORY_ENABLED: "false",
      GLEANER_EMBED_PROVIDER: "none",
      XDG_CONFIG_HOME: "/nonexistent/gleaner-test-config",
      NO_COLOR: "1",
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  // Killed if it has not ended by itself within a minute (then the assertions below fail).
  const guard = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }, 60_000);
  try {
    const [status, stderr] = await Promise.all([
      child.status,
      new Response(child.stderr).text(),
    ]);
    return { status, stderr };
  } finally {
    clearTimeout(guard);
  }
}

for (
  const [kind, what, message] of [
    ["rejection", "unhandled promise rejection", "rejection left unhandled on purpose"],
    ["throw", "uncaught error", "error thrown from a timer on purpose"],
  ] as const
) {
  Deno.test(`serve: an ${what} is logged and flushed, then the process exits ${UNCAUGHT_EXIT_CODE}`, async () => {
    const { status, stderr } = await serveCarelessly(kind);
    assert.equal(status.signal, null, `ended by itself, not killed:\n${stderr}`);
    assert.equal(status.code, UNCAUGHT_EXIT_CODE, stderr);
    assert.match(stderr, /Gleaner listening on/, "it was serving first");
    assert.match(
      stderr,
      new RegExp(`${what}: exiting with code 70 so a supervisor restarts the process`),
    );
    assert.ok(stderr.includes(message), "the error itself is in the log");
  });
}
