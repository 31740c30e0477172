/**
 * `gleaner serve` keeps serving after an unhandled promise rejection or an
 * error thrown from a callback: both are logged through the logger.
 */
import assert from "node:assert/strict";
import { DENO_RUN_FLAGS } from "../testing/fixtures/world.ts";
import { freePort } from "../testing/fixtures/serve.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;
const PRELOAD = new URL("./testdata/careless_preload.ts", import.meta.url).pathname;

Deno.test("serve: an unhandled rejection and an uncaught error are logged, and /health still answers", async () => {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...DENO_RUN_FLAGS, `--preload=${PRELOAD}`, CLI, "serve"],
    env: {
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
  let stderr = "";
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  try {
    const deadline = Date.now() + 30_000;
    while (!(/rejection left unhandled/.test(stderr) && /error thrown from a timer/.test(stderr))) {
      const timeout = new Promise<"timeout">((resolve) =>
        setTimeout(() => resolve("timeout"), Math.max(0, deadline - Date.now()))
      );
      const chunk = await Promise.race([reader.read(), timeout]);
      if (chunk === "timeout") assert.fail(`no log of both failures within 30 s:\n${stderr}`);
      if (chunk.done) assert.fail(`the server exited:\n${stderr}`);
      stderr += chunk.value;
    }
    assert.match(stderr, /unhandled promise rejection \(still serving\)/);
    assert.match(stderr, /uncaught error \(still serving\)/);
    // Both were handled: the process lives and answers.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    assert.equal(health.status, 200);
    assert.equal((await health.json()).status, "ok");
  } finally {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await reader.cancel().catch(() => {});
    await child.status;
  }
});
