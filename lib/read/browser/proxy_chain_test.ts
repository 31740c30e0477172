/**
 * The browser tier's egress proxy chained to an upstream forward proxy (a
 * real tinyproxy on loopback, `network.proxy_url`): spoken to with raw
 * sockets as Chromium would, and with Chromium itself when it is installed.
 * Without tinyproxy/openssl the tests are ignored, or fail when
 * GLEANER_REQUIRE_PROXY=1 (see lib/net/proxy_test.ts).
 */
import assert from "node:assert/strict";
import net from "node:net";
import { type ConfigInput, parseConfig } from "../../config/config.ts";
import { startEgressProxy } from "./proxy.ts";
import { openBrowser } from "./launch.ts";
import {
  type ForwardProxy,
  forwardProxy,
  type Origin,
  startForwardProxy,
  startOrigin,
} from "../../../testing/fixtures/forward_proxy.ts";
import { browserSuffix, ignoreBrowser } from "../../../testing/fixtures/browser.ts";

const ignore = forwardProxy.ignore;

const PAGE = "<!doctype html><title>chained</title><p id=p>Through both proxies.</p>";

async function withSetup(
  fn: (upstream: ForwardProxy, origin: Origin) => Promise<void>,
  options?: Parameters<typeof startForwardProxy>[0],
): Promise<void> {
  const upstream = await startForwardProxy(options);
  const origin = await startOrigin((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
  });
  try {
    await fn(upstream, origin);
  } finally {
    await origin.close();
    await upstream.close();
  }
}

function policy(upstream: ForwardProxy, origin: Origin, extra: ConfigInput["network"] = {}) {
  return parseConfig({
    network: {
      allow_private: [origin.origin],
      allowed_ports: [80, 443, origin.port],
      proxy_url: upstream.url,
      ...extra,
    },
  }).network;
}

/** Sends raw bytes to a proxy and collects what comes back until the peer closes or `waitMs`. */
function exchange(port: number, ...parts: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let out = "";
    let sent = 0;
    let timer = setTimeout(() => socket.end(), 5_000);
    const next = () => {
      if (sent < parts.length) socket.write(parts[sent++]);
    };
    socket.on("connect", next);
    socket.on("data", (d: Uint8Array) => {
      out += new TextDecoder().decode(d);
      // The second part (a request inside the tunnel) goes once the tunnel is open.
      if (sent === 1 && out.includes("\r\n\r\n")) next();
      // Everything sent and an answer arriving: close once it has been quiet for a moment.
      if (sent === parts.length) {
        clearTimeout(timer);
        timer = setTimeout(() => socket.end(), 300);
      }
    });
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

Deno.test({
  name: "egress proxy chains to the upstream proxy: absolute form for http, CONNECT for tunnels",
  ignore,
  fn: () =>
    withSetup(async (upstream, origin) => {
      const egress = await startEgressProxy(policy(upstream, origin));
      try {
        const plain = await exchange(
          egress.port,
          `GET ${origin.origin}/plain HTTP/1.1\r\nHost: 127.0.0.1:${origin.port}\r\n\r\n`,
        );
        assert.match(plain, /^HTTP\/1\.1 200/);
        assert.match(plain, /Through both proxies/);
        const tunnelled = await exchange(
          egress.port,
          `CONNECT 127.0.0.1:${origin.port} HTTP/1.1\r\nHost: 127.0.0.1:${origin.port}\r\n\r\n`,
          `GET /tunnel HTTP/1.1\r\nHost: 127.0.0.1:${origin.port}\r\nConnection: close\r\n\r\n`,
        );
        assert.match(tunnelled, /^HTTP\/1\.1 200 Connection Established/);
        assert.match(tunnelled, /Through both proxies/);
        assert.deepEqual(await upstream.requests(), [
          `GET ${origin.origin}/plain HTTP/1.1`,
          `CONNECT 127.0.0.1:${origin.port} HTTP/1.1`,
        ]);
        assert.deepEqual(origin.requests.map((r) => r.path), ["/plain", "/tunnel"]);
        assert.match(String(origin.requests[0].headers.via), /tinyproxy/);
      } finally {
        await egress.close();
      }
    }),
});

Deno.test({
  name: "egress proxy with an upstream: private names and literals refused before the upstream",
  ignore,
  fn: () =>
    withSetup(async (upstream, origin) => {
      const egress = await startEgressProxy(policy(upstream, origin, { no_proxy: ["*"] }));
      const chained = await startEgressProxy(policy(upstream, origin));
      try {
        for (const proxy of [egress, chained]) {
          for (
            const request of [
              "CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n",
              "CONNECT metadata.google.internal:443 HTTP/1.1\r\nHost: x\r\n\r\n",
              "CONNECT 10.0.0.1:443 HTTP/1.1\r\nHost: 10.0.0.1:443\r\n\r\n",
              "CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n",
              "GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n",
              "GET http://printer.local/ HTTP/1.1\r\nHost: printer.local\r\n\r\n",
            ]
          ) {
            const answer = await exchange(proxy.port, request);
            assert.match(answer, /^HTTP\/1\.1 403/, request.split("\r\n")[0]);
          }
        }
        assert.deepEqual(await upstream.requests(), [], "the upstream proxy saw none of them");
      } finally {
        await egress.close();
        await chained.close();
      }
    }),
});

Deno.test({
  name: "egress proxy: a tunnel the upstream refuses answers 502",
  ignore,
  fn: () =>
    withSetup(async (upstream, origin) => {
      const egress = await startEgressProxy(policy(upstream, origin));
      try {
        const answer = await exchange(
          egress.port,
          `CONNECT 127.0.0.1:${origin.port} HTTP/1.1\r\nHost: 127.0.0.1:${origin.port}\r\n\r\n`,
        );
        assert.match(answer, /^HTTP\/1\.1 502/);
        assert.deepEqual(await upstream.requests(), [`CONNECT 127.0.0.1:${origin.port} HTTP/1.1`]);
        assert.equal(origin.requests.length, 0);
      } finally {
        await egress.close();
      }
    }, { connectPorts: [443] }),
});

Deno.test({
  name: `Chromium reads a page through the egress proxy and the upstream proxy${browserSuffix}`,
  ignore: ignore || ignoreBrowser,
  fn: () =>
    withSetup(async (upstream, origin) => {
      const config = parseConfig({
        network: {
          allow_private: [origin.origin],
          allowed_ports: [80, 443, origin.port],
          proxy_url: upstream.url,
        },
      });
      const handle = await openBrowser(config, []);
      try {
        handle.proxy!.approve("127.0.0.1", origin.port, 60_000);
        const page = await handle.browser.newPage();
        const response = await page.goto(`${origin.origin}/browser`);
        assert.equal(response?.status(), 200);
        assert.equal(await page.$eval("#p", (p) => p.textContent), "Through both proxies.");
        await page.close();
        assert.ok(
          (await upstream.requests()).includes(`GET ${origin.origin}/browser HTTP/1.1`),
          "the page came through the upstream proxy",
        );
      } finally {
        await handle.dispose();
      }
    }),
});
