/**
 * `research` end to end on loopback: fake search → fixture pages → ranked
 * evidence, with one failing page replaced and reported.
 */
import assert from "node:assert/strict";
import { createGleaner, research } from "../mod.ts";
import { startTestWorld } from "../testing/fixtures/world.ts";

Deno.test("research: one failing page is reported with its code and replaced by the next result", async () => {
  const world = await startTestWorld();
  const pages = ["002", "mozilla-1", "wikipedia"];
  world.fakes.setResults([
    { url: world.web.url("/404"), title: "gone", snippet: "{query}" },
    ...pages.map((p) => ({ url: world.web.url(`/pages/${p}`), title: p, snippet: "{query}" })),
  ]);
  const gleaner = await createGleaner(world.config);
  try {
    const progress: number[] = [];
    const out = await research(gleaner, {
      query: "how do I know whether a response body was already consumed",
      max_pages: 3,
      max_tokens: 700,
      domains: ["127.0.0.1"],
    }, { progress: (p) => progress.push(p.progress) });
    assert.equal(out.failed.length, 1);
    assert.equal(out.failed[0].code, "not_found");
    assert.equal(out.failed[0].url, world.web.url("/404"));
    assert.deepEqual(
      out.sources.map((s) => s.url).sort(),
      pages.map((p) => world.web.url(`/pages/${p}`)).sort(),
    );
    assert.ok(out.tokens <= 700);
    assert.ok(out.page_tokens > out.tokens * 5, "far fewer tokens than the pages");
    assert.ok(
      out.evidence.some((e) => e.text.includes("bodyUsed")),
      "the answering passage was found",
    );
    assert.ok(progress.length >= 3);
  } finally {
    await gleaner.close();
    await world.close();
  }
});

Deno.test("research: no more than two pages per domain unless domains restricts the search", async () => {
  const world = await startTestWorld();
  const gleaner = await createGleaner(world.config);
  try {
    const out = await research(gleaner, {
      query: "anything at all",
      max_pages: 5,
      max_tokens: 300,
    });
    assert.equal(out.sources.length, 2, "all fixture pages share one host");
  } finally {
    await gleaner.close();
    await world.close();
  }
});

Deno.test("research: query expansion is on by default and rank.expand_terms 0 turns it off", async () => {
  const pages = ["seattletimes-1", "mozilla-1", "wikipedia", "ars-1", "nytimes-1"];
  const world = await startTestWorld({ pages });
  const question = "What price per pound do boat crews usually get for the flatfish they land?";
  const answer = "Fishermen are typically paid between $5 and $6 a pound for halibut.";
  const ask = async (expandTerms?: number) => {
    const gleaner = await createGleaner({
      ...world.config,
      rank: expandTerms === undefined ? {} : { expand_terms: expandTerms },
    });
    try {
      return {
        out: await research(gleaner, {
          query: question,
          max_pages: 5,
          max_tokens: 300,
          domains: ["127.0.0.1"],
        }),
        expander: await gleaner.expander(),
      };
    } finally {
      await gleaner.close();
    }
  };
  try {
    const on = await ask();
    assert.ok(on.expander, "loaded from the shipped model");
    assert.equal(on.out.sources.length, 5);
    assert.ok(on.out.evidence.some((e) => e.text.includes(answer)));
    const off = await ask(0);
    assert.equal(off.expander, undefined);
    assert.ok(!off.out.evidence.some((e) => e.text.includes(answer)));
  } finally {
    await world.close();
  }
});
