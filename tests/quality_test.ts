/**
 * Search quality controls through the real surfaces (the MCP SDK Client
 * over Streamable HTTP, and REST): the result reranker (Jina's format) with
 * its documented failures falling back to the provider's order, domain
 * profiles, the LLM query rewrite (`expand`) and `search_and_summarize`
 * (Ollama's format), each absent from the tool list until configured.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ConfigInput } from "../lib/config/config.ts";
import { createGleaner } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import {
  type FakeOllama,
  type FakeReranker,
  startFakeOllama,
  startFakeReranker,
} from "../testing/fixtures/fake_quality.ts";
import { DEFAULT_FAKE_RESULTS } from "../testing/fixtures/upstreams.ts";
import {
  DENO_RUN_FLAGS,
  startTestWorld,
  type TestWorld,
  WORLD_PAGES,
} from "../testing/fixtures/world.ts";

const KEY = "jina_rerank_key_for_tests";

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

interface Harness {
  world: TestWorld;
  reranker: FakeReranker;
  ollama: FakeOllama;
  client: Client;
  /** Calls a tool over MCP. */
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** POSTs to the REST API. */
  rest(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
}

/** A Gleaner with `quality(fakes)` settings over the test world, served over MCP and REST. */
async function withQuality(
  quality: (fakes: { reranker: FakeReranker; ollama: FakeOllama }) => ConfigInput,
  fn: (h: Harness) => Promise<void>,
) {
  const world = await startTestWorld();
  const reranker = startFakeReranker({ key: KEY });
  const ollama = startFakeOllama();
  const extra = quality({ reranker, ollama });
  const network = world.config.network!;
  const gleaner = await createGleaner({
    ...world.config,
    ...extra,
    search: { ...world.config.search, ...extra.search },
    network: {
      ...network,
      allow_private: [...network.allow_private as string[], reranker.origin, ollama.origin],
      allowed_ports: [
        ...network.allowed_ports!,
        Number(new URL(reranker.origin).port),
        Number(new URL(ollama.origin).port),
      ],
    },
    server: { port: 0 },
  });
  const server = serveHttp(gleaner);
  const client = new Client({ name: "gleaner-test", version: "1.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)) as Transport,
    );
    await fn({
      world,
      reranker,
      ollama,
      client,
      call: async (name, args) => await client.callTool({ name, arguments: args }) as ToolResult,
      rest: async (path, body) => {
        const response = await fetch(`${server.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: response.status, json: await response.json() };
      },
    });
  } finally {
    await client.close();
    await server.shutdown();
    await gleaner.close();
    await reranker.close();
    await ollama.close();
    await world.close();
  }
}

type Item = {
  results: { url: string; title: string; snippet: string }[];
  reranked?: boolean;
  notices?: string[];
  rewritten_query?: string;
};

const itemOf = (out: Record<string, unknown> | undefined) => (out!.items as Item[])[0];

/** The tools `tools/list` declares. */
async function listed(client: Client) {
  return (await client.listTools()).tools as { name: string; inputSchema: unknown }[];
}

/** The JSON Schema properties of one `search` item, as `tools/list` shows them. */
function searchItemProperties(tools: { name: string; inputSchema: unknown }[]) {
  const search = tools.find((t) => t.name === "search")!.inputSchema as {
    properties: { items: { items: { properties: Record<string, { enum?: string[] }> } } };
  };
  return search.properties.items.items.properties;
}

const PYTHON = DEFAULT_FAKE_RESULTS.find((r) => r.url.includes("docs.python.org"))!.url;
const FIRST = DEFAULT_FAKE_RESULTS[0].url;

Deno.test("quality controls are absent from the tool list until configured", async () => {
  await withQuality(() => ({}), async ({ client, call, rest }) => {
    const tools = await listed(client);
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("search") && names.includes("research"));
    assert.ok(!names.includes("search_and_summarize"), "no model, no search_and_summarize");
    const item = searchItemProperties(tools);
    assert.deepEqual(item.domain_profile.enum, ["dev", "homelab"], "the built-in profiles");
    assert.equal(item.expand, undefined, "no model, no expand");
    const research = tools.find((t) => t.name === "research")!.inputSchema as {
      properties: Record<string, unknown>;
    };
    assert.equal(research.properties.expand, undefined);

    const expand = await call("search", { items: [{ query: "x", expand: true }] });
    assert.equal(expand.isError, true);
    assert.match(
      expand.content[0].text,
      /^invalid_arguments: search: items\.0: unknown key "expand"/,
    );
    const profile = await rest("/v1/search", {
      items: [{ query: "x", domain_profile: "nope" }],
    });
    assert.equal(profile.status, 400);
    assert.equal((profile.json.error as { code: string }).code, "invalid_arguments");
    const summarize = await rest("/v1/summarize", { query: "x" });
    assert.equal(summarize.status, 404, "no route without a model");
  });
});

Deno.test("reranker orders results; its documented failures keep the provider's order (MCP, REST)", async () => {
  await withQuality(({ reranker }) => ({
    // A cool-down of 0 lets every failure below reach the reranker; Retry-After still holds.
    search: {
      rerank_url: reranker.url,
      rerank_api_key: KEY,
      // Room for a loaded machine; the slow reranker answers only once this has run out.
      rerank_timeout_ms: 3_000,
      breaker_cooldown_ms: 0,
    },
  }), async ({ world, reranker, call, rest }) => {
    world.fakes.setResults(null); // public-looking results, the provider's first is Wikipedia
    reranker.setScore((_, doc) => (doc.includes("Python") ? 0.97 : 0.1));
    const out = await call("search", { items: [{ query: "url parsing", max_results: 5 }] });
    assert.ok(!out.isError, out.content[0].text);
    const item = itemOf(out.structuredContent);
    assert.equal(item.reranked, true);
    assert.equal(item.results[0].url, PYTHON, "the reranker's pick leads");
    assert.equal(item.results.length, 5);
    const sent = reranker.requests.at(-1)!.body as { documents: string[]; query: string };
    assert.equal(sent.query, "url parsing");
    assert.equal(sent.documents.length, 10, "reranks a pool twice max_results deep");
    const python = item.results[0];
    assert.ok(sent.documents.includes(`${python.title}\n${python.snippet}`), "title + snippet");

    const modes = [
      ["invalid", "invalid_arguments"],
      ["slow", "timeout"],
      ["unauthorized", "unauthorized"],
      ["rate_limited", "rate_limited"],
    ] as const;
    for (const [mode, code] of modes) {
      // "slow" answers after the 3 s timeout has surely run out.
      reranker.setMode(mode, 4_500);
      const viaRest = await rest("/v1/search", {
        items: [{ query: "url parsing", max_results: 5 }],
      });
      assert.equal(viaRest.status, 200, mode);
      const fell = itemOf(viaRest.json);
      assert.equal(fell.reranked, false, mode);
      assert.equal(fell.results[0].url, FIRST, `${mode}: the provider's order`);
      assert.ok(fell.notices?.some((n) => n.includes(`(${code})`)), JSON.stringify(fell.notices));
      assert.ok(!JSON.stringify(viaRest.json).includes(KEY));
    }
    // 429 with Retry-After: 7 opens the breaker for 7 s: the next search does not wait for it.
    const sentBefore = reranker.requests.length;
    const text = await call("search", { items: [{ query: "url parsing", max_results: 5 }] });
    assert.equal(reranker.requests.length, sentBefore, "the cooling reranker is not called");
    assert.equal(itemOf(text.structuredContent).results[0].url, FIRST);
    assert.match(text.content[0].text, /note: the reranker was skipped \(cooling down/);
  });
});

Deno.test("domain_profile raises preferred domains and drops excluded ones (REST, MCP)", async () => {
  await withQuality(() => ({
    search: {
      domain_profiles: {
        docs: { prefer: ["docs.python.org"], exclude: ["news.ycombinator.com"], boost: 1 },
      },
    },
  }), async ({ world, client, call, rest }) => {
    const tools = await listed(client);
    assert.deepEqual(searchItemProperties(tools).domain_profile.enum, ["dev", "docs", "homelab"]);
    world.fakes.setResults(null);
    const plain = itemOf((await rest("/v1/search", { items: [{ query: "urls" }] })).json);
    assert.equal(plain.results[0].url, FIRST);
    assert.ok(plain.results.some((r) => r.url.includes("news.ycombinator.com")));
    const docs = itemOf(
      (await rest("/v1/search", { items: [{ query: "urls", domain_profile: "docs" }] })).json,
    );
    assert.equal(docs.results[0].url, PYTHON);
    assert.ok(!docs.results.some((r) => r.url.includes("news.ycombinator.com")));

    world.fakes.setResults([
      { url: "https://www.geeksforgeeks.org/url-parsing/", title: "URL parsing", snippet: "s" },
      { url: "https://blog.example.org/urls", title: "URLs", snippet: "s" },
      { url: "https://developer.mozilla.org/en-US/docs/Web/API/URL", title: "URL", snippet: "s" },
    ]);
    const dev = await call("search", { items: [{ query: "url api", domain_profile: "dev" }] });
    const urls = itemOf(dev.structuredContent).results.map((r) => r.url);
    assert.deepEqual(urls, [
      "https://developer.mozilla.org/en-US/docs/Web/API/URL",
      "https://blog.example.org/urls",
    ], "the content farm is dropped, MDN raised");
  });
});

Deno.test("expand rewrites the query; search_and_summarize adds a generated summary beside the evidence", async () => {
  await withQuality(({ ollama }) => ({
    llm: { url: ollama.origin, model: "llama3.2", api: "chat" },
  }), async ({ world, ollama, client, call, rest }) => {
    const tools = await listed(client);
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("search_and_summarize"));
    assert.ok(searchItemProperties(tools).expand, "expand offered with a model");

    ollama.setReply((asked) =>
      /rewrite/i.test(asked.system) ? "sqlite wal checkpoint\nextra line" : "SUMMARY [1]"
    );
    const out = await call("search", {
      items: [{ query: "why does my database file keep growing", expand: true }],
    });
    const item = itemOf(out.structuredContent);
    assert.equal(item.rewritten_query, "sqlite wal checkpoint");
    assert.match(out.content[0].text, /searched as: sqlite wal checkpoint/);
    const asked = world.fakes.requests.at(-1)!;
    assert.match(asked.query!, /^sqlite wal checkpoint/, "the providers got the rewrite");

    ollama.setMode("error");
    const failed = itemOf(
      (await rest("/v1/search", {
        items: [{ query: "why is the sky blue", expand: true }],
      })).json,
    );
    assert.equal(failed.rewritten_query, undefined);
    assert.ok(failed.notices?.some((n) => /rewrite failed \(provider_unavailable\)/.test(n)));
    assert.match(world.fakes.requests.at(-1)!.query!, /^why is the sky blue/);

    // search_and_summarize over the fixture web: evidence unchanged, summary marked generated.
    world.fakes.setResults(
      WORLD_PAGES.slice(0, 3).map((name) => ({
        url: world.web.url(`/pages/${name}`),
        title: `Fixture page ${name}`,
        snippet: `A real-world page (${name}) about {query}.`,
      })),
    );
    ollama.setMode("ok");
    const args = { query: "what is a web browser", max_pages: 2, max_tokens: 600 };
    const summarized = await call("search_and_summarize", args);
    assert.ok(!summarized.isError, summarized.content[0].text);
    const sc = summarized.structuredContent as {
      evidence: { text: string; url: string }[];
      sources: { url: string }[];
      summary: { text: string; generated: boolean; model: string };
      read_whole?: string[];
    };
    assert.deepEqual(sc.summary, { text: "SUMMARY [1]", generated: true, model: "llama3.2" });
    assert.ok(sc.evidence.length > 0);
    const prompt = (ollama.requests.at(-1)!.body.messages as { content: string }[])[1].content;
    assert.ok(prompt.includes(sc.evidence[0].text.trim()), "the passages were sent");
    assert.ok(prompt.includes(sc.evidence[0].url));
    assert.match(summarized.content[0].text, /generated by llama3\.2/);
    // The pages read are given whole too (default 3; here research read 2).
    assert.deepEqual(sc.read_whole, sc.sources.map((source) => source.url).slice(0, 3));
    const fetched = itemOf(
      (await call("search", { items: [{ query: args.query, fetch_count: 3 }] })).structuredContent,
    ) as unknown as { pages: { url: string; markdown: string }[] };
    const whole = fetched.pages.find((page) => page.url === sc.read_whole![0])!.markdown.trim();
    const passagesOfIt = sc.evidence.filter((e) => e.url === sc.read_whole![0]);
    assert.ok(
      whole.length > passagesOfIt.reduce((n, e) => n + e.text.length, 0),
      "more than its passages",
    );
    assert.ok(prompt.includes(`(${sc.read_whole![0]})\n${whole}`), "the page, whole");
    const one = await call("search_and_summarize", { ...args, fetch_count: 1 });
    assert.deepEqual((one.structuredContent as typeof sc).read_whole, [sc.read_whole![0]]);
    const tooMany = await call("search_and_summarize", { ...args, fetch_count: 6 });
    assert.equal(tooMany.isError, true, "at most 5 pages whole");
    const research = await rest("/v1/research", args);
    assert.deepEqual(sc.evidence, research.json.evidence, "the evidence is research's, unchanged");

    ollama.setMode("rate_limited");
    const alone = await rest("/v1/summarize", args);
    assert.equal(alone.status, 200);
    assert.equal(alone.json.summary, undefined);
    assert.equal((alone.json.summary_error as { code: string }).code, "rate_limited");
    assert.deepEqual(alone.json.evidence, sc.evidence, "the evidence answers without a summary");
  });
});

Deno.test("gleaner mcp (stdio): GLEANER_LLM_* and GLEANER_SEARCH_DOMAIN_PROFILES shape the tool list", async () => {
  const world = await startTestWorld();
  const client = new Client({ name: "gleaner-test", version: "1.0.0" });
  try {
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", ...DENO_RUN_FLAGS, new URL("../cli.ts", import.meta.url).pathname, "mcp"],
        env: {
          ...Deno.env.toObject(),
          ...world.env,
          GLEANER_LLM_URL: "http://127.0.0.1:11434",
          GLEANER_LLM_MODEL: "llama3.2",
          GLEANER_SEARCH_DOMAIN_PROFILES: '{"news":{"prefer":["apnews.com"]}}',
          NO_COLOR: "1",
        },
        stderr: "pipe",
      }) as Transport,
    );
    const tools = await listed(client);
    assert.ok(tools.some((t) => t.name === "search_and_summarize"));
    const item = searchItemProperties(tools);
    assert.ok(item.expand);
    assert.deepEqual(item.domain_profile.enum, ["dev", "homelab", "news"]);
  } finally {
    await client.close();
    await world.close();
  }
});
