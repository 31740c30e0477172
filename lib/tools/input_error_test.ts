/**
 * The argument shapes models send first get the expected shape back: the real
 * tool schemas through the one input check every surface uses
 * (`parseToolInput`).
 */
import assert from "node:assert/strict";
import { parseToolInput } from "../api.ts";
import { GleanerError } from "../errors.ts";
import { TOOLS } from "./mod.ts";

const tool = (name: string) => TOOLS.find((t) => t.name === name)!;

/** The message of the `invalid_arguments` error `input` gets from `name`. */
function refusal(name: string, input: unknown): GleanerError {
  try {
    parseToolInput(tool(name), input);
  } catch (error) {
    assert.ok(error instanceof GleanerError, String(error));
    assert.equal(error.code, "invalid_arguments");
    return error;
  }
  throw new Error(`${name} accepted ${JSON.stringify(input)}`);
}

Deno.test("input errors: a batch tool called without items is told the shape of items", () => {
  const cases: [string, unknown, string][] = [
    [
      "scrape_urls",
      { urls: ["https://example.com/"] },
      'scrape_urls takes `items`: [{"url": "https://…"}, …] (got `urls`)',
    ],
    [
      "scrape_urls",
      { url: "https://example.com/", query: "pricing" },
      'scrape_urls takes `items`: [{"url": "https://…"}, …] (got `url`, `query`)',
    ],
    [
      "scrape_urls",
      { items: ["https://example.com/"] },
      'scrape_urls takes `items`: [{"url": "https://…"}, …] (got `items` as an array of strings)',
    ],
    [
      "scrape_urls",
      { items: { url: "https://example.com/" } },
      'scrape_urls takes `items`: [{"url": "https://…"}, …] (got `items` as an object)',
    ],
    ["scrape_urls", {}, 'scrape_urls takes `items`: [{"url": "https://…"}, …] (got no `items`)'],
    ["search", { query: "sqlite wal" }, 'search takes `items`: [{"query": "…"}, …] (got `query`)'],
    [
      "search",
      { queries: ["a", "b"] },
      'search takes `items`: [{"query": "…"}, …] (got `queries`)',
    ],
    [
      "save_memories",
      { content: "Deploys go out on Tuesdays." },
      'save_memories takes `memories`: [{"content": "…"}, …] (got `content`)',
    ],
  ];
  for (const [name, input, message] of cases) {
    const error = refusal(name, input);
    assert.equal(error.message, message, JSON.stringify(input));
    assert.equal(typeof error.details?.expected, "string");
  }
  // The value given is never echoed.
  assert.ok(
    !refusal("scrape_urls", { items: ["https://secret.example/"] }).message.includes("secret"),
  );
});

Deno.test("input errors: an unknown key is pointed to the key it stands for, on every tool", () => {
  const cases: [string, unknown, string][] = [
    [
      "scrape_urls",
      { items: [{ url: "https://example.com/" }], maxTokens: 500 },
      'scrape_urls: unknown key "maxTokens" (did you mean "max_tokens"?)',
    ],
    ["recall_memories", { topK: 3 }, 'recall_memories: unknown key "topK" (did you mean "top_k"?)'],
    [
      "get_memory",
      { memoryId: "abc" },
      'get_memory: unknown key "memoryId" (did you mean "memory_id"?)',
    ],
    [
      "research",
      { query: "x", maxPages: 3, "max-tokens": 100 },
      'research: unknown keys "maxPages" (did you mean "max_pages"?), "max-tokens" (did you mean "max_tokens"?)',
    ],
    [
      "crawl_site",
      { url: "https://example.com/", maxDepth: 1 },
      'crawl_site: unknown key "maxDepth" (did you mean "max_depth"?)',
    ],
    // One level off: a top-level setting inside an item, an item field at the top.
    [
      "scrape_urls",
      { items: [{ url: "https://example.com/", max_tokens: 100 }] },
      'scrape_urls: items.0: unknown key "max_tokens" ("max_tokens" goes at the top level)',
    ],
    [
      "scrape_urls",
      { items: [{ url: "https://example.com/" }], query: "pricing" },
      'scrape_urls: unknown key "query" ("query" goes in each of `items`)',
    ],
    // A key that stands for nothing is named alone.
    ["clear_cache", { namespace: "search" }, 'clear_cache: unknown key "namespace"'],
  ];
  for (const [name, input, message] of cases) {
    assert.equal(refusal(name, input).message, message, JSON.stringify(input));
  }
});

Deno.test("input errors: every listed tool's message starts with its name", () => {
  for (const t of TOOLS) {
    const error = refusal(t.name, { notAField: 1 });
    assert.ok(error.message.startsWith(t.name), error.message);
  }
});
