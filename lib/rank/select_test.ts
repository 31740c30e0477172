import assert from "node:assert/strict";
import { chunkMarkdown } from "../text/chunk.ts";
import { rankUnits } from "./mod.ts";
import { type Candidate, type EvidenceSource, pageInOrder, selectEvidence } from "./select.ts";
import { renderEvidence } from "./render.ts";
import { countTokens } from "../text/tokens.ts";
import { extractHtml } from "../extract/mod.ts";
import { fixturePages } from "../../testing/fixtures/test_pages.ts";

function sourceOf(name: string, paragraphs: string[]): EvidenceSource {
  return {
    url: `https://${name}.example/page`,
    title: `Page ${name}`,
    markdown: paragraphs.join("\n\n"),
  };
}

function candidatesOf(source: EvidenceSource, top: number, step = 0.01): Candidate[] {
  return chunkMarkdown(source.markdown!, { minWords: 1, maxWords: 30 })
    .map((unit, i) => ({ source, unit, score: top - i * step }));
}

const words = (tag: string, i: number) =>
  `Paragraph ${i} of ${tag} says something distinct about topic ${tag}${i} with ${
    i * 7
  } extra words.`;

Deno.test("selectEvidence: budget never exceeded on real pages, items are original text", async () => {
  const pages = await fixturePages();
  const groups = [];
  const sources: EvidenceSource[] = [];
  for (const page of pages) {
    const extracted = extractHtml(page.html, "http://fakehost/test/page.html");
    const source = {
      url: `https://${page.name}.example/`,
      title: extracted.title,
      markdown: extracted.markdown,
    };
    sources.push(source);
    const { ranked } = await rankUnits(
      "the government said people new years",
      chunkMarkdown(source.markdown),
    );
    groups.push(...ranked.map((r) => ({ source, unit: r.unit, score: r.score })));
  }
  for (const maxTokens of [0, 15, 40, 100, 257, 600, 1500, 4000]) {
    const sel = selectEvidence({ groups: [{ query: "q", candidates: groups }], maxTokens });
    assert.equal(sel.text, renderEvidence(sel.items));
    assert.equal(sel.tokens, countTokens(sel.text));
    assert.ok(sel.tokens <= maxTokens, `${sel.tokens} > ${maxTokens}`);
    if (maxTokens >= 600) {
      assert.ok(sel.tokens >= maxTokens * 0.8, `budget under-used: ${sel.tokens}`);
    }
    for (const item of sel.items) {
      const md = sources.find((s) => s.url === item.url)!.markdown!;
      assert.equal(md.slice(item.start, item.end), item.text);
    }
  }
});

Deno.test("selectEvidence: per-source cap while others have candidates, then fill", () => {
  const a = sourceOf("a", Array.from({ length: 20 }, (_, i) => words("a", i)));
  const b = sourceOf("b", Array.from({ length: 20 }, (_, i) => words("b", i)));
  const c = sourceOf("c", Array.from({ length: 3 }, (_, i) => words("c", i)));
  const budget = 400;
  // a outranks b outranks c everywhere.
  const candidates = [
    ...candidatesOf(a, 0.99, 0.001),
    ...candidatesOf(b, 0.9, 0.001),
    ...candidatesOf(c, 0.5),
  ];
  const sel = selectEvidence({
    groups: [{ query: "q", candidates }],
    maxTokens: budget,
    perSourceShare: 0.4,
  });
  const tokensOf = (url: string) =>
    countTokens(renderEvidence(sel.items.filter((i) => i.url === url)));
  assert.ok(sel.tokens <= budget);
  assert.equal(
    sel.items.filter((i) => i.url === c.url).map((i) => i.text).join("\n\n"),
    c.markdown,
  );
  // a is held near its share although it outranks everything; b is not starved.
  assert.ok(tokensOf(a.url) <= 0.4 * budget + 30, `a took ${tokensOf(a.url)}`);
  assert.ok(tokensOf(b.url) >= 0.3 * budget, `b took ${tokensOf(b.url)}`);
  assert.ok(sel.tokens >= budget - 25, `budget left unused: ${sel.tokens}`);
  // Control: without a cap, a takes (nearly) everything.
  const uncapped = selectEvidence({
    groups: [{ query: "q", candidates }],
    maxTokens: budget,
    perSourceShare: 1,
  });
  assert.ok(
    countTokens(renderEvidence(uncapped.items.filter((i) => i.url === a.url))) > 0.9 * budget,
  );

  // With one source only, the cap does not hold it back: it fills the budget.
  const alone = selectEvidence({
    groups: [{ query: "q", candidates: candidatesOf(a, 0.99) }],
    maxTokens: budget,
    perSourceShare: 0.4,
  });
  assert.ok(alone.tokens > 0.8 * budget && alone.tokens <= budget, `alone: ${alone.tokens}`);
  // And once the other sources run out, the best source fills what is left.
  const two = selectEvidence({
    groups: [{ query: "q", candidates: [...candidatesOf(a, 0.99), ...candidatesOf(c, 0.5)] }],
    maxTokens: budget,
    perSourceShare: 0.4,
  });
  assert.ok(two.tokens > 0.8 * budget && two.tokens <= budget);
  assert.ok(countTokens(renderEvidence(two.items.filter((i) => i.url === a.url))) > 0.5 * budget);
});

Deno.test("selectEvidence: adjacent units merge back into one passage of original text", () => {
  const s = sourceOf("m", [
    "First point here.",
    "Second point here.",
    "Third point here.",
    "Fourth.",
  ]);
  s.markdown = `# Top\n\n${s.markdown}`;
  const units = chunkMarkdown(s.markdown!, { minWords: 1, maxWords: 3 });
  assert.equal(units.length, 4);
  const candidates = [0, 1, 3].map((i) => ({ source: s, unit: units[i], score: 0.9 - i / 100 }));
  const sel = selectEvidence({ groups: [{ query: "q", candidates }], maxTokens: 500 });
  assert.deepEqual(sel.items.map((i) => i.text), [
    "First point here.\n\nSecond point here.",
    "Fourth.",
  ]);
  assert.equal(sel.items[0].score, 0.9);
  assert.equal(sel.items[0].relevance, "high");
  assert.equal(
    sel.text,
    "## Page m\nhttps://m.example/page\n\n> Top\nFirst point here.\n\nSecond point here.\n\nFourth.\n",
  );
});

Deno.test("selectEvidence: syndicated copies on two sites are selected once", () => {
  const copy =
    "The council approved the new budget on Tuesday, with 4.2 million dollars for road repairs.";
  const a = sourceOf("wire", [
    copy,
    "Wire-only detail about the vote count and the dissenting members.",
  ]);
  const b = sourceOf("paper", [
    copy,
    "Paper-only detail about what residents said at the meeting.",
  ]);
  const candidates = [...candidatesOf(a, 0.99), ...candidatesOf(b, 0.98)];
  const sel = selectEvidence({ groups: [{ query: "q", candidates }], maxTokens: 1000 });
  assert.equal(sel.items.filter((i) => i.text.includes("4.2 million")).length, 1);
  assert.ok(sel.items.some((i) => i.text.startsWith(copy) && i.url === a.url));
  assert.ok(sel.items.some((i) => i.text.startsWith("Paper-only")));
  assert.equal(sel.stats.duplicates, 1);
});

Deno.test("selectEvidence: query groups share the budget; unused share goes to the others", () => {
  const a = sourceOf("qa", Array.from({ length: 30 }, (_, i) => words("qa", i)));
  const b = sourceOf("qb", Array.from({ length: 30 }, (_, i) => words("qb", i)));
  const even = selectEvidence({
    groups: [
      { query: "first", candidates: candidatesOf(a, 0.99) },
      { query: "second", candidates: candidatesOf(b, 0.5) },
    ],
    maxTokens: 600,
    perSourceShare: 1,
  });
  const tokensOf = (sel: typeof even, q: string) =>
    countTokens(renderEvidence(sel.items.filter((i) => i.query === q)));
  assert.ok(even.tokens <= 600);
  assert.ok(Math.abs(tokensOf(even, "first") - tokensOf(even, "second")) <= 40);
  const b1 = sourceOf("qb", [words("qb", 1)]);
  const uneven = selectEvidence({
    groups: [
      { query: "first", candidates: candidatesOf(a, 0.99) },
      { query: "second", candidates: candidatesOf(b1, 0.5) },
    ],
    maxTokens: 600,
    perSourceShare: 1,
  });
  assert.ok(uneven.tokens <= 600 && uneven.tokens > 540, `uneven: ${uneven.tokens}`);
  assert.equal(uneven.items.filter((i) => i.query === "second").length, 1);
});

Deno.test("pageInOrder: prefix of the page cut at a unit boundary within the budget", async () => {
  const pages = await fixturePages();
  for (const page of pages) {
    const md = extractHtml(page.html, "http://fakehost/test/page.html").markdown;
    const ends = new Set(chunkMarkdown(md).map((u) => u.end));
    for (const budget of [5, 60, 300, 2000]) {
      const slice = pageInOrder(md, budget);
      assert.ok(slice.tokens <= budget && countTokens(slice.text) === slice.tokens);
      assert.equal(md.slice(slice.start, slice.end), slice.text);
      if (slice.truncated && slice.tokens > 0 && !ends.has(slice.end)) {
        // Off a unit boundary only when the units that fit hold under half the budget.
        const unitTokens = Math.max(
          0,
          ...[...ends].filter((e) => e > slice.start && e < slice.end)
            .map((e) => countTokens(md.slice(slice.start, e))),
        );
        assert.ok(unitTokens < budget / 2 && slice.tokens > unitTokens, `${unitTokens}`);
      }
      if (!slice.truncated) assert.equal(slice.text, md.trim());
      if (slice.truncated && slice.end > 0) {
        const next = pageInOrder(md, budget, slice.end);
        assert.ok(next.start >= slice.end && next.tokens <= budget);
      }
    }
  }
});

Deno.test("pageInOrder: a long unit is filled up to a word or character boundary, not dropped", () => {
  let cjk = "";
  for (let i = 0; cjk.length < 20_000; i++) cjk += String.fromCharCode(0x4e00 + (i * 7919) % 3000);
  const cases = [
    `# 标题\n\n${cjk}`,
    `# Title\n\n${"abcdefghij".repeat(5_000)}`,
    `Intro.\n\n${"😀".repeat(5_000)}`,
  ];
  for (const md of cases) {
    const slice = pageInOrder(md, 500);
    assert.ok(slice.truncated);
    assert.ok(slice.tokens <= 500 && slice.tokens > 400, `${slice.tokens} tokens`);
    assert.equal(countTokens(slice.text), slice.tokens);
    assert.equal(md.slice(slice.start, slice.end), slice.text);
    assert.ok(!/[\ud800-\udbff]$/.test(slice.text), "no half of a surrogate pair");
    const next = pageInOrder(md, 500, slice.end);
    assert.ok(next.start === slice.end && next.tokens > 400);
  }
  // A short unit then a long one: the budget is filled inside the long one.
  const md = "Tides rise and fall twice a day. ".repeat(2) + "\n\n" + cjk.slice(0, 3_000);
  const slice = pageInOrder(md, 500);
  assert.ok(slice.tokens > 400, `${slice.tokens} tokens`);
  assert.ok(slice.text.startsWith("Tides rise") && slice.text.includes(cjk.slice(0, 100)));
});

Deno.test("selectEvidence: a top candidate larger than the budget does not end the pool", () => {
  const huge = "word ".repeat(3000).trim();
  const small = Array.from({ length: 20 }, (_, i) => `Sentence number ${i} about the harbour.`);
  const markdown = [huge, ...small].join("\n\n");
  const source = { url: "https://example.com/h", title: "H", markdown };
  const units = chunkMarkdown(markdown, { minWords: 1, maxWords: 10_000 });
  assert.equal(units.length, 21);
  const candidates = units.map((unit, i) => ({ source, unit, score: 1 - i / 100 }));
  const sel = selectEvidence({ groups: [{ query: "q", candidates }], maxTokens: 400 });
  assert.ok(sel.stats.units >= 15, `${sel.stats.units} units`);
  assert.ok(sel.tokens <= 400);
});

Deno.test("selectEvidence: shareSlack lifts the per-source cap when the rivals are much weaker", () => {
  const mk = (url: string, n: number, top: number) => {
    const markdown = Array.from({ length: n }, (_, i) => `Fact ${i} of ${url} stands here.`)
      .join("\n\n");
    const source = { url, title: url, markdown };
    return chunkMarkdown(markdown, { minWords: 1, maxWords: 8 })
      .map((unit, i) => ({ source, unit, score: top - i / 100 }));
  };
  const candidates = [...mk("https://a.example/", 30, 1), ...mk("https://b.example/", 30, 0.3)];
  const share = (slack: number) => {
    const sel = selectEvidence({
      groups: [{ query: "q", candidates }],
      maxTokens: 300,
      perSourceShare: 0.4,
      shareSlack: slack,
    });
    const a = sel.items.filter((i) => i.url === "https://a.example/").map((i) => i.text).join(" ");
    return a.split("Fact").length - 1;
  };
  const capped = share(0), slack = share(0.9);
  assert.ok(slack > capped, `a's units: ${capped} capped, ${slack} with slack`);
});
