/**
 * Ranking is paced like reading: while a huge page is chunked, counted,
 * indexed, embedded and cut to the budget, a server in the same process
 * keeps answering, and the paced steps give the same results as the
 * synchronous API. Latency figures are in `deno task bench health`
 * (query-ranked case); nothing here is timed.
 */
import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { createEmbedder } from "../embed/mod.ts";
import { expanderOptions, loadQueryExpander } from "../rank/expand.ts";
import { Bm25Index, bm25Rank, bm25RankPaced } from "../rank/bm25.ts";
import { chunkMarkdown, chunkMarkdownPaced } from "../text/chunk.ts";
import { countTokens, countTokensPaced } from "../text/tokens.ts";
import type { Page } from "../read/types.ts";
import { gatherEvidence } from "./gather.ts";
import { relatedLinks } from "./links.ts";

/** 200,000 CJK characters without a space or punctuation (as `tests/fixtures/hostile.ts`). */
function cjkRun(chars: number): string {
  let run = "";
  for (let i = 0; i < chars; i++) run += String.fromCharCode(0x4e00 + (i * 7919) % 3000);
  return run;
}

/** A long article of ordinary prose in Markdown: headings, paragraphs of varied sentences. */
function article(chars: number): string {
  const words = [
    "tide",
    "moon",
    "ocean",
    "rises",
    "falls",
    "coast",
    "twice",
    "daily",
    "pull",
    "sun",
  ];
  const parts: string[] = [];
  let length = 0;
  let seed = 7;
  for (let s = 0; length < chars; s++) {
    if (s % 40 === 0) parts.push(`\n\n## Section ${s / 40}\n\n`);
    const sentence: string[] = [];
    for (let i = 0; i < 8 + (s % 13); i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      sentence.push(words[seed % words.length]);
    }
    const text = sentence.join(" ").replace(/^./, (c) => c.toUpperCase()) + ". ";
    parts.push(s % 4 === 3 ? `${text}\n\n` : text);
    length += text.length;
  }
  return parts.join("").trim();
}

function page(url: string, markdown: string): Page {
  const base = { url, finalUrl: url, title: "Page", markdown, links: [], tier: "http" as const };
  return { ...base, mediaType: "text/markdown", fetchedAt: "" };
}

/** Hostile and ordinary texts: the paced and the synchronous paths must agree on each. */
const TEXTS: Record<string, string> = {
  "CJK run": cjkRun(60_000),
  "article": article(120_000),
  "one long word": "abcdefghij".repeat(20_000),
  "astral CJK and emoji": "𠀀𠀁😀漢字 ".repeat(6_000),
  "mixed blocks": ("# Title\n\n| a | b |\n| 一二 | x |\n\n```\ncode\n```\n\n- item one. Two.\n\n" +
    "Mr. Smith arrived. e.g. this. 漢字。次の文！\n\n").repeat(1_500),
};

Deno.test("paced ranking steps give the same results as the synchronous API", async () => {
  for (const [name, text] of Object.entries(TEXTS)) {
    assert.equal(await countTokensPaced(text), countTokens(text), `${name}: tokens`);
    for (const sizes of [{}, { minWords: 80, maxWords: 160 }]) {
      assert.deepEqual(await chunkMarkdownPaced(text, sizes), chunkMarkdown(text, sizes), name);
    }
    const units = chunkMarkdown(text, { minWords: 10, maxWords: 20 }).map((u) => u.text);
    for (const query of ["tide moon 漢字", "一丁七万 abcdefghij", "𠀀 item"]) {
      assert.deepEqual(await bm25RankPaced(query, units), bm25Rank(query, units), name);
      assert.deepEqual(
        (await Bm25Index.paced(units)).score(query),
        new Bm25Index(units).score(query),
        name,
      );
    }
  }
});

Deno.test("ranking huge pages against a query: a loopback server answers meanwhile", async () => {
  const config = parseConfig({});
  const embedder = await createEmbedder(config.embed);
  assert.ok(embedder, "the static embedder loads");
  const expander = await loadQueryExpander(expanderOptions(config.rank));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("ok"),
  );
  try {
    const cjk = page("https://cjk.example/", cjkRun(200_000));
    const prose = page("https://prose.example/", article(300_000));
    let answeredAt: number | undefined;
    const request = fetch(`http://127.0.0.1:${server.addr.port}/`)
      .then((response) => response.text())
      .then((text) => {
        assert.equal(text, "ok");
        answeredAt = performance.now();
      });
    let timerAt: number | undefined;
    setTimeout(() => timerAt = performance.now(), 1);
    // No `markdownTokens`: the pages' own token counts are part of the work, as for cached pages.
    const packet = await gatherEvidence({
      reads: [
        { page: cjk, query: "一丁七万" },
        { page: prose, query: "why do tides rise twice a day" },
      ],
      maxTokens: 500,
      rank: config.rank,
      embedder,
      expander,
      reranker: null,
    });
    const rankedAt = performance.now();
    await request;
    assert.equal(packet.ranking, "hybrid");
    assert.ok(packet.tokens > 0 && packet.tokens <= 500);
    assert.equal(packet.pageTokensByUrl.get(cjk.finalUrl), countTokens(cjk.markdown));
    assert.ok(timerAt !== undefined && timerAt < rankedAt, "a timer fired during the ranking");
    assert.ok(answeredAt !== undefined && answeredAt < rankedAt, "answered during the ranking");
  } finally {
    await server.shutdown();
    await embedder.close?.();
  }
});

Deno.test("ranking 30,000 links of a page by a query: a loopback server answers meanwhile", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("ok"),
  );
  try {
    const links = Array.from({ length: 30_000 }, (_, i) => ({
      url: `https://${i % 2 ? "site" : "other"}.example/l/${i}`,
      text: `Link number ${i} about tides`,
    }));
    let answeredAt: number | undefined;
    const request = fetch(`http://127.0.0.1:${server.addr.port}/`)
      .then((response) => response.text())
      .then(() => answeredAt = performance.now());
    const picked = await relatedLinks("https://site.example/", links, "link about tides 29999", {
      max: 10,
      maxTokens: 1000,
    });
    const rankedAt = performance.now();
    await request;
    assert.equal(picked.length, 10);
    assert.equal(picked[0].url, "https://site.example/l/29999", "the best match first");
    assert.ok(picked.every((l) => l.url.startsWith("https://site.example/")), "same site first");
    assert.ok(answeredAt !== undefined && answeredAt < rankedAt, "answered during the ranking");
  } finally {
    await server.shutdown();
  }
});
