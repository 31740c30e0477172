/**
 * The memory service's HTTP mirror, through the real server on loopback: every memory tool
 * answers at a path named after it (`POST /save_memories`, `POST|GET /recall_memories`,
 * `POST|GET /list_memories`, `POST|GET /get_memory`, `POST /update_memory`,
 * `POST /delete_memory`) beside `/v1/memories/*`, with the same answers, the same checks and the
 * same bearer key.
 */
import assert from "node:assert/strict";
import { createGleaner } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";

const KEY = "mirror-test-key-0123456789";

Deno.test("memory mirror: /save_memories, /recall_memories (POST and GET) and the rest, same key", async () => {
  const gleaner = await createGleaner({
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read: { render: "never" },
    memory: { path: ":memory:" },
    server: { port: 0, api_key: KEY },
  });
  const server = serveHttp(gleaner);
  const auth = { authorization: `Bearer ${KEY}` };
  const post = async (path: string, body: unknown, headers: Record<string, string> = auth) => {
    const response = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  const get = async (path: string) => {
    const response = await fetch(`${server.url}${path}`, { headers: auth });
    return { status: response.status, body: await response.json() };
  };
  try {
    // The same key as the rest of the API.
    const refused = await post("/save_memories", { memories: [{ content: "x" }] }, {});
    assert.equal(refused.status, 401);

    const saved = await post("/save_memories", {
      memories: [
        { content: "The user drinks green tea every morning." },
        { content: "The user's dog is called Biscuit." },
      ],
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const refs = saved.body.results.map((item: { ref: string }) => item.ref);
    assert.equal(refs.length, 2);

    const byPost = await post("/recall_memories", { query: "what does the user drink" });
    assert.equal(byPost.status, 200);
    const byGet = await get(
      `/recall_memories?query=${encodeURIComponent("what does the user drink")}`,
    );
    assert.equal(byGet.status, 200);
    const rest = await post("/v1/memories/recall", { query: "what does the user drink" });
    const contents = (body: { memories: { content: string }[] }) =>
      body.memories.map((memory) => memory.content);
    assert.deepEqual(
      contents(byGet.body),
      contents(rest.body),
      "GET answers as /v1/memories/recall",
    );
    assert.deepEqual(contents(byPost.body), contents(rest.body));
    assert.match(contents(byGet.body)[0], /green tea/);

    // Query-string values are read as the schema's types (a number here).
    const budget = await get(`/recall_memories?query=tea&max_tokens=notanumber`);
    assert.equal(budget.status, 400);
    assert.equal(budget.body.error.code, "invalid_arguments");
    assert.match(budget.body.error.message, /max_tokens/);
    const small = await get(`/recall_memories?query=tea&max_tokens=300`);
    assert.equal(small.status, 200);

    const listed = await get("/list_memories?limit=1");
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.equal(listed.body.memories.length, 1);

    const one = await get(`/get_memory?memory_id=${refs[1]}`);
    assert.equal(one.status, 200, JSON.stringify(one.body));
    assert.match(one.body.memory.content, /Biscuit/);

    const updated = await post("/update_memory", {
      memory_id: refs[1],
      content: "The user's dog is called Biscuit; she is a beagle.",
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));

    // A tool that changes memories answers POST only.
    const notGet = await fetch(`${server.url}/delete_memory?memory_id=${refs[0]}`, {
      headers: auth,
    });
    assert.equal(notGet.status, 404);
    await notGet.body?.cancel();
    const deleted = await post("/delete_memory", { memory_id: refs[0] });
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    const gone = await get(`/get_memory?memory_id=${refs[0]}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, "not_found");
  } finally {
    await server.shutdown();
    await gleaner.close();
  }
});
