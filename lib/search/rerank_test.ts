import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { createFetcher } from "../net/fetch.ts";
import { rejectsWith } from "../../testing/asserts.ts";
import { startFakeReranker } from "../../testing/fixtures/fake_quality.ts";
import { orderHits, recency, rerankerFromConfig } from "./rerank.ts";

const KEY = "jina_rerank_secret_42";

function setup(url: string, extra: Record<string, unknown> = {}) {
  const origin = new URL(url).origin;
  const config = parseConfig({
    network: { allow_private: [origin], allowed_ports: [Number(new URL(url).port)] },
    search: { rerank_url: url, rerank_api_key: KEY, rerank_timeout_ms: 500, ...extra },
  });
  return rerankerFromConfig(config, createFetcher(config.network))!;
}

Deno.test("reranker: sends Jina's request and maps results[].index to the documents", async () => {
  const fake = startFakeReranker({ key: KEY });
  try {
    const reranker = setup(fake.url, { rerank_model: "jina-reranker-v2-base-multilingual" });
    const docs = ["Cats\nAbout cats", "SQLite WAL\nwrite-ahead log checkpoints", "Logs\nwal"];
    const scores = await reranker.rerank("sqlite wal checkpoint", docs);
    const [req] = fake.requests;
    assert.equal(req.headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(req.body, {
      model: "jina-reranker-v2-base-multilingual",
      query: "sqlite wal checkpoint",
      documents: docs,
      top_n: 3,
    });
    // The fake answers most relevant first, so index, not position, must carry the score.
    assert.ok(scores[1] > scores[2] && scores[2] > scores[0], JSON.stringify(scores));
  } finally {
    await fake.close();
  }
});

Deno.test("reranker: documented failures map to stable codes without the key", async () => {
  const fake = startFakeReranker({ key: KEY });
  try {
    const reranker = setup(fake.url);
    const cases = [
      ["unauthorized", "unauthorized", /search\.rerank_api_key/],
      ["invalid", "invalid_arguments", /HTTP 422/],
      ["rate_limited", "rate_limited", /HTTP 429/],
      ["slow", "timeout", /./],
    ] as const;
    for (const [mode, code, message] of cases) {
      fake.setMode(mode);
      const error = await rejectsWith(reranker.rerank("q", ["a", "b"]), code, mode);
      assert.match(error.message, message, mode);
      assert.ok(!error.message.includes(KEY), "the key is never echoed");
      if (mode === "rate_limited") assert.equal(error.details?.retry_after_s, 7);
    }
  } finally {
    await fake.close();
  }
});

Deno.test("reranker: a malformed answer is provider_unavailable", async () => {
  const fake = startFakeReranker();
  try {
    fake.setScore(() => Number.NaN); // JSON turns NaN into null: not a number
    await rejectsWith(setup(fake.url).rerank("q", ["a", "b"]), "provider_unavailable");
  } finally {
    await fake.close();
  }
});

Deno.test("orderHits: relevance, recency by its weight, and a profile's boost", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  const hits = [
    { url: "https://old.example/a", published: "2016-01-01T00:00:00Z" },
    { url: "https://new.example/b", published: "2025-12-01T00:00:00Z" },
    { url: "https://undated.example/c" },
  ];
  const relevance = [0.9, 0.5, 0.1];
  const byRelevance = orderHits(hits, { relevance, now }).map((h) => h.url);
  assert.deepEqual(byRelevance, [hits[0].url, hits[1].url, hits[2].url]);
  const byRecency = orderHits(hits, { relevance, recencyWeight: 1, now }).map((h) => h.url);
  assert.deepEqual(byRecency, [hits[1].url, hits[2].url, hits[0].url], "undated counts 0.5");
  const mixed = orderHits(hits, { relevance, recencyWeight: 0.5, now }).map((h) => h.url);
  assert.equal(mixed[0], hits[1].url, "0.5·0.5 + 0.5·0.94 beats 0.5·1 + 0.5·0.001");
  // Without a reranker, recency is not applied: the provider's order, plus the boost.
  const provider = orderHits(hits, { recencyWeight: 1, now }).map((h) => h.url);
  assert.deepEqual(provider, byRelevance);
  const boosted = orderHits(hits, { prefer: ["undated.example"], boost: 1, now });
  assert.equal(boosted[0].url, hits[2].url);
  assert.equal(recency("2025-01-01T00:00:00Z", now), 0.5);
  assert.equal(recency("not a date", now), 0.5);
});

Deno.test("reranker: unset without search.rerank_url", () => {
  const config = parseConfig({});
  assert.equal(rerankerFromConfig(config, createFetcher(config.network)), undefined);
});

Deno.test("reranker: a name that does not resolve is named, with search.rerank_url", async () => {
  const config = parseConfig({
    search: { rerank_url: "https://rerank.lan/v1/rerank", rerank_api_key: KEY },
  });
  // The system resolver answering ENOTFOUND for the configured host (no DNS traffic in tests).
  const resolver = () =>
    Promise.reject(
      Object.assign(new Error("getaddrinfo ENOTFOUND rerank.lan"), { code: "ENOTFOUND" }),
    );
  const reranker = rerankerFromConfig(config, createFetcher(config.network, { resolver }))!;
  const error = await rejectsWith(reranker.rerank("q", ["a", "b"]), "provider_unavailable");
  assert.match(
    error.message,
    /^reranker: could not resolve rerank\.lan\b.*; check search\.rerank_url$/,
  );
  assert.ok(!error.message.includes(KEY), "the key is never echoed");
});
