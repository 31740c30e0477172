/**
 * Operational events on a real nats-server: tool calls over REST and MCP,
 * a tier put off by an operator rule, credentials, a bounded queue and
 * reconnection.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createGleaner, type Gleaner } from "../lib/gleaner.ts";
import { serveHttp } from "../http/serve.ts";
import { NatsPublisher } from "../lib/telemetry/nats.ts";
import { memoryPolicy } from "../lib/read/outcomes.ts";
import { makeUserNkey, natsRequirement, startNats, subscribe } from "../testing/fixtures/nats.ts";
import { makeCertificates } from "../testing/fixtures/tls.ts";
import { serveLoopback } from "../testing/fixtures/serve.ts";
import { startTestWorld } from "../testing/fixtures/world.ts";

const nats = natsRequirement;

const PAGE = `<!doctype html><html><head><title>Lanterns</title></head><body><main>
<h1>Lanterns</h1><p>${"A paper lantern holds a candle behind thin paper. ".repeat(30)}</p>
</main></body></html>`;

async function withGleaner(
  events: Record<string, unknown>,
  fn: (base: string, gleaner: Gleaner) => Promise<void>,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const gleaner = await createGleaner({
    server: { port: 0 },
    store: { path: ":memory:" },
    memory: { enabled: false },
    embed: { provider: "none" },
    events,
    ...extra,
  });
  const server = serveHttp(gleaner);
  try {
    await fn(server.url, gleaner);
  } finally {
    await server.shutdown();
    await gleaner.close();
  }
}

/** Calls `current_datetime` over REST and expects 200 (each call is one `tool` event). */
async function callDatetime(base: string): Promise<void> {
  const response = await fetch(`${base}/v1/tools/current_datetime`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(response.status, 200);
  await response.body?.cancel();
}

Deno.test({
  name: `events: tool calls (REST and MCP) and a skipped tier reach nats-server${nats.suffix}`,
  ignore: nats.ignore,
  async fn() {
    nats.assertPresent();
    const server = await startNats();
    // One-token subjects: `tool`, `tier_skip` (the specification's kinds have their own test).
    const sub = await subscribe(server, "ops.gleaner.*");
    const site = serveLoopback(() =>
      new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } })
    );
    const rules = await Deno.makeTempFile({ suffix: ".json" });
    await Deno.writeTextFile(
      rules,
      JSON.stringify({ rules: [{ match: "127.0.0.1", tiers: { llms_txt: false } }] }),
    );
    try {
      await withGleaner({
        nats_url: `nats://127.0.0.1:${server.port}`,
        nats_user: server.user,
        nats_password: server.password,
        subject_prefix: "ops.gleaner",
      }, async (base, gleaner) => {
        // REST, with the caller's request id.
        const ok = await fetch(`${base}/v1/tools/scrape_urls`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-request-id": "req-lantern-1" },
          body: JSON.stringify({ items: [{ url: `${site.origin}/lanterns`, query: "candle" }] }),
        });
        assert.equal(ok.status, 200);
        await ok.body?.cancel();
        const received = [await sub.next(), await sub.next()];
        const skip = received.find((m) => m.subject === "ops.gleaner.tier_skip");
        const tool = received.find((m) => m.subject === "ops.gleaner.tool");
        assert.ok(skip && tool, JSON.stringify(received));
        assert.deepEqual(
          (({ tier, reason, host }) => ({ tier, reason, host }))(JSON.parse(skip.payload)),
          { tier: "llms_txt", reason: "tier_rule", host: "127.0.0.1" },
        );
        // The skip names the call that caused it, as the call's own event does.
        assert.equal(JSON.parse(skip.payload).request_id, "req-lantern-1");
        const event = JSON.parse(tool.payload);
        assert.equal(event.type, "tool");
        assert.equal(event.tool, "scrape_urls");
        assert.equal(event.status, "ok");
        assert.equal(event.request_id, "req-lantern-1");
        assert.equal(typeof event.duration_ms, "number");
        // No query text, no page text unless a setting says so.
        assert.ok(!tool.payload.includes("candle"), tool.payload);
        assert.ok(!tool.payload.includes("lantern holds"), tool.payload);

        // Domain memory puts http on probation for the site: the cascade says so.
        const policy = memoryPolicy(gleaner.config);
        for (let i = 0; i < 3; i++) {
          await gleaner.store.domains.record(site.origin, "http", false, "timeout", { policy });
        }
        const again = await fetch(`${base}/v1/tools/scrape_urls`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ items: [{ url: `${site.origin}/more-lanterns` }] }),
        });
        assert.equal(again.status, 200);
        await again.body?.cancel();
        const three = [await sub.next(), await sub.next(), await sub.next()];
        const skipEvents = three.filter((m) => m.subject === "ops.gleaner.tier_skip")
          .map((m) => JSON.parse(m.payload));
        const callId = JSON.parse(three.find((m) => m.subject === "ops.gleaner.tool")!.payload)
          .request_id;
        assert.deepEqual(skipEvents.map((e) => e.request_id), [callId, callId]);
        const skips = skipEvents.map(({ tier, reason, host }) => ({ tier, reason, host }));
        assert.deepEqual(skips, [
          { tier: "llms_txt", reason: "tier_rule", host: "127.0.0.1" },
          { tier: "http", reason: "probation", host: "127.0.0.1" },
        ]);
        assert.equal(three.filter((m) => m.subject === "ops.gleaner.tool").length, 1);

        // A refused call is an event too, with its code.
        const bad = await fetch(`${base}/v1/tools/scrape_urls`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ items: [] }),
        });
        assert.equal(bad.status, 400);
        await bad.body?.cancel();
        const refused = JSON.parse((await sub.next()).payload);
        assert.equal(refused.status, "invalid_arguments");
        assert.match(refused.request_id, /^[0-9a-f-]{36}$/);

        // MCP over Streamable HTTP, through the SDK client.
        const client = new Client({ name: "events-test", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
        try {
          await client.callTool({ name: "current_datetime", arguments: {} });
        } finally {
          await client.close();
        }
        const mcp = JSON.parse((await sub.next()).payload);
        assert.equal(mcp.tool, "current_datetime");
        assert.equal(mcp.status, "ok");
      }, { network: { allow_private: [site.origin] }, read: { tier_rules_path: rules } });
    } finally {
      sub.close();
      await site.close();
      await server.stop();
      await Deno.remove(rules);
    }
  },
});

Deno.test({
  name:
    `events: query text only with events.include_query; wrong credentials never block a call${nats.suffix}`,
  ignore: nats.ignore,
  async fn() {
    nats.assertPresent();
    const server = await startNats();
    const sub = await subscribe(server, "gleaner.tool");
    try {
      await withGleaner({
        nats_url: `nats://${server.user}:${server.password}@127.0.0.1:${server.port}`,
        include_query: true,
      }, async (base) => {
        const response = await fetch(`${base}/v1/tools/scrape_urls`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            items: [{ url: "http://127.0.0.1:1/x", query: "paper lanterns" }],
          }),
        });
        assert.equal(response.status, 200);
        await response.body?.cancel();
        const event = JSON.parse((await sub.next()).payload);
        assert.deepEqual(event.query, ["paper lanterns"]);
      });
      // A wrong password: the server refuses the connection, calls still answer, nothing arrives.
      await withGleaner({
        nats_url: `nats://127.0.0.1:${server.port}`,
        nats_user: server.user,
        nats_password: "wrong-password",
      }, async (base, gleaner) => {
        await callDatetime(base);
        const stats = gleaner.events!.stats();
        assert.equal(stats.connected, false);
        assert.equal(stats.sent, 0);
        // The printed configuration never shows the password.
        const shown = await (await fetch(`${base}/config`)).text();
        assert.ok(!shown.includes("wrong-password"), shown);
      });
      await assert.rejects(sub.next(300), /no message/);
    } finally {
      sub.close();
      await server.stop();
    }
  },
});

Deno.test({
  name:
    `events: a full queue drops and counts; messages queued while away are sent on reconnect${nats.suffix}`,
  ignore: nats.ignore,
  async fn() {
    nats.assertPresent();
    const first = await startNats();
    const publisher = new NatsPublisher({
      url: `nats://127.0.0.1:${first.port}`,
      user: first.user,
      password: first.password,
      queueMax: 3,
      maxBackoffMs: 200,
    });
    let server = first;
    try {
      const sub = await subscribe(server, "t.>");
      assert.ok(publisher.publish("t.one", "1"));
      assert.equal((await sub.next()).payload, "1");
      sub.close();
      await server.stop();
      while (publisher.stats().connected) await new Promise((r) => setTimeout(r, 10));
      // Away: three wait, the rest are dropped and counted; publish never waits.
      for (let i = 0; i < 5; i++) publisher.publish("t.queued", String(i));
      const away = publisher.stats();
      assert.equal(away.queued, 3);
      assert.equal(away.dropped, 2);
      // The publisher is let in only once the subscriber listens: what it flushes on reconnect
      // would otherwise be lost to a subscriber that connects a moment later.
      server = await startNats({ port: first.port, user: "watcher", password: "watch-pass" });
      const again = await subscribe(server, "t.>");
      await server.admit(first.user, first.password);
      const got = [await again.next(), await again.next(), await again.next()].map((m) =>
        m.payload
      );
      assert.deepEqual(got, ["0", "1", "2"]);
      assert.equal(publisher.stats().sent, 4);
      again.close();
    } finally {
      await publisher.close();
      await server.stop();
    }
  },
});

Deno.test({
  name:
    `events: over TLS to a nats-server that requires it, signed in with a credentials file${nats.suffix}`,
  ignore: nats.ignore,
  async fn() {
    nats.assertPresent();
    const certificates = await makeCertificates("IP:127.0.0.1");
    const nkey = await makeUserNkey();
    const server = await startNats({ tls: certificates, nkey: nkey.publicKey });
    const sub = await subscribe(server, "gleaner.tool");
    const dir = await Deno.makeTempDir({ prefix: "gleaner-nats-creds-" });
    const creds = `${dir}/user.creds`;
    const ca = `${dir}/ca.pem`;
    // The layout of a credentials file (https://docs.nats.io/using-nats/developer/connecting/creds);
    // a server without an operator checks the NKey and its signature of the nonce.
    await Deno.writeTextFile(
      creds,
      "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln\n" +
        "------END NATS USER JWT------\n\n" +
        "************************* IMPORTANT *************************\n" +
        "NKEY Seed printed below can be used to sign and prove identity.\n\n" +
        `-----BEGIN USER NKEY SEED-----\n${nkey.seed}\n------END USER NKEY SEED------\n`,
    );
    await Deno.writeTextFile(ca, certificates.ca);
    try {
      await withGleaner({
        nats_url: `tls://127.0.0.1:${server.port}`,
        nats_credentials_file: creds,
        nats_ca_file: ca,
      }, async (base, gleaner) => {
        await callDatetime(base);
        const event = JSON.parse((await sub.next()).payload);
        assert.equal(event.tool, "current_datetime");
        assert.equal(gleaner.events!.stats().connected, true);
      });
      // Without the CA the server's certificate is not trusted: nothing is sent, calls answer.
      await withGleaner({
        nats_url: `nats://127.0.0.1:${server.port}`,
        nats_tls: true,
        nats_credentials_file: creds,
      }, async (base, gleaner) => {
        await callDatetime(base);
        assert.equal(gleaner.events!.stats().sent, 0);
      });
      await assert.rejects(sub.next(300), /no message/);
    } finally {
      sub.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: `events: the specification's kinds for searches, page reads and the caches${nats.suffix}`,
  ignore: nats.ignore,
  async fn() {
    nats.assertPresent();
    const server = await startNats();
    const sub = await subscribe(server, "spec.gleaner.>");
    const world = await startTestWorld();
    const site = serveLoopback(() =>
      new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } })
    );
    /** Messages up to and with the next `tool` event, as subject → payload. */
    const untilTool = async () => {
      const got: { subject: string; body: Record<string, unknown> }[] = [];
      while (!got.some((m) => m.subject === "tool")) {
        const m = await sub.next();
        got.push({ subject: m.subject.replace("spec.gleaner.", ""), body: JSON.parse(m.payload) });
      }
      return got;
    };
    const post = async (base: string, tool: string, body: unknown) => {
      const response = await fetch(`${base}/v1/tools/${tool}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-request-id": `req-${tool}` },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 200);
      await response.body?.cancel();
    };
    try {
      await withGleaner({
        nats_url: `nats://127.0.0.1:${server.port}`,
        nats_user: server.user,
        nats_password: server.password,
        subject_prefix: "spec.gleaner",
      }, async (base) => {
        await post(base, "scrape_urls", { items: [{ url: `${site.origin}/lanterns` }] });
        const first = await untilTool();
        const kinds = first.map((m) => m.subject);
        for (const kind of ["fetch.requested", "cache.miss", "fetch.completed", "tool"]) {
          assert.ok(kinds.includes(kind), `${kind} in ${kinds}`);
        }
        assert.ok(kinds.indexOf("fetch.requested") < kinds.indexOf("fetch.completed"));
        const done = first.find((m) => m.subject === "fetch.completed")!.body;
        assert.equal(done.tier_served, "http");
        assert.equal(done.host, "127.0.0.1");
        assert.equal(done.request_id, "req-scrape_urls", "joined with the call's tool event");
        assert.equal(typeof done.latency_ms, "number");
        assert.ok((done.text_len as number) > 100);
        // No URL, title or page text unless events.include_query says so.
        const text = JSON.stringify(first);
        assert.ok(!text.includes("/lanterns") && !text.includes("lantern holds"), text);

        await post(base, "scrape_urls", { items: [{ url: `${site.origin}/lanterns` }] });
        const again = await untilTool();
        const hit = again.find((m) => m.subject === "cache.hit");
        assert.equal(hit?.body.namespace, "pages");

        await post(base, "search", { items: [{ query: "paper lanterns", max_results: 3 }] });
        const searched = await untilTool();
        const searchKinds = searched.map((m) => m.subject);
        for (const kind of ["search.requested", "cache.miss", "search.completed"]) {
          assert.ok(searchKinds.includes(kind), `${kind} in ${searchKinds}`);
        }
        const completed = searched.find((m) => m.subject === "search.completed")!.body;
        assert.equal(typeof completed.result_count, "number");
        assert.equal(completed.rerank_applied, false);
        assert.ok(!JSON.stringify(searched).includes("paper lanterns"), "no query text");

        await post(base, "scrape_urls", { items: [{ url: "http://127.0.0.1:1/closed" }] });
        const failed = await untilTool();
        const error = failed.find((m) => m.subject === "error");
        assert.equal(error?.body.stage, "fetch");
        assert.equal(error?.body.error_type, "blocked_url");
      }, { ...world.config, network: { allow_private: [site.origin, ...allowed(world.config)] } });
    } finally {
      sub.close();
      await site.close();
      await world.close();
      await server.stop();
    }
  },
});

/** The private origins a test world's settings already allow. */
function allowed(config: Record<string, unknown>): string[] {
  const network = config.network as { allow_private?: string[] } | undefined;
  return network?.allow_private ?? [];
}
