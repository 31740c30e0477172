/**
 * Two tenants of one hosted server, and the operator's private data.
 *
 * A hosted server (trusted proxy headers from loopback) has the operator's
 * Hister history (testing/fixtures/fake_hister.ts, holding a planted
 * password) and GitHub token (testing/fixtures/fake_github.ts, whose private
 * repository only that token reaches) configured. Every tool is called as
 * two tenants over REST, over MCP (the real SDK client with the proxy
 * headers, `/mcp` and `/mcp/deep-research`, memory resources included) and
 * through `/ui` (the API calls the page makes): nothing of one tenant reaches
 * the other (memories, cached pages, domain memory, search cache), and the
 * operator's private data (Hister's text, the private repository, the token as
 * the fake GitHub's `Authorization` header sees it) reaches neither; no
 * tenant's URL reaches the Hister server. The operator, with the admin key or
 * as a user listed in `read.hister_users` / `read.github_token_users`, still
 * gets both, and what they read lands in no tenant's cache.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createGleaner } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import { hostedMemory, userHeaders } from "../testing/hosted.ts";
import { startTestWorld } from "../testing/fixtures/world.ts";
import { startFakeHister } from "../testing/fixtures/fake_hister.ts";
import { FAKE_PRIVATE_TEXT, startFakeGithub } from "../testing/fixtures/fake_github.ts";

const ADMIN_KEY = "admin-key-0123456789abcdef0123456789ab";
const GITHUB_TOKEN = "ghp_operatorPrivateToken0123456789abcdef";
const HISTER_TOKEN = "hister-access-token-0123456789";
/** The password the operator's history holds. */
const PLANTED = "hunter2-operator-password-7d1e";
/** The listed user: the operator maps Hister and the GitHub token to them. */
const LISTED = "carol";

// deno-lint-ignore no-explicit-any
type Json = any;

/** What one call answered: the structured output, or the error code and message. */
type Outcome = { ok: true; out: Json } | { ok: false; code: string; message: string };

/** Calls one tool as one user over one surface. */
type Caller = (tool: string, args: Record<string, unknown>) => Promise<Outcome>;

/** Where the tools a surface offers are, and how a user calls them there. */
interface Surface {
  name: string;
  /** The tools reached over this surface (others are not offered there). */
  tools: ReadonlySet<string>;
  /** A caller for `user`, as the operator with `admin`. */
  as(user: string, admin?: boolean): Promise<Caller & { close(): Promise<void> }>;
}

/** An outbound proxy that answers everything itself (404) and records it: nothing leaves 127.0.0.1. */
function outsideWorld() {
  const requests: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    requests.push(`${req.method} ${req.url}`);
    return new Response("<p>not here</p>", {
      status: 404,
      headers: { "content-type": "text/html" },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    close: () => server.shutdown(),
  };
}

/** A memory of one tenant, and what must never show to another. */
const memoryOf = (user: string) =>
  `Private note of ${user}: the vault combination is ${user}-4711.`;

Deno.test("tenancy: two tenants over REST, MCP and /ui share nothing; the operator's Hister and GitHub token reach neither", async () => {
  const world = await startTestWorld();
  const visited = world.web.url("/pages/wikipedia");
  const historyOnly = `${world.web.origin}/account/bank-statement`;
  const hister = startFakeHister({
    [visited]: {
      title: "Operator's copy",
      html: `<html><body><article><h1>Operator's copy</h1><p>Remember: ${PLANTED}. ` +
        `The lighthouse keepers logged every ship that passed.</p></article></body></html>`,
      text: `Remember: ${PLANTED}.`,
      added: 1_700_000_000,
    },
    [historyOnly]: {
      title: "Bank statement",
      html:
        `<html><body><article><p>Online banking password ${PLANTED}</p></article></body></html>`,
      text: `Online banking password ${PLANTED}`,
      added: 1_700_000_000,
    },
  }, HISTER_TOKEN);
  const github = await startFakeGithub({ privateToken: GITHUB_TOKEN });
  const outside = outsideWorld();
  const root = await Deno.makeTempDir();
  const base = world.config;
  const gleaner = await createGleaner({
    ...base,
    network: {
      ...base.network,
      allow_private: [...(base.network!.allow_private as string[]), hister.origin, github.origin],
      proxy_url: outside.url,
      no_proxy: ["127.0.0.1"],
    },
    read: {
      render: "never",
      hister_url: hister.origin,
      hister_token: HISTER_TOKEN,
      hister_users: [LISTED],
      github_token: GITHUB_TOKEN,
      github_token_users: [LISTED],
      github_api_url: github.apiUrl,
      github_raw_url: github.rawUrl,
    },
    server: { port: 0 },
    store: { path: `${root}/gleaner.db` },
    memory: hostedMemory(`${root}/memory.db`, {
      hosted_admin_key: ADMIN_KEY,
      deep_research: true,
    }),
  });
  const server = serveHttp(gleaner);
  const secrets = [PLANTED, FAKE_PRIVATE_TEXT, GITHUB_TOKEN, HISTER_TOKEN, ADMIN_KEY];
  /** Nothing of the operator's in what a tenant got. */
  const clean = (outcome: unknown, what: string) => {
    const text = JSON.stringify(outcome);
    for (const secret of secrets) {
      assert.ok(!text.includes(secret), `${what} carries the operator's ${secret.slice(0, 12)}…`);
    }
  };
  const headersFor = (user: string, admin?: boolean): Record<string, string> => ({
    ...userHeaders(user),
    ...(admin ? { "x-gleaner-admin-key": ADMIN_KEY } : {}),
  });
  const post = async (path: string, user: string, body: unknown, admin?: boolean) => {
    const res = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headersFor(user, admin) },
      body: JSON.stringify(body),
    });
    const json = await res.json() as Json;
    return res.ok
      ? { ok: true as const, out: json }
      : { ok: false as const, code: json.error?.code, message: json.error?.message };
  };
  const mcpCaller = async (user: string, path: string, admin?: boolean) => {
    const client = new Client({ name: `tenancy-${user}`, version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), {
        requestInit: { headers: headersFor(user, admin) },
      }) as Transport,
    );
    const call = async (tool: string, args: Record<string, unknown>): Promise<Outcome> => {
      const result = await client.callTool({ name: tool, arguments: args }) as Json;
      // A batch whose every item failed is isError with its items (REST: 200 with them): an answer.
      if (result.isError && result.structuredContent === undefined) {
        const text: string = result.content[0].text;
        return { ok: false, code: text.split(":")[0], message: text };
      }
      return { ok: true, out: result.structuredContent };
    };
    return Object.assign(call, { client, close: () => client.close() });
  };

  // The API calls the /ui page makes, read from the page's own script.
  const script = await (await fetch(`${server.url}/ui/app.js`)).text();
  const uiPaths = new Set([...script.matchAll(/api\("(\/v1\/[a-z/_]+)"/g)].map((m) => m[1]));
  const UI_ROUTES: Record<string, string> = {
    research: "/v1/research",
    scrape_urls: "/v1/scrape",
    search: "/v1/search",
    save_memories: "/v1/memories/save",
    list_memories: "/v1/memories/list",
    get_memory: "/v1/memories/get",
    update_memory: "/v1/memories/update",
    delete_memory: "/v1/memories/delete",
  };
  assert.deepEqual([...uiPaths].sort(), Object.values(UI_ROUTES).sort(), "the page's API calls");

  const everyTool = new Set([
    "search",
    "scrape_urls",
    "research",
    "crawl_site",
    "domain_stats",
    "clear_cache",
    "current_datetime",
    "save_memories",
    "recall_memories",
    "list_memories",
    "get_memory",
    "update_memory",
    "delete_memory",
  ]);
  const surfaces: Surface[] = [
    {
      name: "REST",
      tools: everyTool,
      as: (user, admin) =>
        Promise.resolve(Object.assign(
          (tool: string, args: Record<string, unknown>) =>
            post(`/v1/tools/${tool}`, user, args, admin),
          { close: () => Promise.resolve() },
        )),
    },
    { name: "MCP", tools: everyTool, as: (user, admin) => mcpCaller(user, "/mcp", admin) },
    {
      name: "/ui",
      tools: new Set(Object.keys(UI_ROUTES)),
      as: (user) =>
        Promise.resolve(Object.assign(
          (tool: string, args: Record<string, unknown>) =>
            // The page calls its routes; the proxy in front adds the verified identity.
            post(UI_ROUTES[tool], user, args),
          { close: () => Promise.resolve() },
        )),
    },
  ];

  const githubFile = "https://github.com/acme/widget/blob/main/LICENSE";
  const vaultFile = "https://github.com/acme/vault/blob/main/README.md";
  const query = "lighthouse keepers salary";
  try {
    for (const surface of surfaces) {
      const has = (tool: string) => surface.tools.has(tool);
      const aliceName = `alice-${surface.name}`;
      const bobName = `bob-${surface.name}`;
      const alice = await surface.as(aliceName);
      const bob = await surface.as(bobName);
      const histerBefore = hister.requests.length;
      const githubBefore = github.requests.length;
      /** A call that must succeed, and must carry nothing of the operator's. */
      const ok = async (who: Caller, tool: string, args: Record<string, unknown>) => {
        const outcome = await who(tool, args);
        const where = `${surface.name} ${tool}`;
        clean(outcome, where);
        assert.ok(outcome.ok, `${where}: ${JSON.stringify(outcome)}`);
        return outcome.out;
      };
      const fails = async (who: Caller, tool: string, args: Record<string, unknown>) => {
        const outcome = await who(tool, args);
        clean(outcome, `${surface.name} ${tool}`);
        assert.ok(!outcome.ok, `${surface.name} ${tool} should fail: ${JSON.stringify(outcome)}`);
        return outcome;
      };
      const scrape = async (who: Caller, url: string) =>
        (await ok(who, "scrape_urls", { items: [{ url }] })).items[0];

      // Alice: a memory, pages (one the operator visited, one only in the history), GitHub.
      const saved = await ok(alice, "save_memories", {
        memories: [{ content: memoryOf(aliceName), kind: "episodic" }],
      });
      const ref: string = saved.results[0].ref;
      let item = await scrape(alice, visited);
      assert.equal(item.ok, true);
      assert.equal(item.tier, "http", `${surface.name}: a tenant reads the live page, not Hister`);
      item = await scrape(alice, historyOnly);
      assert.equal(item.ok, false, `${surface.name}: only in the history, so not found live`);
      assert.equal(item.error.code, "not_found");
      item = await scrape(alice, visited);
      assert.equal(item.tier, "cache", `${surface.name}: Alice's own cache works`);
      if (surface.name !== "/ui") {
        item = await scrape(alice, githubFile);
        assert.equal(item.tier, "github");
        item = await scrape(alice, vaultFile);
        assert.equal(item.ok, false, `${surface.name}: the private repository is the operator's`);
      }
      let out = await ok(alice, "search", { items: [{ query }] });
      assert.equal(out.items[0].cached, false);
      out = await ok(alice, "search", { items: [{ query }] });
      assert.equal(out.items[0].cached, true, `${surface.name}: Alice's search cache works`);
      out = await ok(alice, "research", { query: "what did the lighthouse keepers log" });
      clean(out, "research");
      if (has("crawl_site")) {
        await ok(alice, "crawl_site", { url: world.web.url("/maze/"), max_pages: 3, max_depth: 1 });
      }
      if (has("domain_stats")) {
        out = await ok(alice, "domain_stats", {});
        assert.ok(
          out.summary.some((s: Json) => s.origin === world.web.origin),
          `${surface.name}: Alice's domain memory`,
        );
      }
      if (has("recall_memories")) {
        out = await ok(alice, "recall_memories", { query: "vault combination" });
        assert.ok(JSON.stringify(out).includes(`${aliceName}-4711`), "Alice recalls her memory");
      }
      out = await ok(alice, "list_memories", { limit: 50 });
      assert.equal(out.total_count, 1);
      out = await ok(alice, "get_memory", { ref });
      assert.equal(out.memory.content, memoryOf(aliceName));
      out = await ok(alice, "update_memory", { ref, content: `${memoryOf(aliceName)} Updated.` });
      if (has("current_datetime")) await ok(alice, "current_datetime", {});
      if (has("clear_cache")) {
        const refused = await fails(alice, "clear_cache", { target: "all" });
        assert.equal(refused.code, "unauthorized");
      }

      // Bob: none of Alice's, and none of the operator's.
      // (A refusal may name the ref Bob asked about; never what it holds.)
      const none = (outcome: unknown, what: string, refToo = true) => {
        const text = JSON.stringify(outcome);
        assert.ok(!text.includes(`${aliceName}-4711`), `${surface.name} ${what}: Alice's memory`);
        if (refToo) assert.ok(!text.includes(ref), `${surface.name} ${what}: Alice's memory ref`);
      };
      out = await ok(bob, "list_memories", { limit: 50 });
      assert.equal(out.total_count, 0, `${surface.name}: Bob lists no memory`);
      none(out, "list_memories");
      if (has("recall_memories")) {
        none(await ok(bob, "recall_memories", { query: "vault combination" }), "recall");
      }
      for (const tool of ["get_memory", "update_memory", "delete_memory"]) {
        const args = tool === "update_memory" ? { ref, content: "Bob was here." } : { ref };
        const refused = await fails(bob, tool, args);
        assert.equal(refused.code, "not_found", `${surface.name} ${tool} of Alice's ref`);
        none(refused, tool, false);
      }
      if (has("domain_stats")) {
        out = await ok(bob, "domain_stats", {});
        assert.ok(
          !out.summary.some((s: Json) => s.origin === world.web.origin),
          `${surface.name}: Bob's domain memory knows nothing of Alice's reads`,
        );
        out = await ok(bob, "domain_stats", { domain: world.web.origin });
        assert.deepEqual(out.origins, []);
      }
      out = await ok(bob, "search", { items: [{ query }] });
      assert.equal(out.items[0].cached, false, `${surface.name}: Bob's search is not Alice's`);
      item = await scrape(bob, visited);
      assert.equal(item.tier, "http", `${surface.name}: Bob's read is not Alice's cached page`);
      item = await scrape(bob, historyOnly);
      assert.equal(item.ok, false);
      if (surface.name !== "/ui") {
        item = await scrape(bob, githubFile);
        assert.equal(item.tier, "github");
      }
      if (has("crawl_site")) {
        const before = world.web.requests.length;
        await ok(bob, "crawl_site", { url: world.web.url("/maze/"), max_pages: 3, max_depth: 1 });
        assert.ok(world.web.requests.length > before, "Bob's crawl is not Alice's manifest");
      }
      if (has("clear_cache")) {
        assert.equal((await fails(bob, "clear_cache", { target: "all" })).code, "unauthorized");
      }
      // Alice's things survived Bob.
      out = await ok(alice, "get_memory", { ref });
      assert.equal(out.memory.content, `${memoryOf(aliceName)} Updated.`);
      out = await ok(alice, "delete_memory", { ref });

      // No tenant's URL reached the history; no tenant's GitHub read carried the token.
      assert.equal(hister.requests.length, histerBefore, `${surface.name}: Hister was asked`);
      const sent = github.requests.slice(githubBefore);
      if (surface.name !== "/ui") assert.ok(sent.length > 0);
      assert.deepEqual(
        sent.filter((r) => r.headers.authorization !== undefined).map((r) => r.path),
        [],
        `${surface.name}: a tenant's GitHub read carried the operator's token`,
      );
      await alice.close();
      await bob.close();
    }

    // MCP's other faces: memory resources, and the Deep Research endpoint.
    {
      const alice = await mcpCaller("alice-resources", "/mcp");
      const bob = await mcpCaller("bob-resources", "/mcp");
      const saved = await alice("save_memories", {
        memories: [{ content: memoryOf("alice-resources") }],
      });
      assert.ok(saved.ok);
      const ref: string = saved.out.results[0].ref;
      const listed = await bob.client.listResources();
      assert.ok(!JSON.stringify(listed).includes(ref), "Bob lists Alice's memory resource");
      await assert.rejects(
        bob.client.readResource({ uri: `gleaner://memory/${ref}` }),
        "Bob reads Alice's memory resource",
      );
      await alice.close();
      await bob.close();
      const deepAlice = await mcpCaller("alice-resources", "/mcp/deep-research");
      const deepBob = await mcpCaller("bob-resources", "/mcp/deep-research");
      const histerBefore = hister.requests.length;
      const githubBefore = github.requests.length;
      let found = await deepAlice("search", { query: "vault combination" });
      assert.ok(found.ok && JSON.stringify(found.out).includes(`memory:${ref}`));
      found = await deepBob("search", { query: "vault combination" });
      assert.ok(found.ok);
      assert.ok(!JSON.stringify(found.out).includes(ref), "Bob's Deep Research search");
      clean(found, "Deep Research search");
      const fetched = await deepBob("fetch", { id: `memory:${ref}` });
      assert.equal(fetched.ok, false, "Bob fetches Alice's memory");
      for (const url of [visited, historyOnly, githubFile, vaultFile]) {
        const page = await deepBob("fetch", { id: url });
        clean(page, `Deep Research fetch ${url}`);
        if (page.ok) assert.notEqual(page.out.metadata.tier, "hister");
      }
      assert.equal(hister.requests.length, histerBefore, "Deep Research fetch reached Hister");
      assert.ok(
        github.requests.slice(githubBefore).every((r) => r.headers.authorization === undefined),
      );
      await deepAlice.close();
      await deepBob.close();
    }

    // The operator: as a listed user, and with the admin key (REST and MCP), gets both.
    // Each reads another file of the private repository, so each read asks the fake GitHub.
    const operators: [string, Caller & { close(): Promise<void> }, string][] = [
      [`listed user over REST`, await surfaces[0].as(LISTED), vaultFile],
      [
        `admin key over REST`,
        await surfaces[0].as("alice-REST", true),
        "https://github.com/acme/vault/blob/main/notes.md",
      ],
      [
        `admin key over MCP`,
        await surfaces[1].as("alice-MCP", true),
        "https://api.github.com/repos/acme/vault/contents/notes.md",
      ],
    ];
    for (const [who, caller, privateFile] of operators) {
      const githubBefore = github.requests.length;
      const read = async (url: string, query: string) => {
        const outcome = await caller("scrape_urls", { items: [{ url, query }] });
        assert.ok(outcome.ok, `${who}: ${JSON.stringify(outcome)}`);
        return outcome.out;
      };
      // (The admin key's reads share the operator's own tenant: the second one is a cache hit.)
      let out = await read(historyOnly, "online banking password");
      assert.equal(out.items[0].ok, true, `${who}: ${JSON.stringify(out.items[0])}`);
      assert.ok(["hister", "cache"].includes(out.items[0].tier), who);
      assert.ok(JSON.stringify(out.evidence).includes(PLANTED), `${who} reads the history`);
      out = await read(privateFile, "launch code");
      assert.equal(out.items[0].ok, true, `${who}: ${JSON.stringify(out.items[0])}`);
      assert.ok(JSON.stringify(out.evidence).includes(FAKE_PRIVATE_TEXT), `${who}: the vault`);
      const sent = github.requests.slice(githubBefore);
      assert.ok(sent.length > 0);
      assert.ok(
        sent.every((r) => r.headers.authorization === `Bearer ${GITHUB_TOKEN}`),
        `${who}: GitHub reads carry the token`,
      );
      const research = await caller("research", { query: "online banking password" });
      assert.ok(research.ok);
      await caller.close();
    }
    // The operator's reads landed in no tenant's cache: the same users, without the key, still
    // read the live page (Alice's own cached copy) and not the history.
    for (
      const [user, surface] of [["alice-REST", surfaces[0]], ["alice-MCP", surfaces[1]]] as const
    ) {
      const caller = await surface.as(user);
      const outcome = await caller("scrape_urls", {
        items: [{ url: historyOnly }, { url: vaultFile }],
      });
      clean(outcome, `${user} after the operator's reads`);
      assert.ok(outcome.ok);
      assert.deepEqual(outcome.out.items.map((i: Json) => i.ok), [false, false], user);
      await caller.close();
    }
    // The outside world was never asked about the history's or the vault's text.
    clean(outside.requests, "the outside proxy's log");
  } finally {
    await server.shutdown();
    await gleaner.close();
    await outside.close();
    await github.close();
    await hister.close();
    await world.close();
    await Deno.remove(root, { recursive: true });
  }
});
