/**
 * The deployment matrix: each profile starts Gleaner with the README's command, the
 * `deno task start` / `deno task mcp` line of deno.json (the launcher and its scoped grants,
 * never -A), and calls every tool once through the real MCP SDK client and once over REST
 * (where hosted, each transport as one of two tenants: the one with the operator's admin key
 * over MCP and the other over REST, or the other way round on PostgreSQL). Every result validates against the tool's output schema,
 * nothing answers 5xx, nothing prints a permission error or a Deno warning, and a memory one
 * tenant saved is never recalled, listed or read by the other.
 *
 * Profiles: stdio single user; HTTP single user; hosted on SQLite; hosted on PostgreSQL
 * without Valkey; hosted on PostgreSQL with Valkey (redis-server); events and telemetry on
 * (nats-server, an OTLP collector on loopback); outbound integrations (a forward proxy,
 * kiwix-serve). A profile whose server is missing is ignored with one line, or fails when
 * its `GLEANER_REQUIRE_*` variable is 1 (testing/fixtures/require.ts).
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { parseConfig } from "../lib/config/config.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { HMAC_SECRET, PROXY_TOKEN, userHeaders } from "../testing/hosted.ts";
import { startTestWorld, type TestWorld } from "../testing/fixtures/world.ts";
import { ignorePostgres, postgresSuffix, startPostgres } from "../testing/fixtures/postgres.ts";
import { redisRequirement, startRedis } from "../lib/store/testdata/helpers.ts";
import { natsRequirement, startNats, subscribe } from "../testing/fixtures/nats.ts";
import { startOtlpCollector } from "../testing/fixtures/otlp.ts";
import { forwardProxy, startForwardProxy } from "../testing/fixtures/forward_proxy.ts";
import { kiwixRequirement, startKiwix } from "../testing/fixtures/kiwix.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const ADMIN_KEY = "admin-key-0123456789abcdef0123456789ab";

/** Each tool's spec (output schema) by name, as the default presentation serves them. */
const SPECS = new Map<string, AnyToolSpec>(
  toolsFor(parseConfig({})).map((tool) => [tool.name, tool] as const),
);

/** Deno's cache directory, so that a server with another HOME does not download again. */
const DENO_DIR: string = JSON.parse(
  new TextDecoder().decode(
    (await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json"],
      stdout: "piped",
      stderr: "null",
    }).output()).stdout,
  ),
).denoDir;

/** A fresh HOME and data directory with the world's settings (store and memory on disk). */
async function profileEnv(
  world: TestWorld,
  extra: Record<string, string>,
): Promise<{ env: Record<string, string>; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "gleaner-matrix-" });
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "",
    ...world.env,
    DENO_DIR,
    HOME: `${dir}/home`,
    XDG_CONFIG_HOME: `${dir}/config`,
    XDG_DATA_HOME: `${dir}/data`,
    TMPDIR: dir,
    GLEANER_EMBED_PROVIDER: "static",
    // The address the server listens on is an info line.
    GLEANER_LOG_LEVEL: "info",
    NO_COLOR: "1",
    ...extra,
  };
  delete env.GLEANER_STORE_PATH;
  await Deno.mkdir(`${dir}/home`);
  return { env, dir };
}

/** What a profile's server printed that a normal start must not print. */
const UNEXPECTED_OUTPUT =
  /experimental|Warning|\[WRN\]|\[ERR\]|NotCapable|permission missing|Requires \w+ access|lacks --allow/;

/**
 * Asserts that `stderr` holds nothing unexpected; the one warning the test world asks for
 * (its loopback pages are reached through `network.allow_private`) aside.
 */
function assertQuiet(stderr: string): void {
  const lines = stderr.split("\n").filter((line) => !/network\.allow_private is on/.test(line));
  assert.doesNotMatch(lines.join("\n"), UNEXPECTED_OUTPUT, stderr);
}

/** `deno task start` on a free port: its base URL, its stderr so far, and a stop. */
async function startTask(env: Record<string, string>): Promise<{
  base: string;
  stderr: () => string;
  stop: () => Promise<void>;
}> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "start", "--port", "0"],
    cwd: ROOT,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  let base = "";
  // A server that never says where it listens is stopped (its stderr then ends).
  const deadline = setTimeout(() => child.kill("SIGKILL"), 180_000);
  try {
    while (!base) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`deno task start did not start:\n${seen}`);
      seen += decoder.decode(value, { stream: true });
      base = /listening on "?(http:\/\/[^\s")]+)/.exec(seen)?.[1]?.replace(/\/$/, "") ?? "";
    }
  } catch (error) {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await child.status;
    throw error;
  } finally {
    clearTimeout(deadline);
  }
  const drained = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      seen += decoder.decode(value, { stream: true });
    }
  })();
  return {
    base,
    stderr: () => seen,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await drained;
    },
  };
}

/** One way of calling a tool: over MCP or over REST. */
type Call = (name: string, args: Record<string, unknown>) => Promise<CallResult>;

/** What a call returned: the structured result when it succeeded, and its text. */
interface CallResult {
  ok: boolean;
  output?: Record<string, unknown>;
  text: string;
}

/** Calls over MCP through the SDK client. */
function mcpCall(client: Client): Call {
  return async (name, args) => {
    const result = await client.callTool({ name, arguments: args }) as {
      isError?: boolean;
      content: { text?: string }[];
      structuredContent?: Record<string, unknown>;
    };
    const text = JSON.stringify(result);
    return result.isError
      ? { ok: false, text }
      : { ok: true, output: result.structuredContent, text };
  };
}

/** Calls over REST: `POST` to each tool's path as `GET /v1/tools` lists it. */
async function restCall(base: string, headers: Record<string, string>): Promise<Call> {
  const listing = await fetch(`${base}/v1/tools`, { headers });
  assert.equal(listing.status, 200, await listing.clone().text());
  const paths = new Map(
    ((await listing.json()) as { tools: { name: string; path: string }[] }).tools.map((
      t,
    ) => [t.name, t.path]),
  );
  return async (name, args) => {
    const path = paths.get(name);
    assert.ok(path, `GET /v1/tools lists ${name}`);
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(args),
    });
    const text = await response.text();
    assert.ok(response.status < 500, `${name}: ${response.status} ${text}`);
    const json = JSON.parse(text);
    return response.status === 200 ? { ok: true, output: json, text } : { ok: false, text };
  };
}

/** Asserts `result` succeeded and validates against `name`'s output schema; returns the output. */
function valid(name: string, result: CallResult, where: string): Record<string, unknown> {
  assert.ok(result.ok, `${where} ${name}: ${result.text}`);
  assert.doesNotMatch(result.text, /NotCapable|permission missing|Requires \w+ access/);
  const spec = SPECS.get(name);
  assert.ok(spec, `${name} has a spec`);
  const parsed = spec.output.safeParse(result.output);
  assert.ok(
    parsed.success,
    `${where} ${name}: output does not match its schema: ${
      JSON.stringify(parsed.error?.issues?.slice(0, 3))
    }`,
  );
  const items = (result.output?.items ?? []) as { ok?: boolean; error?: unknown }[];
  for (const item of items) assert.notEqual(item.ok, false, `${where} ${name}: ${result.text}`);
  return result.output!;
}

/** The tools the default presentation serves here, with arguments (a memory ref where needed). */
function toolArgs(
  world: TestWorld,
  tag: string,
): Record<string, (ref: string) => Record<string, unknown>> {
  const page = world.web.url("/pages/mozilla-1");
  return {
    search: () => ({ items: [{ query: "web workers" }] }),
    scrape_urls: () => ({ items: [{ url: page, query: "what is a web worker" }] }),
    // Two pages: the profile's reads, extraction and ranking all run; five (the default) only
    // repeat them, in the costliest call of the matrix.
    research: () => ({ query: "what is a web worker", max_pages: 2 }),
    crawl_site: () => ({ url: `${world.web.origin}/pages/`, max_pages: 2, max_depth: 1 }),
    domain_stats: () => ({}),
    current_datetime: () => ({}),
    save_memories: () => ({
      memories: [{ content: `The harbour ferry leaves every hour (${tag}).` }],
    }),
    recall_memories: () => ({ query: "when does the ferry leave" }),
    list_memories: () => ({}),
    get_memory: (ref) => ({ memory_id: ref }),
    update_memory: (ref) => ({
      memory_id: ref,
      content: `The harbour ferry leaves twice an hour (${tag}).`,
    }),
    delete_memory: (ref) => ({ memory_id: ref }),
    clear_cache: () => ({ target: "all" }),
  };
}

/**
 * Calls every listed tool once through `call`; `admin` false: `clear_cache` must be refused
 * (hosted mode, a tenant without the operator's key).
 */
async function everyTool(
  call: Call,
  names: string[],
  world: TestWorld,
  where: string,
  admin = true,
): Promise<void> {
  const args = toolArgs(world, where);
  assert.deepEqual(names.filter((n) => !(n in args)), [], "every listed tool has arguments here");
  let ref = "";
  for (const name of Object.keys(args).filter((n) => names.includes(n))) {
    const result = await call(name, args[name](ref));
    if (name === "clear_cache" && !admin) {
      assert.equal(result.ok, false, `${where} clear_cache without the admin key`);
      assert.match(result.text, /unauthorized|admin key/, result.text);
      continue;
    }
    const output = valid(name, result, where);
    if (name === "save_memories") {
      ref = (output as { results: { ref: string }[] }).results[0].ref;
      assert.ok(ref, result.text);
    }
  }
}

/** A memory only `owner` may see: saved, then looked for by `other` (by recall, list and ref). */
async function tenantsApart(owner: Call, other: Call, where: string): Promise<void> {
  const secret = `The spare key of the boathouse hangs behind the tide chart (${where})`;
  const saved = valid(
    "save_memories",
    await owner("save_memories", { memories: [{ content: secret }] }),
    where,
  ) as { results: { ref: string }[] };
  const ref = saved.results[0].ref;
  const mine = valid(
    "recall_memories",
    await owner("recall_memories", { query: "spare key boathouse" }),
    where,
  );
  assert.ok(JSON.stringify(mine).includes(secret), `${where}: the owner recalls it`);
  const recalled = valid(
    "recall_memories",
    await other("recall_memories", { query: "spare key boathouse" }),
    where,
  );
  assert.ok(!JSON.stringify(recalled).includes(secret), `${where}: recalled by the other tenant`);
  const listed = valid("list_memories", await other("list_memories", {}), where);
  assert.ok(!JSON.stringify(listed).includes(secret), `${where}: listed for the other tenant`);
  const read = await other("get_memory", { memory_id: ref });
  assert.equal(read.ok, false, `${where}: the other tenant read it: ${read.text}`);
  assert.match(read.text, /not_found/);
}

/** MCP over Streamable HTTP at `base`/mcp with `headers`. */
async function httpClient(base: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "gleaner-matrix", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers },
    }) as Transport,
  );
  return client;
}

/** Tool names the server lists over MCP. */
async function listed(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t: { name: string }) => t.name);
}

/**
 * Runs an HTTP profile: one user calling every tool over MCP and over REST, or two tenants
 * (`hosted`, named after `tag`) of whom the first holds the operator's admin key and calls every
 * tool over `adminOver`, the second over the other transport. `check` runs last, on the running
 * server.
 */
async function httpProfile(
  world: TestWorld,
  tag: string,
  extra: Record<string, string>,
  hosted: boolean,
  check?: (base: string) => Promise<void>,
  adminOver: "mcp" | "rest" = "mcp",
): Promise<void> {
  const { env, dir } = await profileEnv(world, {
    ...extra,
    ...(hosted
      ? {
        GLEANER_MEMORY_HOSTED: "true",
        GLEANER_MEMORY_HOSTED_PROXY_TOKEN: PROXY_TOKEN,
        GLEANER_MEMORY_HOSTED_HMAC_SECRET: HMAC_SECRET,
        GLEANER_MEMORY_HOSTED_ADMIN_KEY: ADMIN_KEY,
      }
      : {}),
  });
  const server = await startTask(env);
  const clients: Client[] = [];
  try {
    const tenants = hosted
      ? [
        {
          name: `${tag}-a`,
          headers: { ...userHeaders(`${tag}-a`), "x-gleaner-admin-key": ADMIN_KEY },
        },
        { name: `${tag}-b`, headers: userHeaders(`${tag}-b`) },
      ]
      : [{ name: tag, headers: {} as Record<string, string> }];
    const calls: { mcp: Call; rest: Call }[] = [];
    for (const tenant of tenants) {
      const client = await httpClient(server.base, tenant.headers);
      clients.push(client);
      calls.push({ mcp: mcpCall(client), rest: await restCall(server.base, tenant.headers) });
    }
    const names = await listed(clients[0]);
    if (!hosted) {
      await everyTool(calls[0].mcp, names, world, `${tag} mcp`);
      await everyTool(calls[0].rest, names, world, `${tag} rest`);
    } else {
      // Every tool once through each transport, each as one tenant: the one holding the admin
      // key over `adminOver`, the other over the other transport.
      const other = adminOver === "mcp" ? "rest" : "mcp";
      assert.deepEqual(await listed(clients[1]), names, "both tenants see the same tools");
      await everyTool(calls[0][adminOver], names, world, `${tenants[0].name} ${adminOver}`, true);
      await everyTool(calls[1][other], names, world, `${tenants[1].name} ${other}`, false);
      await tenantsApart(calls[0].rest, calls[1].mcp, `${tag}: A's memory, B asks`);
      await tenantsApart(calls[1].mcp, calls[0].rest, `${tag}: B's memory, A asks`);
    }
    if (check) await check(server.base);
  } finally {
    for (const client of clients) await client.close().catch(() => {});
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
  assertQuiet(server.stderr());
}

Deno.test({
  name: "deployment matrix: the README's commands serve every profile",
  // The profiles share the fixture web, PostgreSQL and redis-server across steps.
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const world = await startTestWorld({ embed: "static" });
    let pg: ReturnType<typeof startPostgres> | undefined;
    const postgres = () => pg ??= startPostgres();
    const profiles: { name: string; ignore?: boolean; fn: () => Promise<void> }[] = [];
    try {
      profiles.push({
        name: "stdio, single user: deno task mcp",
        fn: async () => {
          const { env, dir } = await profileEnv(world, {});
          const transport = new StdioClientTransport({
            command: Deno.execPath(),
            args: ["task", "mcp"],
            cwd: ROOT,
            env,
            stderr: "pipe",
          });
          let seen = "";
          transport.stderr?.on(
            "data",
            (chunk: Uint8Array) => seen += new TextDecoder().decode(chunk),
          );
          const client = new Client({ name: "gleaner-matrix", version: "1.0.0" });
          try {
            await client.connect(transport as Transport);
            await everyTool(mcpCall(client), await listed(client), world, "stdio");
          } finally {
            await client.close();
            await Deno.remove(dir, { recursive: true });
          }
          assertQuiet(seen);
        },
      });

      profiles.push({
        name: "HTTP, single user: deno task start",
        fn: () => httpProfile(world, "http", {}, false),
      });

      profiles.push({
        name: "hosted on SQLite: deno task start",
        fn: () => httpProfile(world, "sqlite", {}, true),
      });

      profiles.push({
        name: `hosted on PostgreSQL without Valkey: deno task start${postgresSuffix}`,
        ignore: ignorePostgres,
        fn: async () =>
          httpProfile(
            world,
            "pg",
            {
              GLEANER_MEMORY_BACKEND: "postgres",
              // No password in the URL: the driver reads PGPASSWORD, which the launcher grants.
              GLEANER_MEMORY_POSTGRES_URL: (await postgres()).url,
            },
            true,
            undefined,
            "rest",
          ),
      });

      profiles.push({
        name:
          `hosted on PostgreSQL with Valkey: deno task start${postgresSuffix}${redisRequirement.suffix}`,
        ignore: ignorePostgres || redisRequirement.ignore,
        fn: async () => {
          redisRequirement.assertPresent();
          const redis = await startRedis();
          try {
            await httpProfile(world, "pg-valkey", {
              GLEANER_MEMORY_BACKEND: "postgres",
              GLEANER_MEMORY_POSTGRES_URL: (await postgres()).url,
              GLEANER_STORE_CACHE_URL: redis.url,
            }, true);
          } finally {
            await redis.stop();
          }
        },
      });

      profiles.push({
        name: `events and telemetry on: deno task start${natsRequirement.suffix}`,
        ignore: natsRequirement.ignore,
        fn: async () => {
          natsRequirement.assertPresent();
          const nats = await startNats();
          await using collector = startOtlpCollector();
          const events = await subscribe(nats, "gleaner.>");
          try {
            await httpProfile(
              world,
              "events",
              {
                GLEANER_EVENTS_NATS_URL: `nats://127.0.0.1:${nats.port}`,
                GLEANER_EVENTS_NATS_USER: nats.user,
                GLEANER_EVENTS_NATS_PASSWORD: nats.password,
                OTEL_EXPORTER_OTLP_ENDPOINT: collector.origin,
                OTEL_BSP_SCHEDULE_DELAY: "200",
                OTEL_METRIC_EXPORT_INTERVAL: "500",
              },
              false,
              async () => {
                await collector.waitFor("traces", "gleaner.tool.search");
                await collector.waitFor("metrics", "gleaner.tool.duration");
                const tools = new Set<string>();
                while (!tools.has("save_memories") || !tools.has("search")) {
                  const message = await events.next(20_000);
                  if (message.subject === "gleaner.tool") {
                    tools.add(JSON.parse(message.payload).tool);
                  }
                }
              },
            );
          } finally {
            events.close();
            await nats.stop();
          }
        },
      });

      profiles.push({
        name:
          `outbound integrations (forward proxy, kiwix-serve): deno task start${forwardProxy.suffix}${kiwixRequirement.suffix}`,
        ignore: forwardProxy.ignore || kiwixRequirement.ignore,
        fn: async () => {
          forwardProxy.assertPresent();
          const proxy = await startForwardProxy();
          const kiwix = await startKiwix("matrix_test_en", {
            Tide: "<!DOCTYPE html><html><head><title>Tide</title></head><body><h1>Tide</h1>" +
              "<p>Tides are the rise and fall of sea levels, offline matrix edition.</p></body></html>",
          });
          const rules = await Deno.makeTempFile({ suffix: ".json" });
          try {
            // The live site is never asked: every other tier is off for it.
            await Deno.writeTextFile(
              rules,
              JSON.stringify({
                rules: [{
                  match: "wikipedia.org",
                  tiers: {
                    github: false,
                    llms_txt: false,
                    http: false,
                    browser: false,
                    wayback: false,
                  },
                }],
              }),
            );
            await httpProfile(
              world,
              "integrations",
              {
                // As README's example: the standard variable, read by deno task start.
                HTTP_PROXY: proxy.url,
                GLEANER_READ_KIWIX_URL: kiwix.origin,
                GLEANER_READ_KIWIX_BOOKS: JSON.stringify({ "en.wikipedia.org": kiwix.book }),
                GLEANER_READ_TIER_RULES_PATH: rules,
              },
              false,
              async (base) => {
                const rest = await restCall(base, {});
                const wiki = "https://en.wikipedia.org/wiki/Tide";
                const out = valid(
                  "scrape_urls",
                  await rest("scrape_urls", { items: [{ url: wiki }] }),
                  "kiwix",
                ) as { items: { tier?: string }[] };
                assert.equal(out.items[0].tier, "kiwix", JSON.stringify(out));
                // The fixture web's pages went through the proxy.
                const requests = await proxy.requests();
                assert.ok(
                  requests.some((line) => line.includes(world.web.url("/pages/mozilla-1"))),
                  `through the proxy: ${requests.join("\n")}`,
                );
              },
            );
          } finally {
            await Deno.remove(rules);
            await kiwix.close();
            await proxy.close();
          }
        },
      });
      // Side by side: two at least (a profile spends much of its time waiting on its server,
      // 2m17s one by one against 1m38s three at a time on two busy cores), more with more cores.
      const width = Math.max(2, Math.floor(navigator.hardwareConcurrency / 2));
      const queue = [...profiles];
      const lane = async () => {
        for (let profile = queue.shift(); profile; profile = queue.shift()) {
          await t.step({
            ...profile,
            sanitizeOps: false,
            sanitizeResources: false,
            sanitizeExit: false,
          });
        }
      };
      await Promise.all(Array.from({ length: width }, lane));
    } finally {
      await pg?.then((server) => server.close(), () => {});
      await world.close();
    }
  },
});
