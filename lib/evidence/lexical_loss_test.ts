/**
 * No lexical loss: a question asked in a passage's own words keeps that passage at 500 tokens,
 * whatever the dense model thinks of its neighbours. Real pages (the fixture sample of
 * Readability's test pages), default settings with the shipped static model and its query
 * expansion, each question asked with its page and four others, in four different page sets.
 */
import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { extractHtml } from "../extract/mod.ts";
import type { Page } from "../read/types.ts";
import { PAGES_PATH } from "../../testing/fixtures/web.ts";
import { gatherEvidence } from "./gather.ts";
import { expanderOptions, loadQueryExpander } from "../rank/expand.ts";
import { createStaticEmbedder } from "../embed/static.ts";
import { markdownToText, words } from "../../testing/text_metrics.ts";

const rank = parseConfig({}).rank;

const PAGES = [
  "001",
  "002",
  "mozilla-1",
  "wikipedia",
  "ars-1",
  "medium-1",
  "nytimes-1",
  "seattletimes-1",
];

/** Questions in the words of one sentence of their page, and that sentence. */
const CASES: { page: string; question: string; answer: string }[] = [
  {
    page: "wikipedia",
    question: "What is Fennec?",
    answer: "Firefox Mobile (codenamed Fennec) is the build of the Mozilla Firefox web browser",
  },
  {
    page: "wikipedia",
    question: "What was codenamed Fennec?",
    answer: "Firefox Mobile (codenamed Fennec) is the build of the Mozilla Firefox web browser",
  },
  {
    page: "ars-1",
    question: "What is a varint capable of storing?",
    answer: "Now that the length is a varint capable of storing integers up to 2^28",
  },
  {
    page: "002",
    question: "Can I set Content-Length on request guarded Headers?",
    answer: "you may not append or set a “request” guarded Headers’ “Content-Length” header",
  },
  {
    page: "002",
    question: "Is it only useful in ServiceWorkers?",
    answer: "They can also be created by JS, but this is only useful in ServiceWorkers.",
  },
  {
    page: "ars-1",
    question: "Was there protocol wide compression in previous versions of Minecraft?",
    answer: "in previous versions of Minecraft, there was no protocol wide compression",
  },
  {
    page: "seattletimes-1",
    question: "What did Besecker say about loss leaders?",
    answer:
      "They might be selling those at cost or as loss leaders just to get people into the stores",
  },
  {
    page: "001",
    question: "Must the HTML test file be served over HTTP?",
    answer: "The HTML test file must be served over HTTP for the adapter to be loaded.",
  },
  {
    page: "medium-1",
    question: "When did they push out the first version of the Open Journalism site?",
    answer: "We pushed out the first version of the Open Journalism site in January.",
  },
];

async function realPage(name: string): Promise<Page> {
  const html = await Deno.readTextFile(`${PAGES_PATH}/${name}/source.html`);
  const url = `https://fixture.example/${name}`;
  const extracted = extractHtml(html, url);
  return { ...extracted, url, finalUrl: url, tier: "http", mediaType: "text/html", fetchedAt: "" };
}

function holds(text: string, sentence: string): boolean {
  return ` ${words(markdownToText(text)).join(" ")} `.includes(` ${words(sentence).join(" ")} `);
}

Deno.test("no lexical loss: a question in a passage's own words keeps the passage at 500 tokens", async () => {
  const pages = new Map(await Promise.all(PAGES.map(async (n) => [n, await realPage(n)] as const)));
  const embedder = await createStaticEmbedder();
  const expander = await loadQueryExpander(expanderOptions(rank));
  const lost: string[] = [];
  try {
    for (const { page, question, answer } of CASES) {
      assert.ok(holds(pages.get(page)!.markdown, answer), `${page} holds "${answer}"`);
      const others = PAGES.filter((n) => n !== page);
      for (let shift = 0; shift < 4; shift++) {
        const set = [page, ...[0, 1, 2, 3].map((k) => others[(shift + k) % others.length])];
        const packet = await gatherEvidence({
          reads: set.map((n) => ({ page: pages.get(n)!, query: question })),
          maxTokens: 500,
          rank,
          embedder,
          expander,
        });
        assert.equal(packet.ranking, "hybrid");
        if (!holds(packet.text, answer)) lost.push(`${question} (with ${set.join(", ")})`);
      }
    }
  } finally {
    await embedder.close?.();
  }
  assert.deepEqual(lost, [], "passages asked for in their own words were pushed out");
});
