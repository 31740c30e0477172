/**
 * The memory settings reach the memory tools through the real surfaces: the
 * REST API of a Gleaner configured in code, and the library's `callTool`.
 */
import assert from "node:assert/strict";
import { createGleaner } from "../mod.ts";
import { callTool } from "../lib/api.ts";
import { recallMemoriesTool } from "../lib/tools/recall_memories.ts";
import { serveHttp } from "../http/serve.ts";
import { LOOKALIKE_PAIR, lookalikeSimilarity } from "../lib/memory/testing/contract.ts";

type Notice = { code: string; near_duplicate?: boolean; message: string };

/** Two facts the shipped static model puts between the default thresholds (0.80 and 0.95). */
const REX = LOOKALIKE_PAIR;

async function withRest(
  memory: Record<string, unknown>,
  fn: (post: (path: string, body: unknown) => Promise<Record<string, unknown>>) => Promise<void>,
): Promise<void> {
  const gleaner = await createGleaner({
    server: { port: 0 },
    store: { path: ":memory:" },
    embed: { provider: "static" },
    memory: { path: ":memory:", ...memory },
  });
  const server = serveHttp(gleaner);
  try {
    await fn(async (path, body) => {
      const res = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 200, path);
      return await res.json();
    });
  } finally {
    await server.shutdown();
    await gleaner.close();
  }
}

/** The `similar_to` notices of saving the second REX fact after the first, over REST. */
async function similarOverRest(memory: Record<string, unknown>): Promise<Notice[]> {
  let notices: Notice[] = [];
  await withRest(memory, async (post) => {
    await post("/v1/memories/save", { memories: [{ content: REX[0] }] });
    const out = await post("/v1/memories/save", { memories: [{ content: REX[1] }] });
    notices = (out.notices as Notice[]).filter((n) => n.code === "similar_to");
  });
  return notices;
}

Deno.test("REST: memory.review_similarity and duplicate_similarity decide similar_to", async () => {
  const rex = await lookalikeSimilarity();
  assert.ok(rex >= 0.81 && rex < 0.94, `the pair's similarity ${rex} sits between the defaults`);
  const byDefault = await similarOverRest({});
  assert.equal(byDefault.length, 1);
  assert.equal(byDefault[0].near_duplicate, false);
  const strict = await similarOverRest({ duplicate_similarity: rex - 0.01 });
  assert.equal(strict.length, 1);
  assert.equal(strict[0].near_duplicate, true);
  assert.deepEqual(await similarOverRest({ review_similarity: rex + 0.01 }), []);
});

Deno.test("REST and library: memory.recall_budget is the budget of a recall without max_tokens", async () => {
  const facts = Array.from(
    { length: 5 },
    (_, i) => `Deploys to staging need approval number ${i + 1}.`,
  );
  await withRest({ recall_budget: 100, split_tokens: 5 }, async (post) => {
    const saved = await post("/v1/memories/save", {
      memories: facts.map((content) => ({ content })),
    });
    assert.equal(
      (saved.notices as Notice[]).filter((n) => n.code === "consider_splitting").length,
      5,
      "memory.split_tokens 5",
    );
    const cut = await post("/v1/memories/recall", { query: "deploys to staging" });
    assert.ok((cut.memories as unknown[]).length < 5);
    assert.ok((cut.notices as Notice[]).some((n) => n.message.includes("max_tokens 100")));
    const asked = await post("/v1/memories/recall", {
      query: "deploys to staging",
      max_tokens: 2_000,
    });
    assert.equal((asked.memories as unknown[]).length, 5);
  });

  const gleaner = await createGleaner({
    store: { path: ":memory:" },
    embed: { provider: "none" },
    memory: { path: ":memory:", recall_budget: 100 },
  });
  try {
    await (await gleaner.memories()).save({ memories: facts.map((content) => ({ content })) });
    const out = await callTool(recallMemoriesTool, gleaner, { query: "deploys to staging" });
    assert.ok(out.memories.length < 5);
    assert.ok(out.notices.some((n) => n.message.includes("max_tokens 100")));
  } finally {
    await gleaner.close();
  }
});

Deno.test("REST: memory.context_max_tokens and context_after bound the turns a recall brings as context", async () => {
  const turns = [
    "Did you finish the mural at the library?",
    "Yes, the mural at the library shows the river in spring.",
    "That must have taken weeks of painting.",
    "Almost a month, mostly on weekends with my sister.",
  ];
  const contextOf = async (memory: Record<string, unknown>) => {
    let context: { content: string }[] = [];
    await withRest(memory, async (post) => {
      await post("/v1/memories/save", {
        memories: turns.map((content, i) => ({
          content,
          session_id: "s1",
          occurred_at: "2024-03-02",
          author: i % 2 ? "Ana" : "Ben",
        })),
      });
      const out = await post("/v1/memories/recall", {
        query: "What does Ana's library mural show?",
        top_k: 1,
      });
      const [hit] = out.memories as { content: string; context?: { content: string }[] }[];
      assert.equal(hit.content, turns[1]);
      context = hit.context ?? [];
    });
    return context.map((c) => c.content);
  };
  assert.deepEqual(await contextOf({}), [turns[2], turns[0], turns[3]], "the defaults: 2 and 2");
  assert.deepEqual(await contextOf({ context_after: 0 }), [turns[0]]);
  assert.deepEqual(await contextOf({ context_max_tokens: 0 }), []);
  const one = await contextOf({ context_max_tokens: 25 });
  assert.deepEqual(one, [turns[2]], "room for the nearest next turn only");
});
