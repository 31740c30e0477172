import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { sharedReranker } from "./reranker.ts";
import { DENO_RUN_FLAGS } from "../../testing/fixtures/world.ts";

Deno.test("sharedReranker: none gives null; use-lite loads once and is shared", async () => {
  assert.equal(await sharedReranker(parseConfig({}).rank), null);
  const rank = parseConfig({ rank: { rerank: "use-lite" } }).rank;
  const a = await sharedReranker(rank);
  const b = await sharedReranker(rank);
  assert.ok(a?.embedder, a?.error ?? "no reranker");
  assert.equal(a.embedder, b?.embedder, "one model per process");
  const [v] = await a.embedder.embedDocuments(["The tower is 330 metres high."]);
  assert.equal(v.length, 512);
});

Deno.test("a process that used the shared reranker ends on its own", async () => {
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    const reranker = new URL("./reranker.ts", import.meta.url).href;
    const config = new URL("../config/config.ts", import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `import { sharedReranker } from "${reranker}";
import { parseConfig } from "${config}";
const loaded = await sharedReranker(parseConfig({ rank: { rerank: "use-lite" } }).rank);
const [v] = await loaded!.embedder!.embedDocuments(["The tower is 330 metres high."]);
Deno.stdout.writeSync(new TextEncoder().encode(String(v.length)));
`,
    );
    // The worker thread must not hold the finished process open (watchdog: 60 s).
    const root = new URL("../../", import.meta.url).pathname;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...DENO_RUN_FLAGS, "--config", `${root}deno.json`, script],
      cwd: root,
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
    assert.equal(
      new TextDecoder().decode(output.stdout),
      "512",
      new TextDecoder().decode(output.stderr),
    );
    assert.equal(output.code, 0);
    assert.equal(output.signal, null, "ended by itself, not by the watchdog");
  } finally {
    await Deno.remove(script);
  }
});
