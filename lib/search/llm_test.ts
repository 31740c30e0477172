import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { createFetcher } from "../net/fetch.ts";
import { rejectsWith } from "../../testing/asserts.ts";
import { startFakeOllama } from "../../testing/fixtures/fake_quality.ts";
import { llmFromConfig, rewriteQuery } from "./llm.ts";

function setup(origin: string, llm: Record<string, unknown>) {
  const config = parseConfig({
    network: { allow_private: [origin], allowed_ports: [Number(new URL(origin).port)] },
    llm: { url: origin, model: "llama3.2", timeout_ms: 2_000, ...llm },
  });
  return llmFromConfig(config, createFetcher(config.network))!;
}

Deno.test("llm: /api/generate and /api/chat as Ollama documents them", async () => {
  const fake = startFakeOllama();
  try {
    fake.setReply((asked) => `${asked.api}: ${asked.prompt}`);
    const generate = setup(fake.origin, { api: "generate" });
    const text = await generate.complete({ system: "S", prompt: "P", maxTokens: 32 });
    assert.equal(text, "generate: P");
    assert.equal(fake.requests[0].path, "/api/generate");
    assert.deepEqual(fake.requests[0].body, {
      model: "llama3.2",
      system: "S",
      prompt: "P",
      stream: false,
      options: { num_predict: 32, temperature: 0 },
    });
    const chat = setup(`${fake.origin}/api/chat`, { api: "chat" });
    assert.equal(await chat.complete({ system: "S", prompt: "Q", maxTokens: 8 }), "chat: Q");
    assert.equal(fake.requests[1].path, "/api/chat");
    assert.deepEqual(fake.requests[1].body.messages, [
      { role: "system", content: "S" },
      { role: "user", content: "Q" },
    ]);
    assert.equal(fake.requests[1].body.stream, false);
  } finally {
    await fake.close();
  }
});

Deno.test("llm: documented errors map to stable codes", async () => {
  const fake = startFakeOllama();
  try {
    const missing = setup(fake.origin, { model: "no-such-model" });
    const notFound = await rejectsWith(
      missing.complete({ system: "", prompt: "x", maxTokens: 8 }),
      "not_found",
    );
    assert.match(notFound.message, /llm\.model/);
    const llm = setup(fake.origin, {});
    fake.setMode("rate_limited");
    await rejectsWith(llm.complete({ system: "", prompt: "x", maxTokens: 8 }), "rate_limited");
    fake.setMode("error");
    await rejectsWith(
      llm.complete({ system: "", prompt: "x", maxTokens: 8 }),
      "provider_unavailable",
    );
  } finally {
    await fake.close();
  }
});

Deno.test("llm: a rewrite is one bounded line; an empty one fails", async () => {
  const fake = startFakeOllama();
  try {
    const llm = setup(fake.origin, {});
    fake.setReply(() => '<think>hmm</think>\n\n  Query: "sqlite wal checkpoint"\nbecause …');
    assert.equal(await rewriteQuery(llm, "why does my db grow"), "sqlite wal checkpoint");
    const sent = fake.requests[0].body.messages as { role: string; content: string }[];
    assert.equal(sent[1].content, "why does my db grow");
    assert.equal((fake.requests[0].body.options as { num_predict: number }).num_predict, 64);
    fake.setReply(() => "x".repeat(5_000));
    assert.equal((await rewriteQuery(llm, "q")).length, 300);
    fake.setReply(() => "\n \n");
    await rejectsWith(rewriteQuery(llm, "q"), "provider_unavailable");
  } finally {
    await fake.close();
  }
});

Deno.test("llm: unset without llm.url and llm.model", () => {
  const config = parseConfig({ llm: { url: "http://127.0.0.1:11434" } });
  assert.equal(llmFromConfig(config, createFetcher(config.network)), undefined);
});
