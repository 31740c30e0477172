import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { extractHtml } from "../extract/mod.ts";
import { countTokens } from "../text/tokens.ts";
import type { Page } from "../read/types.ts";
import { PAGES_PATH } from "../../testing/fixtures/web.ts";
import { gatherEvidence, startRerankQueries } from "./gather.ts";
import { loadQueryExpander, type QueryExpander } from "../rank/expand.ts";
import { createUseLiteEmbedder } from "../embed/use_lite.ts";
import type { Embedder, EmbeddingCache } from "../embed/types.ts";
import { createStaticEmbedder } from "../embed/static.ts";
import { sharedReranker } from "../embed/reranker.ts";
import { openDatabase } from "../store/sqlite.ts";
import { SqliteEmbeddingCache } from "../store/embeddings.ts";

const rank = parseConfig({}).rank;

async function realPage(name: string): Promise<Page> {
  const html = await Deno.readTextFile(`${PAGES_PATH}/${name}/source.html`);
  const url = `https://fixture.example/${name}`;
  const extracted = extractHtml(html, url);
  return { ...extracted, url, finalUrl: url, tier: "http", mediaType: "text/html", fetchedAt: "" };
}

Deno.test("gatherEvidence: one ranking across pages of the same query, budget never exceeded", async () => {
  const pages = await Promise.all(
    ["002", "mozilla-1", "wikipedia", "ars-1", "nytimes-1"].map(realPage),
  );
  for (const budget of [120, 500, 1000, 4000]) {
    const packet = await gatherEvidence({
      reads: pages.map((page) => ({
        page,
        query: "which attribute tells whether a body was already read",
      })),
      maxTokens: budget,
      rank,
    });
    assert.equal(packet.tokens, countTokens(packet.text));
    assert.ok(packet.tokens <= budget, `${packet.tokens} <= ${budget}`);
    assert.equal(packet.ranking, "bm25");
    for (const item of packet.items) {
      const page = pages.find((p) => p.finalUrl === item.url)!;
      assert.equal(
        page.markdown.slice(item.start, item.end),
        item.text,
        "evidence is the original text",
      );
    }
  }
  const packet = await gatherEvidence({
    reads: pages.map((page) => ({ page, query: "bodyUsed attribute safe to read" })),
    maxTokens: 500,
    rank,
  });
  assert.equal(packet.items[0].url, "https://fixture.example/002", "the page that answers wins");
  assert.ok(packet.text.includes("bodyUsed"));
});

Deno.test("gatherEvidence: different queries get fair shares; a page without a query is read in order", async () => {
  const [fetchPage, wiki, ars] = await Promise.all(["002", "wikipedia", "ars-1"].map(realPage));
  const packet = await gatherEvidence({
    reads: [
      { page: fetchPage, query: "bodyUsed attribute" },
      { page: wiki, query: "*" },
      { page: ars, query: "security vulnerability" },
    ],
    maxTokens: 900,
    rank,
  });
  assert.ok(packet.tokens <= 900);
  const byUrl = (url: string) => packet.items.filter((i) => i.url === url);
  const wikiItems = byUrl(wiki.finalUrl);
  assert.equal(wikiItems.length, 1);
  assert.equal(wikiItems[0].start, wiki.markdown.length - wiki.markdown.trimStart().length);
  assert.ok(byUrl(fetchPage.finalUrl).length > 0, "first query got evidence");
  assert.ok(byUrl(ars.finalUrl).length > 0, "second query got evidence");
  const tokensOf = (url: string) => countTokens(byUrl(url).map((i) => i.text).join("\n"));
  assert.ok(tokensOf(wiki.finalUrl) <= 900 / 3 + 5, "the in-order page kept to its share");
});

Deno.test("gatherEvidence: a short page uses only what it needs and the rest goes to the others", async () => {
  const [fetchPage, wiki] = await Promise.all(["002", "wikipedia"].map(realPage));
  const tiny: Page = {
    ...fetchPage,
    url: "https://fixture.example/tiny",
    finalUrl: "https://fixture.example/tiny",
    markdown: "Just one short line.",
  };
  const packet = await gatherEvidence({
    reads: [{ page: tiny }, { page: wiki }],
    maxTokens: 1000,
    rank,
  });
  assert.ok(packet.items.some((i) => i.text === "Just one short line."));
  const wikiTokens = countTokens(
    packet.items.filter((i) => i.url === wiki.finalUrl).map((i) => i.text).join(""),
  );
  assert.ok(wikiTokens > 800, `the long page took the unused budget (${wikiTokens})`);
  assert.ok(packet.tokens <= 1000);
});

Deno.test("gatherEvidence: the use-lite cascade runs when configured, and a failing reranker falls back", async () => {
  const pages = await Promise.all(["002", "wikipedia"].map(realPage));
  const reads = pages.map((page) => ({
    page,
    query: "which attribute tells whether a body was read",
  }));
  const cascade = await gatherEvidence({
    reads,
    maxTokens: 500,
    rank: parseConfig({ rank: { rerank: "use-lite" } }).rank,
  });
  assert.equal(cascade.ranking, "bm25+rerank");
  assert.equal(cascade.rerankError, undefined);
  assert.ok(cascade.tokens <= 500 && cascade.items.length > 0);

  const broken = {
    id: "test:broken",
    dimensions: 4,
    embedQueries: () => Promise.reject(new Error("reranker runtime missing")),
    embedDocuments: () => Promise.reject(new Error("reranker runtime missing")),
  };
  const fallback = await gatherEvidence({ reads, maxTokens: 500, rank, reranker: broken });
  const plain = await gatherEvidence({ reads, maxTokens: 500, rank });
  assert.equal(fallback.ranking, "bm25");
  assert.equal(fallback.rerankError, "reranker runtime missing");
  assert.equal(fallback.text, plain.text, "same evidence as without a reranker");
  for (const item of [...cascade.items, ...fallback.items]) {
    const page = pages.find((p) => p.finalUrl === item.url)!;
    assert.equal(page.markdown.slice(item.start, item.end), item.text);
  }
});

Deno.test("gatherEvidence: a passage reranked once is read from the embedding cache after", async () => {
  const pages = await Promise.all(["002", "wikipedia"].map(realPage));
  const db = openDatabase(":memory:");
  // The real encoder without its in-process LRU, counted on the way in.
  const use = await createUseLiteEmbedder({ lruSize: 0 });
  const embedded: string[][] = [];
  const counted: Embedder = {
    id: use.id,
    dimensions: use.dimensions,
    embedQueries: (texts, signal) => use.embedQueries(texts, signal),
    embedDocuments: (texts, signal) => {
      embedded.push(texts);
      return use.embedDocuments(texts, signal);
    },
  };
  try {
    const cascadeRank = { ...parseConfig({ rank: { rerank: "use-lite" } }).rank, rerank_top_k: 4 };
    const ask = (query: string) =>
      gatherEvidence({
        reads: pages.map((page) => ({ page, query })),
        maxTokens: 500,
        rank: cascadeRank,
        reranker: counted,
        embeddingCache: new SqliteEmbeddingCache(db),
      });
    const first = await ask("which attribute tells whether a body was read");
    assert.equal(first.ranking, "bm25+rerank");
    const firstTexts = embedded.flat();
    assert.ok(firstTexts.length > 0);
    embedded.length = 0;
    const again = await ask("which attribute tells whether a body was read");
    assert.deepEqual(embedded.flat(), [], "no passage embedded a second time");
    assert.equal(again.text, first.text);
    const other = await ask("what does the request body look like");
    assert.equal(other.ranking, "bm25+rerank");
    for (const text of embedded.flat()) assert.ok(!firstTexts.includes(text), text);
  } finally {
    await use.close?.();
    db.close();
  }
});

Deno.test("gatherEvidence: the reranker's query vector is asked for once, before the first stage runs", async () => {
  const pages = await Promise.all(["002", "wikipedia"].map(realPage));
  const calls: string[] = [];
  // The real encoders, recording the order in which they are asked.
  const logged = (name: string, inner: Embedder): Embedder => ({
    id: inner.id,
    dimensions: inner.dimensions,
    embedQueries: (texts, signal) => {
      calls.push(`${name} query`);
      return inner.embedQueries(texts, signal);
    },
    embedDocuments: (texts, signal) => {
      calls.push(`${name} documents`);
      return inner.embedDocuments(texts, signal);
    },
  });
  const cascadeRank = { ...parseConfig({ rank: { rerank: "use-lite" } }).rank, rerank_top_k: 4 };
  // The process's shared model (loaded once for this file).
  const use = (await sharedReranker(cascadeRank))?.embedder;
  assert.ok(use);
  const packet = await gatherEvidence({
    reads: pages.map((page) => ({
      page,
      query: "which attribute tells whether a body was read",
    })),
    maxTokens: 500,
    rank: cascadeRank,
    embedder: logged("first", await createStaticEmbedder()),
    reranker: logged("rerank", use),
  });
  assert.equal(packet.ranking, "hybrid+rerank");
  assert.equal(calls[0], "rerank query", calls.join(", "));
  assert.deepEqual(calls.filter((c) => c === "rerank query"), ["rerank query"]);
  assert.deepEqual(calls.slice(-1), ["rerank documents"]);
});

Deno.test("startRerankQueries: the configured reranker's query vectors, asked for early and used by gatherEvidence", async () => {
  assert.equal(startRerankQueries(rank, ["when was it built"]).size, 0, "none configured");
  const cascadeRank = { ...parseConfig({ rank: { rerank: "use-lite" } }).rank, rerank_top_k: 4 };
  const early = startRerankQueries(cascadeRank, [
    " which attribute tells whether a body was read",
    "*",
    undefined,
  ]);
  assert.deepEqual([...early.keys()], ["which attribute tells whether a body was read"]);
  const [vector] = early.values();
  const use = (await sharedReranker(cascadeRank))?.embedder;
  assert.ok(use);
  const [expected] = await use.embedQueries(["which attribute tells whether a body was read"]);
  assert.deepEqual(await vector, expected);

  // The vector given is the one used: a failed one is the ranking's note.
  const pages = await Promise.all(["002", "wikipedia"].map(realPage));
  const failed = Promise.reject(new Error("early query vector failed"));
  failed.catch(() => {});
  const packet = await gatherEvidence({
    reads: pages.map((page) => ({ page, query: "which attribute tells whether a body was read" })),
    maxTokens: 500,
    rank: cascadeRank,
    rerankQueries: new Map([["which attribute tells whether a body was read", failed]]),
  });
  assert.equal(packet.ranking, "bm25");
  assert.equal(packet.rerankError, "early query vector failed");
});

Deno.test("gatherEvidence: with rank.rerank set, a cached page's passages are neither embedded nor read again", async () => {
  const pages = await Promise.all(["002", "wikipedia"].map(realPage));
  const db = openDatabase(":memory:");
  const store = new SqliteEmbeddingCache(db);
  const writes: string[] = [];
  const reads: string[] = [];
  // The real store, recording what the shared reranker writes (what it embedded) and reads.
  const embeddingCache: EmbeddingCache = {
    get: (model, hashes) => {
      reads.push(...hashes);
      return store.get(model, hashes);
    },
    put: (model, entries) => {
      writes.push(...entries.keys());
      return store.put(model, entries);
    },
  };
  try {
    const ask = () =>
      gatherEvidence({
        reads: pages.map((page) => ({
          page,
          query: "how are the request's bytes sent to the server",
        })),
        maxTokens: 500,
        rank: { ...parseConfig({ rank: { rerank: "use-lite" } }).rank, rerank_top_k: 4 },
        embeddingCache,
      });
    const first = await ask();
    assert.equal(first.ranking, "bm25+rerank");
    assert.ok(writes.length > 0, "the first call embeds and stores passages");
    writes.length = 0;
    reads.length = 0;
    const again = await ask();
    assert.equal(again.text, first.text);
    assert.deepEqual(writes, [], "no passage embedded a second time");
    assert.deepEqual(reads, [], "no passage read from the store again: they are kept in process");
  } finally {
    db.close();
  }
});

Deno.test("gatherEvidence: query expansion brings in the page's own words for a reworded question", async () => {
  const pages = await Promise.all(
    ["seattletimes-1", "mozilla-1", "wikipedia", "ars-1", "nytimes-1"].map(realPage),
  );
  const question = "What price per pound do boat crews usually get for the flatfish they land?";
  const answer = "Fishermen are typically paid between $5 and $6 a pound for halibut.";
  const run = async (expander?: QueryExpander) =>
    await gatherEvidence({
      reads: pages.map((page) => ({ page, query: question })),
      maxTokens: 300,
      rank,
      expander,
    });
  const plain = await run();
  assert.ok(!plain.text.includes(answer), "BM25 alone misses it at this budget");
  const expanded = await run(await loadQueryExpander());
  assert.ok(expanded.text.includes(answer), expanded.text);
  assert.ok(expanded.tokens <= 300);
  assert.equal(expanded.ranking, "bm25");
});

Deno.test("gatherEvidence: a page of 200,000 CJK characters without spaces gives evidence within the budget", async () => {
  let run = "";
  for (let i = 0; i < 200_000; i++) run += String.fromCharCode(0x4e00 + (i * 7919) % 3000);
  const url = "https://fixture.example/cjk";
  const page: Page = {
    url,
    finalUrl: url,
    title: "CJK",
    markdown: run,
    links: [],
    tier: "http",
    mediaType: "text/html",
    fetchedAt: "",
  };
  const packet = await gatherEvidence({
    reads: [{ page, query: run.slice(100_000, 100_004) }],
    maxTokens: 500,
    rank,
  });
  assert.ok(packet.tokens > 0 && packet.tokens <= 500, `${packet.tokens} tokens`);
  assert.equal(packet.tokens, countTokens(packet.text));
  const item = packet.items[0];
  assert.equal(page.markdown.slice(item.start, item.end), item.text);
  assert.ok(item.text.includes(run.slice(100_000, 100_004)), "the passage holding the query");
});

Deno.test("gatherEvidence: asking the same pages again selects the same passages (what is remembered of a page is never changed by a ranking), with a twin page among them", async () => {
  const [page, other] = await Promise.all(["002", "wikipedia"].map(realPage));
  const twin: Page = {
    ...page,
    url: "https://fixture.example/twin",
    finalUrl: "https://fixture.example/twin",
  };
  const ask = () =>
    gatherEvidence({
      reads: [page, other, twin].map((p) => ({
        page: p,
        query: "bodyUsed attribute safe to read",
      })),
      maxTokens: 500,
      rank,
    });
  const first = await ask();
  const again = await ask();
  assert.deepEqual(again.items, first.items, "remembered units, counts and vectors change nothing");
  assert.equal(again.text, first.text);
  const urls = new Set(first.items.map((item) => item.url));
  assert.ok(urls.has(page.finalUrl) || urls.has(twin.finalUrl));
  for (const item of first.items) {
    const source = [page, other, twin].find((p) => p.finalUrl === item.url)!;
    assert.equal(source.markdown.slice(item.start, item.end), item.text);
  }
});
