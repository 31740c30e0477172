/**
 * Honest HTTP surfaces over real HTTP on loopback: JSON-only REST bodies,
 * a 4 MiB body limit that stops reading, an Origin check that compares the
 * port, a Bearer challenge, the bind guard, and `/config` masking URL
 * credentials.
 */
import { withServer } from "../testing/http_server.ts";
import assert from "node:assert/strict";
import { request } from "node:http";
import { createGleaner } from "../mod.ts";
import { createApp } from "../http/app.ts";
import { serveHttp } from "../http/serve.ts";
import type { GleanerError } from "../lib/errors.ts";
import { startTestWorld } from "../testing/fixtures/world.ts";

const LIMIT = 4 * 1024 * 1024;

/** A raw request through node:http, so Host and Origin can be set freely. */
function raw(
  base: string,
  options: { method?: string; path: string; headers: Record<string, string>; body?: string },
) {
  const url = new URL(base);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request({
        host: url.hostname,
        port: Number(url.port),
        method: options.method ?? "GET",
        path: options.path,
        headers: options.headers,
      }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => body += chunk);
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on("error", reject);
      req.end(options.body);
    },
  );
}

Deno.test("REST: a body must be application/json (no text/plain or form CSRF path)", async () => {
  await withServer({}, async (base) => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", undefined]) {
      const response = await fetch(`${base}/v1/cache/clear`, {
        method: "POST",
        headers: type ? { "content-type": type } : {},
        body: type ? '{"target":"all"}' : undefined,
      });
      assert.equal(response.status, 415, String(type));
      const body = await response.json();
      assert.equal(body.error.code, "unsupported_content");
      assert.match(body.error.message, /Content-Type: application\/json/);
    }
    const ok = await fetch(`${base}/v1/datetime`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    assert.equal(ok.status, 200, "an empty JSON body is {}");
    assert.match((await ok.json()).iso, /^\d{4}-/);
  });
});

Deno.test("REST: a body over 4 MiB is 413 too_large", async () => {
  await withServer({}, async (base) => {
    const big = JSON.stringify({ items: [{ query: "x".repeat(LIMIT) }] });
    const declared = await raw(base, {
      method: "POST",
      path: "/v1/search",
      headers: {
        host: new URL(base).host,
        "content-type": "application/json",
        "content-length": String(big.length),
      },
      body: big,
    });
    assert.equal(declared.status, 413);
    assert.equal(JSON.parse(declared.body).error.code, "too_large");
  });
});

Deno.test("REST: a streamed body is counted as it arrives and not read past the limit", async () => {
  const world = await startTestWorld();
  const gleaner = await createGleaner(world.config);
  try {
    const app = createApp(gleaner);
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.length;
        controller.enqueue(chunk);
        if (pulled >= 300 * 1024 * 1024) controller.close();
      },
    });
    const response = await app.request("http://localhost/v1/search", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    assert.equal(response.status, 413);
    assert.equal((await response.json()).error.code, "too_large");
    assert.ok(pulled <= LIMIT + 2 * chunk.length, `read ${pulled} bytes of a 300 MB body`);
  } finally {
    await gleaner.close();
    await world.close();
  }
});

Deno.test("REST: Origin must be the server's own origin, port included", async () => {
  await withServer({}, async (base) => {
    const { host, port } = new URL(base);
    const status = async (headers: Record<string, string>) =>
      (await raw(base, { path: "/health", headers })).status;
    assert.equal(await status({ host, origin: `http://${host}` }), 200, "same origin");
    assert.equal(
      await status({ host: `localhost:${port}`, origin: `http://localhost:${port}` }),
      200,
    );
    assert.equal(
      await status({ host, origin: `http://127.0.0.1:${Number(port) + 1}` }),
      403,
      "another port on the same host is another origin",
    );
    assert.equal(await status({ host, origin: "http://localhost" }), 403);
    assert.equal(await status({ host, origin: "null" }), 403);
  });
  await withServer(
    { allowed_hosts: ["http://app.localhost:3000"] },
    async (base) => {
      const { host } = new URL(base);
      const status = async (origin: string) =>
        (await raw(base, { path: "/health", headers: { host, origin } })).status;
      assert.equal(await status("http://app.localhost:3000"), 200, "a configured origin");
      assert.equal(await status("http://app.localhost:3001"), 403);
    },
  );
});

Deno.test("REST: 401 carries WWW-Authenticate: Bearer; the scheme is case-insensitive", async () => {
  await withServer({ api_key: "k-test" }, async (base) => {
    const denied = await fetch(`${base}/config`);
    assert.equal(denied.status, 401);
    assert.match(denied.headers.get("www-authenticate") ?? "", /^Bearer\b/);
    await denied.body?.cancel();
    const wrong = await fetch(`${base}/config`, { headers: { authorization: "Bearer nope" } });
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get("www-authenticate") ?? "", /^Bearer\b.*invalid_token/);
    await wrong.body?.cancel();
    for (const scheme of ["Bearer", "bearer", "BEARER"]) {
      const ok = await fetch(`${base}/config`, { headers: { authorization: `${scheme} k-test` } });
      assert.equal(ok.status, 200, scheme);
      await ok.body?.cancel();
    }
  });
});

Deno.test("serve: refuses a non-loopback bind without server.api_key", async () => {
  const gleaner = await createGleaner({
    store: { path: ":memory:" },
    server: { host: "203.0.113.1" },
  });
  try {
    assert.throws(
      () => serveHttp(gleaner),
      (e: GleanerError) =>
        e.code === "invalid_arguments" && /server\.api_key/.test(e.message) &&
        /--insecure/.test(e.message),
    );
  } finally {
    await gleaner.close();
  }
});

Deno.test("/config masks credentials and query values in every URL", async () => {
  await withServer({ api_key: "k-test" }, async (base) => {
    const response = await fetch(`${base}/config`, {
      headers: { authorization: "Bearer k-test" },
    });
    const text = await response.text();
    for (const secret of ["searx-pw", "searx-user", "q-token", "embed-pw", "cdp-pw", "cdp-tok"]) {
      assert.ok(!text.includes(secret), `${secret} is not shown`);
    }
    const config = JSON.parse(text);
    assert.equal(
      config.search.searxng_url,
      "https://[redacted]@searx.example/search?key=[redacted]",
    );
    assert.equal(config.embed.api_url, "https://[redacted]@embed.example/v1");
    assert.match(config.read.browser_cdp_url, /^ws:\/\/\[redacted\]@127\.0\.0\.1:9222\//);
  }, {
    search: { searxng_url: "https://searx-user:searx-pw@searx.example/search?key=q-token" },
    embed: { provider: "none", api_url: "https://user:embed-pw@embed.example/v1" },
    read: {
      render: "never",
      browser_cdp_url: "ws://user:cdp-pw@127.0.0.1:9222/devtools/browser/x?token=cdp-tok",
    },
  });
});

Deno.test("serve: a key or hosted mode's proxy token counts as authentication for the bind guard", async () => {
  const { requiresAuthentication } = await import("../http/serve.ts");
  const { parseConfig } = await import("../lib/config/config.ts");
  assert.equal(requiresAuthentication(parseConfig({})), false);
  assert.equal(requiresAuthentication(parseConfig({ server: { api_key: "k" } })), true);
  assert.equal(
    requiresAuthentication(parseConfig({
      memory: {
        hosted: true,
        hosted_proxy_token: "p".repeat(40),
        hosted_hmac_secret: "h".repeat(40),
      },
    })),
    true,
  );
});
