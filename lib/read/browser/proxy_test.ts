/**
 * The egress proxy alone, spoken to with raw `node:net` sockets as Chromium
 * would (absolute-form GET, CONNECT): this is the check that holds even when
 * request interception is bypassed. Only loopback servers, names from
 * /etc/hosts and a simulated resolver are used; nothing leaves the machine.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { parseConfig } from "../../config/config.ts";
import type { ResolvedAddress, Resolver } from "../../net/fetch.ts";
import { REFUSAL_HEADER, startEgressProxy } from "./proxy.ts";

/** A loopback server that records every request it receives. */
function serve(hostname: string) {
  const hits: { method: string; path: string; headers: Headers; body: string }[] = [];
  const server = Deno.serve({ hostname, port: 0, onListen: () => {} }, async (request) => {
    const url = new URL(request.url);
    hits.push({
      method: request.method,
      path: url.pathname + url.search,
      headers: request.headers,
      body: await request.text(),
    });
    return new Response(`hello from ${hostname}`, {
      headers: { "content-type": "text/plain", [REFUSAL_HEADER]: "forged", "x-kept": "yes" },
    });
  });
  return { server, port: server.addr.port, origin: `http://${hostname}:${server.addr.port}`, hits };
}

/** A resolver answering from a table, recording the names it was asked. */
function tableResolver(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver = (name: string): Promise<ResolvedAddress[]> => {
    asked.push(name);
    const answers = table[name];
    if (!answers) {
      return Promise.reject(Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" }));
    }
    return Promise.resolve(
      answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
    );
  };
  return Object.assign(resolver, { asked });
}

interface RawResponse {
  status: number;
  head: string;
  body: string;
}

/**
 * Sends raw bytes to the proxy and reads one response: the socket is closed once `quietMs` pass
 * without data after the answer began (or when the proxy closes it); an answer that has not begun
 * is waited for up to `firstByteMs`, so a loaded machine slows the test instead of failing it.
 */
function send(
  port: number,
  text: string,
  quietMs = 300,
  firstByteMs = 10_000,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(text));
    let out = "";
    let timer = setTimeout(() => socket.end(), firstByteMs);
    socket.on("data", (d: Uint8Array) => {
      out += new TextDecoder().decode(d);
      clearTimeout(timer);
      timer = setTimeout(() => socket.end(), quietMs);
    });
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      const at = out.indexOf("\r\n\r\n");
      const head = at >= 0 ? out.slice(0, at) : out;
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        head,
        body: at >= 0 ? out.slice(at + 4) : "",
      });
    });
  });
}

function header(head: string, name: string): string | undefined {
  const line = head.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name}:`));
  return line?.slice(name.length + 1).trim();
}

Deno.test("egress proxy forwards plain HTTP and tunnels CONNECT to allowed targets", async () => {
  const fixture = serve("127.0.0.1");
  const proxy = await startEgressProxy(
    parseConfig({ network: { allow_private: [fixture.origin] } }).network,
  );
  try {
    const get = await send(
      proxy.port,
      `GET ${fixture.origin}/page?q=1 HTTP/1.1\r\nHost: 127.0.0.1:${fixture.port}\r\n` +
        `Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic c2VjcmV0\r\nX-Custom: kept\r\n\r\n`,
    );
    assert.equal(get.status, 200);
    assert.equal(get.body, "hello from 127.0.0.1");
    assert.equal(header(get.head, REFUSAL_HEADER), undefined, "upstream cannot forge a refusal");
    assert.equal(header(get.head, "x-kept"), "yes");
    const seen = fixture.hits.at(-1)!;
    assert.equal(seen.path, "/page?q=1");
    assert.equal(seen.headers.get("x-custom"), "kept");
    assert.equal(seen.headers.get("proxy-connection"), null, "hop-by-hop headers are dropped");
    assert.equal(seen.headers.get("proxy-authorization"), null);

    const post = await send(
      proxy.port,
      `POST ${fixture.origin}/form HTTP/1.1\r\nHost: 127.0.0.1:${fixture.port}\r\n` +
        `Content-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello`,
    );
    assert.equal(post.status, 200);
    assert.deepEqual([fixture.hits.at(-1)!.method, fixture.hits.at(-1)!.body], ["POST", "hello"]);

    const tunnel = await send(
      proxy.port,
      `CONNECT 127.0.0.1:${fixture.port} HTTP/1.1\r\nHost: 127.0.0.1:${fixture.port}\r\n\r\n` +
        `GET /through-tunnel HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    );
    assert.equal(tunnel.status, 200);
    assert.match(tunnel.body, /^HTTP\/1\.1 200 OK[\s\S]*hello from 127\.0\.0\.1$/);
    assert.equal(fixture.hits.at(-1)!.path, "/through-tunnel");
    assert.deepEqual(
      { requests: proxy.stats().requests, tunnels: proxy.stats().tunnels },
      { requests: 2, tunnels: 1 },
    );
  } finally {
    await proxy.close();
    await fixture.server.shutdown();
  }
});

Deno.test("egress proxy refuses private targets on its own (interception bypassed)", async () => {
  const fixture = serve("127.0.0.1");
  const forbidden = serve("127.0.0.2");
  const proxy = await startEgressProxy(
    parseConfig({
      network: {
        // Only the fixture origin may be private; the forbidden port is allowed so that only
        // the address check can stop it.
        allow_private: [fixture.origin],
        allowed_ports: [80, 443, forbidden.port],
      },
    }).network,
  );
  try {
    const literal = await send(
      proxy.port,
      `GET ${forbidden.origin}/secret HTTP/1.1\r\nHost: 127.0.0.2:${forbidden.port}\r\n\r\n`,
    );
    assert.equal(literal.status, 403);
    assert.ok(proxy.isRefusal({ [REFUSAL_HEADER]: header(literal.head, REFUSAL_HEADER)! }));
    assert.match(literal.body, /127\.0\.0\.2.*private or reserved address/);
    assert.equal(proxy.refusalFor("127.0.0.2", forbidden.port)?.code, "blocked_url");

    const tunnel = await send(proxy.port, `CONNECT 127.0.0.2:${forbidden.port} HTTP/1.1\r\n\r\n`);
    assert.equal(tunnel.status, 403);

    // A name from /etc/hosts: refused as a local name, and over CONNECT too.
    const named = await send(
      proxy.port,
      `GET http://localhost:${forbidden.port}/secret HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    );
    assert.equal(named.status, 403);
    const namedTunnel = await send(proxy.port, "CONNECT localhost:443 HTTP/1.1\r\n\r\n");
    assert.equal(namedTunnel.status, 403);
    assert.match(namedTunnel.body, /local host name/);

    // The fixture's own port on another loopback address is another origin.
    const otherAddress = await send(
      proxy.port,
      `CONNECT 127.0.0.2:${fixture.port} HTTP/1.1\r\n\r\n`,
    );
    assert.equal(otherAddress.status, 403);
    assert.deepEqual(forbidden.hits, [], "nothing reached 127.0.0.2");
    assert.equal(proxy.stats().refused, 5);
  } finally {
    await proxy.close();
    await fixture.server.shutdown();
    await forbidden.server.shutdown();
  }
});

Deno.test("egress proxy refuses CONNECT to a port that is not allowed", async () => {
  const fixture = serve("127.0.0.1");
  const proxy = await startEgressProxy(
    parseConfig({ network: { allow_private: true, allowed_ports: [80, 443] } }).network,
  );
  try {
    const refused = await send(proxy.port, `CONNECT 127.0.0.1:${fixture.port} HTTP/1.1\r\n\r\n`);
    assert.equal(refused.status, 403);
    assert.match(refused.body, new RegExp(`port ${fixture.port} is not allowed`));
    const ssh = await send(proxy.port, "CONNECT 127.0.0.1:22 HTTP/1.1\r\n\r\n");
    assert.equal(ssh.status, 403);
    const malformed = await send(proxy.port, "CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n");
    assert.equal(malformed.status, 400, "CONNECT needs host:port");
    const originForm = await send(proxy.port, "GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assert.equal(originForm.status, 400, "the proxy is not a web server");
    assert.deepEqual(fixture.hits, []);
  } finally {
    await proxy.close();
    await fixture.server.shutdown();
  }
});

Deno.test("egress proxy resolves names itself and checks the answer it connects with", async () => {
  const fixture = serve("127.0.0.1");
  const forbidden = serve("127.0.0.2");
  const resolver = tableResolver({
    "fixture.test": ["127.0.0.1"],
    // What a rebinding name answers at connect time, after a public answer to an earlier check.
    "rebind.test": ["127.0.0.2"],
    // One private address among public ones refuses the whole name (no connection is tried).
    "mixed.test": ["93.184.216.34", "127.0.0.2"],
  });
  const proxy = await startEgressProxy(
    parseConfig({
      network: {
        allow_private: [`http://fixture.test:${fixture.port}`],
        allowed_ports: [80, 443, fixture.port, forbidden.port],
      },
    }).network,
    { resolver },
  );
  try {
    const ok = await send(
      proxy.port,
      `GET http://fixture.test:${fixture.port}/named HTTP/1.1\r\nHost: fixture.test\r\n\r\n`,
    );
    assert.equal(ok.status, 200);
    assert.equal(fixture.hits.at(-1)?.headers.get("host"), `fixture.test:${fixture.port}`);

    for (const name of ["rebind.test", "mixed.test"]) {
      const get = await send(
        proxy.port,
        `GET http://${name}:${forbidden.port}/secret HTTP/1.1\r\nHost: ${name}\r\n\r\n`,
      );
      assert.equal(get.status, 403, name);
      assert.match(get.body, /resolves to a private or reserved address/);
      const tunnel = await send(proxy.port, `CONNECT ${name}:${forbidden.port} HTTP/1.1\r\n\r\n`);
      assert.equal(tunnel.status, 403, name);
    }
    const unknown = await send(proxy.port, "CONNECT nowhere.test:443 HTTP/1.1\r\n\r\n");
    assert.equal(unknown.status, 502, "a name that does not resolve is a failure, not a refusal");
    assert.equal(proxy.refusalFor("nowhere.test", 443), undefined);
    assert.deepEqual(forbidden.hits, [], "nothing reached 127.0.0.2");
    assert.deepEqual(resolver.asked, [
      "fixture.test",
      "rebind.test",
      "rebind.test",
      "mixed.test",
      "mixed.test",
      "nowhere.test",
    ]);
  } finally {
    await proxy.close();
    await fixture.server.shutdown();
    await forbidden.server.shutdown();
  }
});

Deno.test("egress proxy with approvedOnly refuses unapproved targets before any DNS", async () => {
  const fixture = serve("127.0.0.1");
  const resolver = tableResolver({ "fixture.test": ["127.0.0.1"] });
  const proxy = await startEgressProxy(
    parseConfig({
      network: { allow_private: [`http://fixture.test:${fixture.port}`] },
    }).network,
    { resolver, approvedOnly: true },
  );
  const get = () =>
    send(
      proxy.port,
      `GET http://fixture.test:${fixture.port}/ HTTP/1.1\r\nHost: fixture.test\r\n\r\n`,
    );
  try {
    const before = await get();
    assert.equal(before.status, 403);
    assert.match(before.body, /no page request to it was allowed/);
    const tunnel = await send(proxy.port, "CONNECT update.example:443 HTTP/1.1\r\n\r\n");
    assert.equal(tunnel.status, 403);
    assert.deepEqual(resolver.asked, [], "refused before resolving");

    proxy.approve("fixture.test", fixture.port, 60_000);
    assert.equal((await get()).status, 200);
    assert.equal(fixture.hits.length, 1);

    proxy.approve("fixture.test", fixture.port, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await get()).status, 403, "approvals expire");
    assert.equal(fixture.hits.length, 1);
  } finally {
    await proxy.close();
    await fixture.server.shutdown();
  }
});

Deno.test("egress proxy close() ends open tunnels", async () => {
  const fixture = serve("127.0.0.1");
  const proxy = await startEgressProxy(
    parseConfig({ network: { allow_private: [fixture.origin] } }).network,
  );
  const socket = net.connect(proxy.port, "127.0.0.1");
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("error", () => {});
  socket.write(`CONNECT 127.0.0.1:${fixture.port} HTTP/1.1\r\n\r\n`);
  await new Promise<void>((resolve) => socket.once("data", () => resolve()));
  assert.ok(proxy.stats().open >= 2, "client and upstream sockets are open");
  await proxy.close();
  await closed;
  assert.equal(proxy.stats().open, 0);
  await fixture.server.shutdown();
});
