/**
 * The provider layer end to end: tools declared under each presentation (the
 * real MCP SDK Client over an in-memory transport, and the HTTP API), calls
 * routed through them against fake providers on loopback, and the `contents`
 * role falling back to Gleaner's own reader on the fixture web.
 */
import { linkMcpClient } from "../testing/mcp_client.ts";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createGleaner } from "../mod.ts";
import type { ConfigInput } from "../lib/config/config.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { createMcpServer } from "../mcp/server.ts";
import { createApp } from "../http/app.ts";
import { parseConfig } from "../lib/config/config.ts";
import { GleanerError } from "../lib/errors.ts";
import { createFetcher } from "../lib/net/fetch.ts";
import { createRoleRouter } from "../lib/search/roles.ts";
import {
  DOCUMENTED_FAILURES,
  type FakeProviderName,
  type FakeProviders,
  withFakeProviders,
} from "../testing/fixtures/fake_providers.ts";
import { startFixtureWeb } from "../testing/fixtures/web.ts";
import { DENO_RUN_FLAGS } from "../testing/fixtures/world.ts";
import { fakeUpstreamConfig, withFakeUpstreams } from "../testing/fixtures/upstreams.ts";

/** The keyless web engines, in the default order, and their own tools. */
const KEYLESS_ENGINES = ["duckduckgo", "mojeek", "brave_html", "yahoo", "yandex", "wikipedia"];
const KEYLESS_TOOLS = KEYLESS_ENGINES.map((name) => `${name}_search`);

type ListedTool = {
  name: string;
  inputSchema: { properties?: Record<string, unknown> };
  outputSchema?: unknown;
};

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

async function withClient(
  gleaner: Gleaner,
  fn: (client: Client) => Promise<void>,
): Promise<void> {
  const { client, close } = await linkMcpClient(createMcpServer(gleaner, toolsFor(gleaner.config)));
  try {
    await fn(client);
  } finally {
    await close();
  }
}

function withGleaner(
  input: ConfigInput,
  fn: (gleaner: Gleaner) => Promise<void>,
): Promise<void> {
  return createGleaner({ embed: { provider: "none" }, ...input }).then(async (gleaner) => {
    try {
      await fn(gleaner);
    } finally {
      await gleaner.close();
    }
  });
}

async function listed(gleaner: Gleaner): Promise<string[]> {
  let names: string[] = [];
  await withClient(gleaner, async (client) => {
    names = ((await client.listTools()).tools as ListedTool[]).map((t) => t.name);
  });
  return names;
}

function configOf(fakes: FakeProviders, search: Record<string, unknown>, keys = {}) {
  return fakes.config({ exa: "ke", tavily: "kt", ...keys }, search);
}

Deno.test("MCP lists the tools of each presentation", async () => {
  await withFakeProviders(async (fakes) => {
    await withGleaner(configOf(fakes, {}), async (gleaner) => {
      const names = await listed(gleaner);
      for (const name of ["search", "scrape_urls", "research", "current_datetime"]) {
        assert.ok(names.includes(name), `default declares ${name}`);
      }
      assert.ok(!names.includes("web_search_tool") && !names.includes("exa_search"));
    });

    await withGleaner(configOf(fakes, { presentation: "roles" }), async (gleaner) => {
      await withClient(gleaner, async (client) => {
        const tools = (await client.listTools()).tools as ListedTool[];
        assert.deepEqual(tools.map((t) => t.name), [
          "web_search_tool",
          "web_answer_tool",
          "web_contents_tool",
        ]);
        const search = tools.find((t) => t.name === "web_search_tool")!;
        const props = search.inputSchema.properties as Record<string, { enum?: string[] }>;
        assert.deepEqual(props.provider.enum, ["exa", "tavily", ...KEYLESS_ENGINES]);
        const contents = tools.find((t) => t.name === "web_contents_tool")!;
        const cprops = contents.inputSchema.properties as Record<string, { enum?: string[] }>;
        assert.deepEqual(cprops.provider.enum, ["exa", "tavily", "gleaner"]);
        assert.ok(search.outputSchema, "role tools declare their output");
      });
    });

    // Only keyless search configured: no answer tool, contents still readable.
    await withGleaner(
      fakes.config({}, { presentation: "roles" }),
      async (gleaner) => {
        assert.deepEqual(await listed(gleaner), ["web_search_tool", "web_contents_tool"]);
      },
    );

    await withGleaner(
      configOf(fakes, { presentation: "all_tools" }, { brave: "kb" }),
      async (gleaner) => {
        assert.deepEqual(await listed(gleaner), [
          "brave_web_search",
          "brave_news_search",
          "brave_image_search",
          "brave_video_search",
          "exa_search",
          "exa_find_similar",
          "exa_get_contents",
          "exa_answer",
          "tavily_search",
          "tavily_extract",
          ...KEYLESS_TOOLS,
        ]);
      },
    );

    await withGleaner(
      configOf(fakes, { presentation: "one_provider", presentation_provider: "tavily" }),
      async (gleaner) => {
        assert.deepEqual(await listed(gleaner), ["tavily_search", "tavily_extract"]);
      },
    );
  });
});

Deno.test("MCP: with no key, web_search_tool offers the keyless engines and gets past DuckDuckGo's bot wall", async () => {
  await withFakeUpstreams(async (fakes) => {
    const input = fakeUpstreamConfig(fakes, { presentation: "roles" });
    await withGleaner({ ...input, store: { path: ":memory:" } }, async (gleaner) => {
      await withClient(gleaner, async (client) => {
        const tools = (await client.listTools()).tools as ListedTool[];
        const search = tools.find((t) => t.name === "web_search_tool")!;
        const props = search.inputSchema.properties as Record<string, { enum?: string[] }>;
        assert.deepEqual(props.provider.enum, KEYLESS_ENGINES);
        assert.ok(props.provider.enum!.length >= 5, "DuckDuckGo and at least four more");

        // DuckDuckGo answers its real bot challenge (202, the anomaly page) on both pages.
        fakes.setMode("duckduckgo", "captcha");
        const out = await client.callTool({
          name: "web_search_tool",
          arguments: { query: "sqlite wal", max_results: 4 },
        }) as ToolResult;
        assert.ok(!out.isError, out.content[0]?.text);
        const answer = out.structuredContent as {
          provider: string;
          results: { url: string; source: string }[];
          attempts: { backend: string; outcome: string }[];
        };
        assert.equal(answer.results.length, 4);
        assert.deepEqual(answer.attempts.map((a) => [a.backend, a.outcome]), [
          ["duckduckgo", "blocked"],
          ["mojeek", "ok"],
          ["brave_html", "ok"],
        ]);
        assert.equal(answer.provider, "mojeek+brave_html");
        assert.match(out.content[0].text, /via mojeek\+brave_html; fell back from duckduckgo/);

        // Each engine answers when asked by name, through its own result page.
        for (const provider of KEYLESS_ENGINES.slice(1)) {
          const one = await client.callTool({
            name: "web_search_tool",
            arguments: { query: "sqlite wal", max_results: 2, provider },
          }) as ToolResult;
          assert.ok(!one.isError, `${provider}: ${one.content[0]?.text}`);
          const hits = (one.structuredContent as { results: { source: string }[] }).results;
          assert.ok(hits.length > 0 && hits.every((h) => h.source === provider), provider);
        }
      });
    });
  });
});

Deno.test("MCP: role tools route, fall back and say which provider answered", async () => {
  await withFakeProviders(async (fakes) => {
    const config = configOf(fakes, { presentation: "roles", search_order: ["exa", "tavily"] });
    await withGleaner(config, async (gleaner) => {
      await withClient(gleaner, async (client) => {
        fakes.setMode("exa", "balance");
        const search = await client.callTool({
          name: "web_search_tool",
          arguments: { query: "sqlite wal", max_results: 2 },
        }) as ToolResult;
        assert.ok(!search.isError, search.content[0]?.text);
        const out = search.structuredContent as {
          provider: string;
          fallback_from: { provider: string; code: string }[];
          results: { url: string }[];
        };
        assert.equal(out.provider, "tavily");
        assert.deepEqual(out.fallback_from, [{ provider: "exa", code: "insufficient_balance" }]);
        assert.equal(out.results.length, 2);
        assert.match(
          search.content[0].text,
          /via tavily; fell back from exa: insufficient_balance/,
        );

        const answer = await client.callTool({
          name: "web_answer_tool",
          arguments: { query: "what is wal", depth: "deep", provider: "tavily" },
        }) as ToolResult;
        assert.ok(!answer.isError, answer.content[0]?.text);
        assert.equal((answer.structuredContent as { depth: string }).depth, "deep");
        assert.match(answer.content[0].text, /Sources:\n\[1\]/);

        const unknown = await client.callTool({
          name: "web_search_tool",
          arguments: { query: "x", provider: "brave" },
        }) as ToolResult;
        assert.ok(unknown.isError, "the provider enum refuses an unconfigured provider");

        const extra = await client.callTool({
          name: "web_search_tool",
          arguments: { query: "x", colour: "blue" },
        }) as ToolResult;
        assert.ok(extra.isError, "unknown keys are refused");
      });
    });
  });
});

Deno.test("MCP: Brave's image and video search answer in the search shape", async () => {
  await withFakeProviders(async (fakes) => {
    const config = fakes.config({ brave: "kb" }, {
      presentation: "one_provider",
      presentation_provider: "brave",
    });
    await withGleaner(config, async (gleaner) => {
      await withClient(gleaner, async (client) => {
        const tools = (await client.listTools()).tools as ListedTool[];
        assert.deepEqual(tools.map((t) => t.name), [
          "brave_web_search",
          "brave_news_search",
          "brave_image_search",
          "brave_video_search",
        ]);
        const images = await client.callTool({
          name: "brave_image_search",
          arguments: { query: "lighthouse", max_results: 2, safesearch: "off" },
        }) as ToolResult;
        assert.ok(!images.isError, images.content[0]?.text);
        const out = images.structuredContent as {
          provider: string;
          results: { url: string; provider_data: { image_url: string } }[];
        };
        assert.equal(out.provider, "brave");
        assert.equal(out.results.length, 2);
        assert.equal(
          out.results[0].provider_data.image_url,
          "https://sqlite.org/images/picture-0.jpg",
        );
        assert.match(
          images.content[0].text,
          /Image: https:\/\/sqlite\.org\/images\/picture-0\.jpg/,
        );
        assert.equal(fakes.requestsOf("brave")[0].path, "/res/v1/images/search");

        const videos = await client.callTool({
          name: "brave_video_search",
          arguments: { query: "sqlite wal", time_range: "day" },
        }) as ToolResult;
        assert.ok(!videos.isError, videos.content[0]?.text);
        assert.match(videos.content[0].text, /A\. Presenter on VideoSite, 1,523,000 views/);
        assert.equal(fakes.requestsOf("brave")[1].query.freshness, "pd");

        const tooMany = await client.callTool({
          name: "brave_video_search",
          arguments: { query: "x", max_results: 51 },
        }) as ToolResult;
        assert.ok(tooMany.isError);
        assert.match(
          tooMany.content[0].text,
          /^invalid_arguments: brave_video_search: max_results/,
        );
        assert.equal(fakes.requestsOf("brave").length, 2, "refused before sending");
      });
    });
  });
});

Deno.test("MCP: a provider's own tool runs through the breaker and classification", async () => {
  await withFakeProviders(async (fakes) => {
    const config = configOf(fakes, { presentation: "one_provider", presentation_provider: "exa" });
    await withGleaner(config, async (gleaner) => {
      await withClient(gleaner, async (client) => {
        const similar = await client.callTool({
          name: "exa_find_similar",
          arguments: { url: "https://sqlite.org/", max_results: 2 },
        }) as ToolResult;
        assert.ok(!similar.isError, similar.content[0]?.text);
        const out = similar.structuredContent as { provider: string; results: unknown[] };
        assert.equal(out.provider, "exa");
        assert.equal(out.results.length, 2);

        fakes.setMode("exa", "ratelimit");
        const limited = await client.callTool({
          name: "exa_search",
          arguments: { query: "x" },
        }) as ToolResult;
        assert.ok(limited.isError);
        assert.match(limited.content[0].text, /^rate_limited: exa:/);
        assert.equal(gleaner.roles.health().find((h) => h.provider === "exa")?.state, "open");
      });
    });
  });
});

Deno.test("HTTP: /v1/tools lists the declared tools; POST /v1/tools/<name> runs them", async () => {
  await withFakeProviders(async (fakes) => {
    const web = await startFixtureWeb();
    try {
      const base = fakes.config({}, { presentation: "roles" });
      const config: ConfigInput = {
        ...base,
        network: {
          allow_private: [fakes.origin, web.origin],
          allowed_ports: [
            80,
            443,
            Number(new URL(fakes.origin).port),
            Number(new URL(web.origin).port),
          ],
        },
        read: { render: "never" },
      };
      await withGleaner(config, async (gleaner) => {
        const app = createApp(gleaner, toolsFor(gleaner.config));
        const listing = await (await app.request("http://localhost/v1/tools")).json();
        assert.deepEqual(
          listing.tools.map((t: { name: string; path: string }) => [t.name, t.path]),
          [
            ["web_search_tool", "/v1/tools/web_search_tool"],
            ["web_contents_tool", "/v1/tools/web_contents_tool"],
          ],
        );
        assert.equal(listing.tools[0].input_schema.type, "object");

        // No contents provider configured: Gleaner's own reader answers.
        const page = web.url("/pages/002");
        const res = await app.request("http://localhost/v1/tools/web_contents_tool", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ urls: [page] }),
        });
        assert.equal(res.status, 200);
        const body = await res.json();
        assert.equal(body.provider, "gleaner");
        assert.equal(body.role, "contents");
        assert.ok(body.pages[0].content.length > 200, "the page was read");
        assert.equal(body.pages[0].error, undefined);

        const bad = await app.request("http://localhost/v1/tools/web_contents_tool", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ urls: [] }),
        });
        assert.equal(bad.status, 400);
        const missing = await app.request("http://localhost/v1/tools/exa_search", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        });
        assert.equal(missing.status, 404, "undeclared tools have no route");
      });
    } finally {
      await web.close();
    }
  });
});

Deno.test("the search tool uses the provider order and /config never shows keys", async () => {
  await withFakeProviders(async (fakes) => {
    const config = configOf(fakes, {}, { brave: "brave-secret-key" });
    await withGleaner(config, async (gleaner) => {
      const app = createApp(gleaner, toolsFor(gleaner.config));
      fakes.setMode("brave", "ratelimit");
      const res = await app.request("http://localhost/v1/search", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ items: [{ query: "wal", max_results: 2 }] }),
      });
      const out = await res.json();
      assert.equal(res.status, 200);
      assert.equal(out.items[0].provider, "exa");
      assert.deepEqual(out.items[0].fallback_from, [{ provider: "brave", code: "rate_limited" }]);
      assert.deepEqual(out.items[0].attempts.map((a: { outcome: string }) => a.outcome), [
        "rate_limited",
        "ok",
      ]);
      const again = await (await app.request("http://localhost/v1/search", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ items: [{ query: "wal", max_results: 2 }] }),
      })).json();
      assert.equal(again.items[0].cached, true);

      const shown = await (await app.request("http://localhost/config")).text();
      for (const key of ["brave-secret-key", '"ke"', '"kt"']) {
        assert.ok(!shown.includes(key), `${key} redacted`);
      }
      assert.match(shown, /"exa_api_key":"\[redacted\]"/);
    });
  });
});

Deno.test("gleaner mcp (stdio) declares the presentation set in the environment", async () => {
  await withFakeProviders(async (fakes) => {
    const port = new URL(fakes.origin).port;
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", ...DENO_RUN_FLAGS, new URL("../cli.ts", import.meta.url).pathname, "mcp"],
      env: {
        PATH: Deno.env.get("PATH") ?? "",
        HOME: Deno.env.get("HOME") ?? "/tmp",
        NO_COLOR: "1",
        XDG_CONFIG_HOME: "/nonexistent/gleaner-test-config",
        GLEANER_STORE_PATH: ":memory:",
        GLEANER_EMBED_PROVIDER: "none",
        GLEANER_LOG_LEVEL: "warning",
        GLEANER_NETWORK_ALLOW_PRIVATE: JSON.stringify([fakes.origin]),
        GLEANER_NETWORK_ALLOWED_PORTS: JSON.stringify([80, 443, Number(port)]),
        EXA_API_KEY: "stdio-exa-key",
        GLEANER_SEARCH_PROVIDERS: JSON.stringify({ exa: { base_url: fakes.baseUrl("exa") } }),
        GLEANER_SEARCH_PRESENTATION: "one_provider",
        GLEANER_SEARCH_PRESENTATION_PROVIDER: "exa",
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "providers-stdio", version: "0" });
    try {
      await client.connect(transport as Transport);
      const names = ((await client.listTools()).tools as ListedTool[]).map((t) => t.name);
      assert.deepEqual(names, ["exa_search", "exa_find_similar", "exa_get_contents", "exa_answer"]);
      const result = await client.callTool({
        name: "exa_search",
        arguments: { query: "stdio", max_results: 2 },
      }) as ToolResult;
      assert.ok(!result.isError, result.content[0]?.text);
      assert.equal((result.structuredContent as { results: unknown[] }).results.length, 2);
      assert.equal(fakes.requestsOf("exa")[0].headers["x-api-key"], "stdio-exa-key");
    } finally {
      await client.close();
    }
  });
});

// ---------------------------------------------------------------------------
// Contents URLs pass the network policy before a provider sees them.

/** The page URLs a fake contents provider received. */
function sentUrls(fakes: FakeProviders, name: FakeProviderName): string[] {
  return fakes.requestsOf(name).flatMap((r) => {
    if (name === "jina") return [r.path.slice(1)];
    if (name === "keenable") return r.query.url ? [r.query.url] : [];
    const body = r.body as { urls?: string[] };
    return body.urls ?? [];
  });
}

const HOSTILE_URLS = [
  "http://127.0.0.1/admin",
  "http://169.254.169.254/latest/meta-data/",
  "file:///etc/passwd",
  "http://localhost:8080/",
  "http://[::1]/",
  "http://2130706433/",
  "http://10.0.0.7/internal",
  "https://user:pw@docs.example/",
];

Deno.test("contents providers never send a URL the network policy refuses; good ones pass, normalised", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(
      fakes.config({ exa: "ke", tavily: "kt", jina: "kj", keenable: "kk", tinyfish: "kf" }),
    );
    const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
    const good = "https://docs.example/guide?x=1#part";
    const traversal = "https://x.example/a/../../admin";
    for (const name of ["exa", "tavily", "jina", "keenable", "tinyfish"] as const) {
      const out = await roles.contents({
        urls: [good, ...HOSTILE_URLS, traversal],
        provider: name,
      });
      assert.equal(out.provider, name);
      assert.deepEqual(
        sentUrls(fakes, name).sort(),
        ["https://docs.example/guide?x=1", "https://x.example/admin"],
        `${name} received only the allowed URLs, normalised`,
      );
      assert.equal(out.pages.length, HOSTILE_URLS.length + 2, "one entry per URL asked");
      assert.equal(out.pages[0].url, good);
      assert.equal(out.pages[0].error, undefined, `${name}: the good URL was read`);
      assert.equal(
        out.pages.at(-1)?.error,
        undefined,
        `${name}: the traversal URL was read, resolved`,
      );
      for (const page of out.pages.slice(1, -1)) {
        assert.equal(page.error?.code, "blocked_url", `${name}: ${page.url} refused`);
        assert.equal(page.content, "");
      }
    }
    // Every hostile URL alone: the provider is not called at all.
    const before = fakes.requests.length;
    const alone = await roles.contents({ urls: HOSTILE_URLS, provider: "exa" });
    assert.ok(alone.pages.every((p) => p.error?.code === "blocked_url"));
    assert.equal(fakes.requests.length, before, "nothing was sent");
  });
});

Deno.test("MCP: a provider's own contents tool refuses blocked URLs per item (jina_read, exa_find_similar)", async () => {
  await withFakeProviders(async (fakes) => {
    const config = fakes.config({ jina: "kj", exa: "ke" }, { presentation: "all_tools" });
    await withGleaner(config, async (gleaner) => {
      await withClient(gleaner, async (client) => {
        const read = await client.callTool({
          name: "jina_read",
          arguments: { urls: ["https://docs.example/a", "http://169.254.169.254/latest/"] },
        }) as ToolResult;
        assert.ok(!read.isError, read.content[0]?.text);
        const pages = (read.structuredContent as { pages: { error?: { code: string } }[] }).pages;
        assert.equal(pages[0].error, undefined);
        assert.equal(pages[1].error?.code, "blocked_url");
        assert.deepEqual(sentUrls(fakes, "jina"), ["https://docs.example/a"]);

        const similar = await client.callTool({
          name: "exa_find_similar",
          arguments: { url: "http://127.0.0.1/secret" },
        }) as ToolResult;
        assert.ok(similar.isError);
        assert.match(similar.content[0].text, /^blocked_url:/);
        assert.equal(fakes.requestsOf("exa").length, 0, "exa never saw the URL");
      });
    });
  });
});

// ---------------------------------------------------------------------------
// Documented failures: what is the provider's state falls back, what is the request's stops.

/** Each provider with documented failures: the role it is routed for and who answers next. */
const ROUTES: [FakeProviderName, "search" | "answer", FakeProviderName][] = [
  ["brave", "search", "exa"],
  ["exa", "search", "tavily"],
  ["tavily", "search", "exa"],
  ["jina", "search", "exa"],
  ["gemini", "answer", "exa"],
  ["seltz", "search", "exa"],
  ["querit", "search", "exa"],
  ["tinyfish", "search", "exa"],
  ["parallel", "search", "exa"],
];

/** The breaker's clock in the table test (fixed: no timing in assertions). */
const CLOCK = Date.parse("2026-06-01T00:00:00Z");

Deno.test("router: every documented failure of the first provider that is not the caller's fault is answered by the second", async () => {
  await withFakeProviders(async (fakes) => {
    let cases = 0;
    for (const [name, role, second] of ROUTES) {
      for (const doc of DOCUMENTED_FAILURES[name] ?? []) {
        cases++;
        const config = parseConfig(fakes.config(
          {
            brave: "kb",
            exa: "ke",
            tavily: "kt",
            jina: "kj",
            gemini: "kg",
            seltz: "ks",
            querit: "kq",
            tinyfish: "kf",
            parallel: "kp",
          },
          { [`${role}_order`]: [name, second] },
        ));
        const roles = createRoleRouter({
          config,
          fetcher: createFetcher(config.network),
          now: () => CLOCK,
        });
        fakes.reply(name, doc);
        const asked = fakes.requestsOf(second).length;
        const call = role === "search"
          ? roles.search({ query: "sqlite wal", max_results: 2 })
          : roles.answer({ query: "what is wal" });
        const what = `${name} ${doc.name} (${doc.source})`;
        if (doc.fallsBack) {
          const out = await call;
          assert.equal(out.provider, second, `${what}: ${second} answered`);
          assert.deepEqual(out.fallback_from, [{ provider: name, code: doc.code }], what);
          const health = roles.health().find((h) => h.provider === name);
          if (doc.refusal) {
            // A refusal of this request (a query over the provider's length) is no failure of its own.
            assert.equal(health?.last_code, undefined, `${what}: the breaker did not count it`);
          } else {
            assert.equal(health?.last_code, doc.code, `${what}: the breaker recorded it`);
          }
          if (doc.retryAfterS !== undefined) {
            assert.equal(health?.state, "open", `${what}: kept aside for its Retry-After`);
            assert.equal(
              Date.parse(health!.open_until!),
              CLOCK + doc.retryAfterS * 1000,
              `${what}: for exactly its ${doc.retryAfterS} s`,
            );
          }
          if (doc.code === "unauthorized" || doc.code === "insufficient_balance") {
            assert.equal(health?.state, "open", `${what}: a key or credit problem opens at once`);
          }
        } else {
          const error = await call.then(() => assert.fail(`${what}: expected a failure`), (e) => e);
          assert.ok(error instanceof GleanerError, what);
          assert.equal(error.code, doc.code, `${what}: ${error.message}`);
          assert.match(error.message, new RegExp(name), `${what}: the message names the provider`);
          assert.equal(fakes.requestsOf(second).length, asked, `${what}: no silent switch`);
          if (name === "brave") {
            // The parameter Brave's body names (`error.meta.errors[0].loc`).
            const body = doc.body as { error: { meta: { errors: { loc: string[] }[] } } };
            const field = body.error.meta.errors[0].loc[1];
            assert.equal(error.details?.field, field, `${what}: names the field`);
            assert.match(error.message, new RegExp(`parameter ${field}`));
          }
          if (name === "tinyfish") {
            assert.equal(error.details?.field, "recency_minutes", `${what}: names the field`);
            assert.match(error.message, /parameter recency_minutes/);
          }
        }
        fakes.reply(name, null);
      }
    }
    assert.ok(cases >= 44, `the table is replayed (${cases} cases)`);
  });
});

Deno.test("router: once the breaker opens on repeated internal failures, the provider is not asked again", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ brave: "kb", exa: "ke" }, {
      search_order: ["brave", "exa"],
      breaker_failures: 2,
    }));
    const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
    fakes.setMode("brave", "unclassified");
    for (const query of ["a", "b"]) {
      const error = await roles.search({ query, max_results: 2 }).then(
        () => assert.fail("an unclassified failure stops"),
        (e) => e,
      );
      assert.equal(error.code, "internal");
    }
    assert.equal(fakes.requestsOf("exa").length, 0);
    const out = await roles.search({ query: "c", max_results: 2 });
    assert.equal(out.provider, "exa");
    assert.deepEqual(out.fallback_from, [
      { provider: "brave", code: "provider_unavailable", skipped: true },
    ]);
    assert.equal(fakes.requestsOf("brave").length, 2, "brave was not asked a third time");
  });
});

Deno.test("router: a page the first contents provider does not have is read by the next", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ keenable: "kk", exa: "ke" }, {
      contents_order: ["keenable", "exa"],
    }));
    const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
    const out = await roles.contents({ urls: ["https://a.example/not-in-keenable"] });
    assert.equal(out.provider, "exa");
    assert.deepEqual(out.fallback_from, [{ provider: "keenable", code: "not_found" }]);
    assert.match(out.pages[0].content, /read by exa/);
    const asked = fakes.requestsOf("keenable").map((r) => r.query.live ?? "indexed");
    assert.deepEqual(asked, ["indexed", "true"], "Keenable was asked once more, live");

    // In a batch, Keenable answers; the page it does not have is asked of exa alone.
    const batch = await roles.contents({
      urls: ["https://a.example/here", "https://a.example/not-in-keenable/2", "ftp://x.example/"],
    });
    assert.equal(batch.provider, "keenable");
    assert.match(batch.pages[0].content, /read by keenable/);
    assert.equal(batch.pages[0].provider, undefined);
    assert.match(batch.pages[1].content, /read by exa/);
    assert.equal(batch.pages[1].provider, "exa", "the page says who read it");
    assert.equal(batch.pages[2].error?.code, "blocked_url", "a refused URL is not asked again");
    const exaAsked = fakes.requestsOf("exa").map((r) => (r.body as { urls: string[] }).urls);
    assert.deepEqual(exaAsked.at(-1), ["https://a.example/not-in-keenable/2"]);
    assert.deepEqual(batch.attempts.map((a) => [a.backend, a.outcome]), [
      ["keenable", "ok"],
      ["exa", "ok"],
    ]);
  });
});

// ---------------------------------------------------------------------------
// Documented limits are respected before sending.

/** A query of `chars` characters in words of 4 to 9 letters. */
function longQuery(chars: number): string {
  const words: string[] = [];
  let length = -1;
  for (let i = 0; length < chars; i++) {
    const word = `w${i}`.padEnd(4 + (i % 6), "x");
    words.push(word);
    length += word.length + 1;
  }
  return words.join(" ").slice(0, chars).trim();
}

Deno.test("brave: a 1,500-character query and BCP 47 languages reach Brave in a form it documents as valid", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ brave: "kb", exa: "ke" }, {
      search_order: ["brave", "exa"],
    }));
    const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
    const query = longQuery(1500);
    const cases: [string, string, string | undefined][] = [
      ["ja", "jp", undefined],
      ["zh-TW", "zh-hant", "TW"],
      ["pt-BR", "pt-br", "BR"],
      ["nb", "nb", undefined],
      ["en-GB", "en-gb", "GB"],
    ];
    for (const [language, lang, country] of cases) {
      const out = await roles.search({
        query,
        max_results: 3,
        language,
        domains: ["sqlite.org"],
      });
      assert.equal(out.provider, "brave", `${language}: Brave accepted it (the fake validates)`);
      assert.deepEqual(out.fallback_from, []);
      const sent = fakes.requestsOf("brave").at(-1)!.query;
      assert.equal(sent.search_lang, lang, language);
      assert.equal(sent.country, country, language);
      assert.ok(sent.q.length <= 400, `${language}: ${sent.q.length} characters`);
      assert.ok(sent.q.split(/\s+/).length <= 50, `${language}: at most 50 words`);
      assert.ok(sent.q.endsWith(" site:sqlite.org"), "the site: hint is kept whole");
      assert.ok(query.startsWith(sent.q.slice(0, -" site:sqlite.org".length)), "cut at a word");
      assert.ok(
        out.notices?.some((n) => /brave: the query was cut .* 400 characters and 50 words/.test(n)),
        `the answer says so: ${out.notices}`,
      );
    }

    // A language Brave does not have is dropped, and the answer says so.
    const unknown = await roles.search({ query: "wal", max_results: 2, language: "kl-GL" });
    assert.equal(unknown.provider, "brave");
    const sent = fakes.requestsOf("brave").at(-1)!.query;
    assert.equal(sent.search_lang, undefined);
    assert.equal(sent.country, undefined);
    assert.ok(unknown.notices?.some((n) => /language "kl-GL" and region GL/.test(n)));

    // The fake answers as Brave does when a parameter is outside its vocabulary.
    const direct = await fetch(`${fakes.baseUrl("brave")}/res/v1/web/search?q=x&search_lang=ja`, {
      headers: { "x-subscription-token": "kb" },
    });
    assert.equal(direct.status, 422);
    assert.equal((await direct.json()).error.code, "VALIDATION");
  });
});

Deno.test("brave: a query that cannot be cut to Brave's limit is refused, naming Brave and the limit", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ brave: "kb", exa: "ke" }, {
      search_order: ["brave", "exa"],
    }));
    const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
    const error = await roles.search({ query: "x".repeat(450), max_results: 2 }).then(
      () => assert.fail("expected a refusal"),
      (e) => e,
    );
    assert.equal(error.code, "invalid_arguments");
    assert.match(error.message, /brave accepts at most 400 characters and 50 words/);
    assert.equal(error.details?.field, "query");
    assert.equal(fakes.requestsOf("brave").length, 0, "nothing was sent");
    assert.equal(fakes.requestsOf("exa").length, 0, "the caller's request: no fallback");
    assert.equal(
      roles.health().find((h) => h.provider === "brave"),
      undefined,
      "not a brave failure",
    );
  });
});

Deno.test("parallel: search_queries entries stay within 200 characters; the objective keeps the query", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ parallel: "kp" }, { search_order: ["parallel"] }));
    const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
    const query = longQuery(700);
    const out = await roles.search({ query, max_results: 2 });
    assert.equal(out.provider, "parallel", "the fake accepted the request");
    const body = fakes.requestsOf("parallel")[0].body as {
      objective: string;
      search_queries: string[];
    };
    assert.equal(body.objective, query);
    assert.equal(body.search_queries.length, 1);
    assert.ok(body.search_queries[0].length <= 200, `${body.search_queries[0].length}`);
    assert.ok(query.startsWith(body.search_queries[0]));
    assert.ok(out.notices?.some((n) => /parallel: the query was cut/.test(n)));
  });
});

Deno.test("HTTP search tool: the notices reach the answer", async () => {
  await withFakeProviders(async (fakes) => {
    const config = configOf(fakes, { search_order: ["brave"] }, { brave: "kb" });
    await withGleaner(config, async (gleaner) => {
      const app = createApp(gleaner, toolsFor(gleaner.config));
      const res = await app.request("http://localhost/v1/search", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ items: [{ query: longQuery(900), max_results: 2 }] }),
      });
      const out = await res.json();
      assert.equal(res.status, 200);
      assert.equal(out.items[0].provider, "brave");
      assert.match(out.items[0].notices[0], /brave: the query was cut/);
    });
  });
});

Deno.test("MCP: a Gemini Deep Research answer comes back in_progress and its interaction_id resumes it; gemini searches when ordered", async () => {
  await withFakeProviders(async (fakes) => {
    const config = configOf(fakes, {
      presentation: "roles",
      answer_order: ["exa", "gemini"],
      search_order: ["gemini"],
      providers: { gemini: { deep_research: true, deep_research_wait_ms: 0 } },
    }, { gemini: "kg" });
    await withGleaner(config, async (gleaner) => {
      await withClient(gleaner, async (client) => {
        const started = await client.callTool({
          name: "web_answer_tool",
          arguments: { query: "history of wal", depth: "deep", provider: "gemini" },
        }) as ToolResult;
        assert.ok(!started.isError, started.content[0]?.text);
        const first = started.structuredContent as {
          provider: string;
          status: string;
          interaction_id: string;
          answer: string;
        };
        assert.equal(first.provider, "gemini");
        assert.equal(first.status, "in_progress");
        assert.equal(first.answer, "");
        assert.match(started.content[0].text, /interaction_id v1_fake_run_1 to resume/);

        // Resuming needs no provider: the one that resumes answers is asked, never exa.
        const statuses: string[] = [first.status];
        let last: ToolResult = started;
        for (let i = 0; i < 5 && statuses.at(-1) === "in_progress"; i++) {
          last = await client.callTool({
            name: "web_answer_tool",
            arguments: {
              query: "history of wal",
              depth: "deep",
              interaction_id: first.interaction_id,
            },
          }) as ToolResult;
          assert.ok(!last.isError, last.content[0]?.text);
          statuses.push((last.structuredContent as { status: string }).status);
        }
        // The fake answers in_progress to two polls, then completed (one poll per call here).
        assert.deepEqual(statuses, ["in_progress", "in_progress", "in_progress", "completed"]);
        const done = last.structuredContent as { provider: string; answer: string };
        assert.equal(done.provider, "gemini");
        assert.match(done.answer, /^# Report/);
        assert.match(
          last.content[0].text,
          /Sources:\n\[1\] Write-Ahead Logging https:\/\/sqlite\.org\/wal\.html/,
        );
        assert.equal(fakes.requestsOf("exa").length, 0, "exa was never asked");
        assert.equal(
          fakes.requestsOf("gemini").filter((r) => r.method === "POST").length,
          1,
          "one run, resumed",
        );

        const search = await client.callTool({
          name: "web_search_tool",
          arguments: { query: "sqlite wal", max_results: 2 },
        }) as ToolResult;
        assert.ok(!search.isError, search.content[0]?.text);
        const hits = search.structuredContent as { provider: string; results: { url: string }[] };
        assert.equal(hits.provider, "gemini");
        assert.equal(hits.results.length, 2);
        assert.ok(
          hits.results.every((r) => r.url.startsWith("https://vertexaisearch.cloud.google.com/")),
        );
      });
    });
  });
});

Deno.test("router: interaction_id goes only to a provider that resumes answers, never falls back", async () => {
  await withFakeProviders(async (fakes) => {
    const exaOnly = parseConfig(fakes.config({ exa: "ke" }));
    const roles = createRoleRouter({ config: exaOnly, fetcher: createFetcher(exaOnly.network) });
    for (const provider of [undefined, "exa"]) {
      const error = await roles.answer({ query: "q", interaction_id: "v1_x", provider }).then(
        () => assert.fail("expected a refusal"),
        (e) => e,
      );
      assert.ok(error instanceof GleanerError);
      assert.equal(error.code, "invalid_arguments");
      assert.equal(error.details?.field, "interaction_id", error.message);
    }
    assert.equal(fakes.requestsOf("exa").length, 0, "exa never saw the id");

    const both = parseConfig(fakes.config({ exa: "ke", gemini: "kg" }, {
      answer_order: ["gemini", "exa"],
    }));
    const routed = createRoleRouter({ config: both, fetcher: createFetcher(both.network) });
    const error = await routed.answer({ query: "q", interaction_id: "v1_unknown" }).then(
      () => assert.fail("an unknown run fails"),
      (e) => e,
    );
    assert.equal(error.code, "not_found", error.message);
    assert.equal(fakes.requestsOf("exa").length, 0, "no fallback for a resumed run");
  });
});

Deno.test("querit: a 1,500-character query and BCP 47 languages reach Querit in a form it documents as valid", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ querit: "kq", exa: "ke" }, {
      search_order: ["querit", "exa"],
    }));
    const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
    const query = longQuery(1500);
    const cases: [string, string | undefined, string | undefined][] = [
      ["ja", "japanese", undefined],
      ["pt-BR", "portuguese", "brazil"],
      ["en-GB", "english", "united kingdom"],
      ["ko-KR", "korean", "south korea"],
      ["zh-TW", undefined, undefined],
    ];
    for (const [language, lang, country] of cases) {
      const out = await roles.search({ query, max_results: 3, language, domains: ["sqlite.org"] });
      assert.equal(out.provider, "querit", `${language}: Querit accepted it (the fake validates)`);
      assert.deepEqual(out.fallback_from, []);
      const body = fakes.requestsOf("querit").at(-1)!.body as {
        query: string;
        filters: {
          languages?: { include: string[] };
          geo?: { countries: { include: string[] } };
          sites?: { include: string[] };
        };
      };
      assert.deepEqual(body.filters.languages?.include, lang ? [lang] : undefined, language);
      assert.deepEqual(body.filters.geo?.countries.include, country ? [country] : undefined);
      assert.deepEqual(body.filters.sites?.include, ["sqlite.org"], "domains filtered natively");
      assert.ok(body.query.length <= 1000, `${language}: ${body.query.length} characters`);
      assert.ok(!body.query.includes("site:"), "no site: hint for a native domain filter");
      assert.ok(query.startsWith(body.query), "cut at a word");
      assert.ok(
        out.notices?.some((n) => /querit: the query was cut .* 1000 characters/.test(n)),
        `the answer says so: ${out.notices}`,
      );
      if (!lang) {
        assert.ok(out.notices?.some((n) => /language "zh-TW" and region TW/.test(n)));
      }
    }

    // The fake answers as Querit does when a value is outside its vocabulary.
    const direct = await fetch(`${fakes.baseUrl("querit")}/v1/search`, {
      method: "POST",
      headers: { authorization: "Bearer kq", "content-type": "application/json" },
      body: JSON.stringify({ query: "x", filters: { languages: { include: ["chinese"] } } }),
    });
    assert.equal(direct.status, 400);
    assert.equal((await direct.json()).error_code, 400);
  });
});

Deno.test("seltz and querit: their own tools over MCP, and the roles tool answers from them", async () => {
  await withFakeProviders(async (fakes) => {
    const keys = { seltz: "ks", querit: "kq" };
    await withGleaner(
      fakes.config(keys, { presentation: "all_tools" }),
      async (gleaner) => {
        await withClient(gleaner, async (client) => {
          const names = ((await client.listTools()).tools as ListedTool[]).map((t) => t.name);
          assert.deepEqual(names, ["seltz_search", "querit_search", ...KEYLESS_TOOLS]);
          for (const name of ["seltz_search", "querit_search"]) {
            const out = await client.callTool({
              name,
              arguments: { query: "sqlite wal", max_results: 2 },
            }) as ToolResult;
            assert.ok(!out.isError, out.content[0]?.text);
            const results = (out.structuredContent as { results: { url: string }[] }).results;
            assert.equal(results[0].url, "https://sqlite.org/wal.html", name);
          }
        });
      },
    );
    // Default order: Seltz before Querit, both before the keyless DuckDuckGo.
    await withGleaner(fakes.config(keys, { presentation: "roles" }), async (gleaner) => {
      await withClient(gleaner, async (client) => {
        fakes.setMode("seltz", "unauthorized");
        const out = await client.callTool({
          name: "web_search_tool",
          arguments: { query: "sqlite wal", max_results: 2 },
        }) as ToolResult;
        assert.ok(!out.isError, out.content[0]?.text);
        const structured = out.structuredContent as {
          provider: string;
          fallback_from: { provider: string; code: string }[];
        };
        assert.equal(structured.provider, "querit");
        assert.deepEqual(structured.fallback_from, [{ provider: "seltz", code: "unauthorized" }]);
      });
    });
  });
});

Deno.test("MCP: tinyfish_run answers in_progress with a run_id that resumes the run; a FAILED run is an error; TinyFish fetch hands a missing page to the next reader", async () => {
  await withFakeProviders(async (fakes) => {
    const config = fakes.config({ tinyfish: "kf", exa: "ke" }, {
      presentation: "one_provider",
      presentation_provider: "tinyfish",
      contents_order: ["tinyfish", "exa"],
      // Many calls in a row: lift the documented 30 a minute pacing for the test.
      providers: { tinyfish: { run_timeout_ms: 0, requests_per_second: 1000 } },
    });
    await withGleaner(config, async (gleaner) => {
      await withClient(gleaner, async (client) => {
        const tools = (await client.listTools()).tools as (ListedTool & {
          annotations?: { readOnlyHint?: boolean };
        })[];
        assert.deepEqual(tools.map((t) => t.name), [
          "tinyfish_search",
          "tinyfish_fetch",
          "tinyfish_run",
        ]);
        const run = tools.find((t) => t.name === "tinyfish_run")!;
        assert.equal(run.annotations?.readOnlyHint, false, "an agent run is not read-only");

        const started = await client.callTool({
          name: "tinyfish_run",
          arguments: { goal: "extract the title", url: "https://shop.example/" },
        }) as ToolResult;
        assert.ok(!started.isError, started.content[0]?.text);
        const first = started.structuredContent as {
          provider: string;
          status: string;
          interaction_id: string;
        };
        assert.equal(first.provider, "tinyfish");
        assert.equal(first.status, "in_progress");
        assert.match(started.content[0].text, /call again with run_id tf_run_1 to resume/);

        const statuses: string[] = [first.status];
        let last: ToolResult = started;
        for (let i = 0; i < 5 && statuses.at(-1) === "in_progress"; i++) {
          last = await client.callTool({
            name: "tinyfish_run",
            arguments: { run_id: first.interaction_id },
          }) as ToolResult;
          assert.ok(!last.isError, last.content[0]?.text);
          statuses.push((last.structuredContent as { status: string }).status);
        }
        assert.deepEqual(statuses, ["in_progress", "in_progress", "in_progress", "completed"]);
        assert.match(last.content[0].text, /"title": "Page https:\/\/shop\.example\/"/);
        assert.equal(
          fakes.requestsOf("tinyfish").filter((r) => r.path === "/v1/automation/run-async")
            .length,
          1,
          "one run, resumed",
        );

        // A run that ends FAILED: the tool answers an error, classified.
        const failing = await client.callTool({
          name: "tinyfish_run",
          arguments: { goal: "this fails", url: "https://shop.example/" },
        }) as ToolResult;
        let id = (failing.structuredContent as { interaction_id: string }).interaction_id;
        let failed: ToolResult = failing;
        for (let i = 0; i < 5 && !failed.isError; i++) {
          failed = await client.callTool({
            name: "tinyfish_run",
            arguments: { run_id: id },
          }) as ToolResult;
          if (!failed.isError) {
            id = (failed.structuredContent as { interaction_id: string }).interaction_id;
          }
        }
        assert.ok(failed.isError);
        assert.match(failed.content[0].text, /^provider_unavailable: .*ended FAILED/);
        assert.ok(!failed.content[0].text.includes("secret-detail-XYZ"));

        // The contents role: TinyFish reads what it can, exa reads the page it could not.
        const read = await client.callTool({
          name: "tinyfish_fetch",
          arguments: { urls: ["https://a.example/here", "http://10.0.0.7/internal"] },
        }) as ToolResult;
        const pages = (read.structuredContent as { pages: { error?: { code: string } }[] }).pages;
        assert.equal(pages[0].error, undefined);
        assert.equal(pages[1].error?.code, "blocked_url");
      });
    });
    const roles = createRoleRouter({
      config: parseConfig(config),
      fetcher: createFetcher(parseConfig(config).network),
    });
    const batch = await roles.contents({
      urls: ["https://a.example/here", "https://a.example/not-in-tinyfish"],
    });
    assert.equal(batch.provider, "tinyfish");
    assert.match(batch.pages[0].content, /read by tinyfish/);
    assert.equal(batch.pages[1].provider, "exa", "the page TinyFish did not have, read by exa");
    assert.match(batch.pages[1].content, /read by exa/);
  });
});

Deno.test("MCP: Parallel's run tools answer in_progress with a run_id, their status tools fetch the result; enrich rows fail alone", async () => {
  await withFakeProviders(async (fakes) => {
    const config = fakes.config({ parallel: "kp" }, {
      presentation: "one_provider",
      presentation_provider: "parallel",
      providers: { parallel: { run_wait_ms: 0, run_poll_ms: 10 } },
    });
    await withGleaner(config, async (gleaner) => {
      await withClient(gleaner, async (client) => {
        const tools = (await client.listTools()).tools as ListedTool[];
        assert.deepEqual(tools.map((t) => t.name), [
          "parallel_search",
          "parallel_extract",
          "parallel_chat",
          "parallel_research",
          "parallel_research_status",
          "parallel_enrich",
          "parallel_enrich_status",
          "parallel_dataset",
          "parallel_dataset_status",
        ]);
        assert.ok(tools.every((t) => t.outputSchema), "every tool declares its output");

        const started = await client.callTool({
          name: "parallel_research",
          arguments: { query: "history of wal" },
        }) as ToolResult;
        assert.ok(!started.isError, started.content[0]?.text);
        const first = started.structuredContent as {
          provider: string;
          status: string;
          run_id: string;
        };
        assert.deepEqual([first.provider, first.status, first.run_id], [
          "parallel",
          "in_progress",
          "trun_fake_1",
        ]);
        assert.match(
          started.content[0].text,
          /call parallel_research_status with run_id trun_fake_1/,
        );
        let last = started;
        for (
          let i = 0;
          i < 5 && (last.structuredContent as { status: string }).status !== "completed";
          i++
        ) {
          last = await client.callTool({
            name: "parallel_research_status",
            arguments: { run_id: first.run_id },
          }) as ToolResult;
          assert.ok(!last.isError, last.content[0]?.text);
        }
        const done = last.structuredContent as { status: string; content: string };
        assert.equal(done.status, "completed");
        assert.match(done.content, /^# Report/);
        assert.match(
          last.content[0].text,
          /Sources:\n\[1\] Write-Ahead Logging https:\/\/sqlite\.org\/wal\.html/,
        );

        const refused = await client.callTool({
          name: "parallel_research_status",
          arguments: { run_id: "a/b" },
        }) as ToolResult;
        assert.ok(refused.isError);
        assert.match(refused.content[0].text, /^invalid_arguments: run_id/);

        const enrich = await client.callTool({
          name: "parallel_enrich",
          arguments: { rows: [{ company: "Acme" }, { company: "fails" }], fields: { ceo: "CEO" } },
        }) as ToolResult;
        const enrichRun = enrich.structuredContent as { status: string; run_id: string };
        assert.equal(enrichRun.status, "in_progress");
        let rows = enrich;
        for (
          let i = 0;
          i < 5 && (rows.structuredContent as { status: string }).status !== "completed";
          i++
        ) {
          rows = await client.callTool({
            name: "parallel_enrich_status",
            arguments: { run_id: enrichRun.run_id },
          }) as ToolResult;
        }
        const items =
          (rows.structuredContent as { items: { status: string; error?: { code: string } }[] })
            .items;
        assert.deepEqual(items.map((i) => [i.status, i.error?.code]), [
          ["completed", undefined],
          ["failed", "provider_unavailable"],
        ]);
        assert.match(
          rows.content[0].text,
          /## 2\. \{"company":"fails"\} \(failed\)\nerror provider_unavailable/,
        );

        fakes.setMode("parallel", "balance", 1);
        const broke = await client.callTool({
          name: "parallel_dataset",
          arguments: {
            objective: "x",
            entity_type: "companies",
            match_conditions: [{ name: "c", description: "d" }],
          },
        }) as ToolResult;
        assert.ok(broke.isError);
        assert.match(broke.content[0].text, /^insufficient_balance: parallel:/);
      });
    });
  });
});

Deno.test("MCP: a provider's own tool says what it changed to fit the provider's limits (notices)", async () => {
  await withFakeProviders(async (fakes) => {
    const config = fakes.config({ brave: "kb" }, {
      presentation: "one_provider",
      presentation_provider: "brave",
    });
    await withGleaner(config, async (gleaner) => {
      await withClient(gleaner, async (client) => {
        // Within the tool's 400 characters, beyond Brave's documented 50 words.
        const words = Array.from({ length: 70 }, (_, i) => `w${i}`).join(" ");
        const out = await client.callTool({
          name: "brave_web_search",
          arguments: { query: words, max_results: 3 },
        }) as ToolResult;
        assert.ok(!out.isError, out.content[0]?.text);
        const notices = (out.structuredContent as { notices?: string[] }).notices ?? [];
        assert.ok(notices.some((n) => /brave: the query was cut/.test(n)), JSON.stringify(notices));
        assert.match(out.content[0].text, /\nnote: brave: the query was cut/);
        const sent = fakes.requestsOf("brave").at(-1)!.query;
        assert.ok(sent.q.split(" ").length <= 50, "Brave received a query it accepts");

        // A request that fits needs no notice.
        const plain = await client.callTool({
          name: "brave_web_search",
          arguments: { query: "sqlite wal", max_results: 3 },
        }) as ToolResult;
        assert.equal((plain.structuredContent as { notices?: string[] }).notices, undefined);
      });
    });
  });
});
