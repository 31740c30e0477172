/**
 * The guarded fetcher through a real forward proxy (Debian's tinyproxy) on
 * loopback. Without tinyproxy/openssl the proxy tests are ignored, or fail
 * when GLEANER_REQUIRE_PROXY=1.
 *
 * Proxy behaviour relied on: absolute-form requests and CONNECT
 * (RFC 9110 §9.3.6, https://www.rfc-editor.org/rfc/rfc9110#name-connect),
 * 407 Proxy Authentication Required with Basic credentials
 * (https://www.rfc-editor.org/rfc/rfc9110#name-407-proxy-authentication-re),
 * and tinyproxy's `BasicAuth` / `ConnectPort` (tinyproxy.conf(5),
 * https://tinyproxy.github.io/#documentation): a CONNECT to a port not
 * listed is refused with 403.
 */
import { rejectsWith } from "../../testing/asserts.ts";
import assert from "node:assert/strict";
import { type ConfigInput, loadConfig, parseConfig, redactConfig } from "../config/config.ts";
import { GleanerError } from "../errors.ts";
import { createFetcher, type Resolver } from "./fetch.ts";
import { bypassesProxy, parseProxy } from "./proxy.ts";
import {
  type ForwardProxy,
  forwardProxy,
  type Origin,
  startForwardProxy,
  startOrigin,
} from "../../testing/fixtures/forward_proxy.ts";
import { makeCertificates, type TestCertificates } from "../../testing/fixtures/tls.ts";

const ignore = forwardProxy.ignore;

if (forwardProxy.missing !== undefined && forwardProxy.required) {
  Deno.test("tinyproxy and openssl are installed (GLEANER_REQUIRE_PROXY=1)", () => {
    assert.fail(
      "tinyproxy or openssl not found on PATH; install the tinyproxy and openssl packages",
    );
  });
}

/** Only the origins the test names are allowed to be private (the loopback exemption). */
function network(origins: Origin[], extra: ConfigInput["network"] = {}) {
  return parseConfig({
    network: {
      allow_private: origins.map((o) => o.origin),
      allowed_ports: [80, 443, ...origins.map((o) => o.port)],
      respect_robots: false,
      ...extra,
    },
  }).network;
}

const PAGE = "<!doctype html><title>through</title><p>Arrived through the proxy.</p>";

function page(_req: unknown, res: import("node:http").ServerResponse) {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
}

let certificates: TestCertificates | undefined;
async function certs(): Promise<TestCertificates> {
  return certificates ??= await makeCertificates("IP:127.0.0.1");
}

async function withProxy(
  fn: (proxy: ForwardProxy) => Promise<void>,
  options?: Parameters<typeof startForwardProxy>[0],
): Promise<void> {
  const proxy = await startForwardProxy(options);
  try {
    await fn(proxy);
  } finally {
    await proxy.close();
  }
}

async function withOrigin(
  handler: Parameters<typeof startOrigin>[0],
  fn: (origin: Origin) => Promise<void>,
  tls?: TestCertificates,
): Promise<void> {
  const origin = await startOrigin(handler, tls);
  try {
    await fn(origin);
  } finally {
    await origin.close();
  }
}

Deno.test({
  name: "proxy: an http page goes to the proxy in absolute form",
  ignore,
  fn: () =>
    withProxy((proxy) =>
      withOrigin(page, async (origin) => {
        const fetcher = createFetcher(network([origin], { proxy_url: proxy.url }));
        const res = await fetcher.fetch(`${origin.origin}/a?x=1`);
        assert.equal(res.status, 200);
        assert.match(res.text(), /Arrived through the proxy/);
        assert.deepEqual(await proxy.requests(), [`GET ${origin.origin}/a?x=1 HTTP/1.1`]);
        assert.match(String(origin.requests[0].headers.via), /tinyproxy/, "the proxy forwarded it");
      })
    ),
});

Deno.test({
  name: "proxy: an https page goes through a CONNECT tunnel, TLS checked against the test CA",
  ignore,
  fn: async () => {
    const tls = await certs();
    await withProxy((proxy) =>
      withOrigin(page, async (origin) => {
        const settings = network([origin], { proxy_url: proxy.url });
        const fetcher = createFetcher(settings, { ca: tls.ca });
        const res = await fetcher.fetch(`${origin.origin}/secure`);
        assert.equal(res.status, 200);
        assert.match(res.text(), /Arrived through the proxy/);
        assert.deepEqual(await proxy.requests(), [`CONNECT 127.0.0.1:${origin.port} HTTP/1.1`]);
        assert.equal(origin.requests[0].path, "/secure");
        assert.equal(
          origin.requests[0].headers.via,
          undefined,
          "a tunnel, not a forwarded request",
        );
        // Without the test CA the certificate is refused inside the tunnel.
        const untrusted = createFetcher(settings);
        const error = await rejectsWith(
          untrusted.fetch(`${origin.origin}/`),
          "provider_unavailable",
        );
        assert.match(error.message, /TLS/);
      }, tls)
    );
  },
});

Deno.test({
  name: "proxy: a certificate for another host is refused through the tunnel",
  ignore,
  fn: async () => {
    const other = await makeCertificates("DNS:other.test");
    await withProxy((proxy) =>
      withOrigin(page, async (origin) => {
        const fetcher = createFetcher(network([origin], { proxy_url: proxy.url }), {
          ca: other.ca,
        });
        const error = await rejectsWith(fetcher.fetch(`${origin.origin}/`), "provider_unavailable");
        assert.match(error.message, /TLS/);
        assert.equal(origin.requests.length, 0, "no request was sent over the bad TLS");
        assert.deepEqual(await proxy.requests(), [`CONNECT 127.0.0.1:${origin.port} HTTP/1.1`]);
      }, other)
    );
  },
});

Deno.test({
  name: "proxy: private targets are refused by name and literal before anything reaches the proxy",
  ignore,
  fn: () =>
    withProxy(async (proxy) => {
      const fetcher = createFetcher(
        parseConfig({ network: { proxy_url: proxy.url, respect_robots: false } }).network,
      );
      for (
        const url of [
          "http://localhost/",
          "http://printer.local/",
          "http://metadata.google.internal/computeMetadata/v1/",
          "https://router.home.arpa/",
          "http://127.0.0.1/",
          "http://2130706433/",
          "https://10.0.0.1/",
          "http://169.254.169.254/latest/meta-data/",
          "https://[::1]/",
          "http://[::ffff:127.0.0.1]/",
        ]
      ) {
        await rejectsWith(fetcher.fetch(url), "blocked_url", url);
      }
      assert.deepEqual(await proxy.requests(), [], "the proxy saw none of them");
    }),
});

Deno.test({
  name: "proxy: a redirect to a private target is refused before the second hop is sent",
  ignore,
  fn: () =>
    withProxy((proxy) =>
      withOrigin((_req, res) => {
        res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      }, async (origin) => {
        const fetcher = createFetcher(network([origin], { proxy_url: proxy.url }));
        await rejectsWith(fetcher.fetch(`${origin.origin}/go`), "blocked_url");
        assert.deepEqual(await proxy.requests(), [`GET ${origin.origin}/go HTTP/1.1`]);
      })
    ),
});

Deno.test({
  name: "proxy: no_proxy goes direct, and never opens a private address the policy refuses",
  ignore,
  fn: () =>
    withProxy((proxy) =>
      withOrigin(page, async (origin) => {
        // A name that resolves to a private address, listed in no_proxy: refused by the
        // checked lookup of the direct path.
        const resolver: Resolver = (name) =>
          name === "intranet.corp"
            ? Promise.resolve([{ address: "10.1.2.3", family: 4 }])
            : Promise.reject(Object.assign(new Error("not found"), { code: "ENOTFOUND" }));
        const noProxy = ["*"];
        const fetcher = createFetcher(
          network([origin], { proxy_url: proxy.url, no_proxy: noProxy }),
          { resolver },
        );
        await rejectsWith(fetcher.fetch("http://intranet.corp/"), "blocked_url", "intranet.corp");
        await rejectsWith(fetcher.fetch("http://localhost/"), "blocked_url", "localhost");
        await rejectsWith(fetcher.fetch("http://10.0.0.7/"), "blocked_url", "10.0.0.7");
        // The allowed fixture origin, bypassed: it arrives without the proxy.
        const res = await fetcher.fetch(`${origin.origin}/direct`);
        assert.equal(res.status, 200);
        assert.equal(origin.requests[0].headers.via, undefined);
        assert.deepEqual(await proxy.requests(), [], "nothing went to the proxy");
        // Listed by address only: other hosts still use the proxy.
        const partial = createFetcher(
          network([origin], { proxy_url: proxy.url, no_proxy: ["192.0.2.0/24"] }),
        );
        await partial.fetch(`${origin.origin}/proxied`);
        assert.deepEqual(await proxy.requests(), [`GET ${origin.origin}/proxied HTTP/1.1`]);
      })
    ),
});

Deno.test({
  name: "proxy: credentials in proxy_url are sent; 407 is unauthorized, naming the proxy only",
  ignore,
  fn: async () => {
    const tls = await certs();
    await withProxy(async (proxy) => {
      await withOrigin(page, async (plain) => {
        await withOrigin(page, async (secure) => {
          const withAuth = (credentials: string) =>
            createFetcher(
              network([plain, secure], {
                proxy_url: proxy.url.replace("http://", `http://${credentials}`),
              }),
              { ca: tls.ca },
            );
          const good = withAuth("gleaner:pa55-w0rd@");
          assert.equal((await good.fetch(`${plain.origin}/`)).status, 200);
          assert.equal((await good.fetch(`${secure.origin}/`)).status, 200);
          const wrong = withAuth("gleaner:wrong-s3cret@");
          // tinyproxy 1.11 answers wrong credentials with 401 + WWW-Authenticate, not 407
          // (https://github.com/tinyproxy/tinyproxy/issues/532, fixed after 1.11.1): to a
          // forwarded http request that is indistinguishable from the origin's own 401, so it
          // is returned as the response; to a CONNECT it can only be the proxy's.
          const wrongPlain = await wrong.fetch(`${plain.origin}/`);
          assert.equal(wrongPlain.status, 401);
          assert.match(wrongPlain.headers.get("server") ?? "", /tinyproxy/);
          const refused = await rejectsWith(wrong.fetch(`${secure.origin}/`), "unauthorized");
          assert.match(refused.message, new RegExp(`proxy ${proxy.url}\\b.*401`));
          assert.ok(!refused.message.includes("s3cret"), "no password in the message");
          const none = withAuth("");
          for (const origin of [plain, secure]) {
            const error = await rejectsWith(none.fetch(`${origin.origin}/`), "unauthorized");
            assert.match(error.message, new RegExp(`proxy ${proxy.url}\\b.*407`));
            assert.match(error.message, /needs credentials/);
          }
          assert.equal(plain.requests.length, 1);
          assert.equal(secure.requests.length, 1);
        }, tls);
      });
    }, { auth: { user: "gleaner", password: "pa55-w0rd" } });
  },
});

Deno.test({
  name: "proxy: a tunnel the proxy refuses (403) is provider_unavailable naming proxy and status",
  ignore,
  fn: async () => {
    const tls = await certs();
    await withProxy((proxy) =>
      withOrigin(page, async (origin) => {
        const fetcher = createFetcher(network([origin], { proxy_url: proxy.url }), { ca: tls.ca });
        const error = await rejectsWith(fetcher.fetch(`${origin.origin}/`), "provider_unavailable");
        assert.match(error.message, new RegExp(`proxy ${proxy.url}.*403`));
        assert.equal(origin.requests.length, 0);
      }, tls), { connectPorts: [443] });
  },
});

Deno.test({
  name: "proxy: an origin the proxy cannot reach is provider_unavailable naming the proxy",
  ignore,
  fn: () =>
    withProxy(async (proxy) => {
      const gone = await startOrigin(page);
      await gone.close();
      const target = { ...gone, origin: `https://127.0.0.1:${gone.port}` };
      const fetcher = createFetcher(network([target], { proxy_url: proxy.url }));
      // The tunnel fails inside the proxy; tinyproxy then ends the connection or answers 5xx.
      const error = await rejectsWith(
        fetcher.fetch(`https://127.0.0.1:${gone.port}/`),
        "provider_unavailable",
      );
      assert.match(error.message, new RegExp(`proxy ${proxy.url}`));
      assert.match(error.message, /status 5\d\d|closed the connection/);
      assert.equal(error.details?.proxy, proxy.url);
    }),
});

Deno.test({
  name: "proxy: an unreachable proxy is provider_unavailable naming it",
  ignore,
  fn: () =>
    withOrigin(page, async (origin) => {
      const closed = await startForwardProxy();
      await closed.close();
      const fetcher = createFetcher(network([origin], { proxy_url: closed.url }));
      const error = await rejectsWith(fetcher.fetch(`${origin.origin}/`), "provider_unavailable");
      assert.match(error.message, new RegExp(`proxy ${closed.url}`));
    }),
});

Deno.test({
  name: "proxy: byte limits, the deadline and the caller's signal hold through the tunnel",
  ignore,
  fn: async () => {
    const tls = await certs();
    const big = `<!doctype html><p>${"word ".repeat(100_000)}</p>`;
    await withProxy((proxy) =>
      withOrigin((req, res) => {
        if (req.url === "/big") {
          res.writeHead(200, { "content-type": "text/html" }).end(big);
        } else if (req.url === "/pdf") {
          res.writeHead(200, { "content-type": "application/pdf" }).end(new Uint8Array(200_000));
        } // "/hang": never answers
      }, async (origin) => {
        const fetcher = createFetcher(network([origin], { proxy_url: proxy.url }), { ca: tls.ca });
        const cut = await fetcher.fetch(`${origin.origin}/big`, { maxBytes: 10_000 });
        assert.equal(cut.truncated, true);
        assert.ok(cut.body.length <= 10_000);
        await rejectsWith(fetcher.fetch(`${origin.origin}/pdf`, { maxBytes: 10_000 }), "too_large");
        await rejectsWith(fetcher.fetch(`${origin.origin}/hang`, { timeoutMs: 300 }), "timeout");
        const controller = new AbortController();
        const pending = fetcher.fetch(`${origin.origin}/hang`, { signal: controller.signal });
        setTimeout(() => controller.abort(), 100);
        await rejectsWith(pending, "timeout", "cancelled");
      }, tls)
    );
  },
});

Deno.test("proxy settings: env below settings; credentials redacted; bad URLs refused", async () => {
  const env = {
    HTTPS_PROXY: "http://u:s3cret@proxy.corp:3128",
    HTTP_PROXY: "http://other:8080",
    NO_PROXY: "intranet.corp,.lan",
  };
  const fromEnv = await loadConfig({ env: { ...env, HOME: "/nonexistent" } });
  assert.equal(fromEnv.network.proxy_url, "http://u:s3cret@proxy.corp:3128");
  assert.deepEqual(fromEnv.network.no_proxy, ["intranet.corp", ".lan"]);
  assert.equal(redactConfig(fromEnv).network.proxy_url, "http://[redacted]@proxy.corp:3128");
  const lower = await loadConfig({ env: { http_proxy: "proxy.lan:3128", HOME: "/nonexistent" } });
  assert.equal(lower.network.proxy_url, "http://proxy.lan:3128");
  const setting = await loadConfig({
    env: { ...env, HOME: "/nonexistent", GLEANER_NETWORK_PROXY_URL: "http://mine:3128" },
    overrides: { network: { no_proxy: ["only.this"] } },
  });
  assert.equal(setting.network.proxy_url, "http://mine:3128", "the setting wins over HTTPS_PROXY");
  assert.deepEqual(setting.network.no_proxy, ["only.this"]);
  for (
    const bad of ["socks5://proxy:1080", "https://proxy:443", "http://proxy:3128/path", "nope"]
  ) {
    assert.throws(
      () => parseConfig({ network: { proxy_url: bad } }),
      (e: unknown) =>
        e instanceof GleanerError && e.code === "invalid_arguments" &&
        e.message.includes("network.proxy_url"),
      bad,
    );
  }
  const proxy = parseProxy({ proxy_url: "http://u%40corp:p%3Ass@[::1]:3128" })!;
  assert.equal(proxy.host, "::1");
  assert.equal(proxy.authorization, `Basic ${btoa("u@corp:p:ss")}`);
  assert.equal(proxy.label, "http://[::1]:3128");
});

Deno.test("no_proxy: names, subdomains, ports, addresses and ranges", () => {
  const list = [
    "example.com",
    ".lan",
    "*.corp",
    "10.0.0.0/8",
    "[::1]",
    "api.test:8443",
    "192.0.2.7",
  ];
  const cases: [string, boolean][] = [
    ["https://example.com/", true],
    ["https://www.example.com/", true],
    ["https://notexample.com/", false],
    ["https://EXAMPLE.com./", true],
    ["https://a.lan/", true],
    ["https://lan/", false],
    ["https://wiki.corp/", true],
    ["https://corp/", false],
    ["http://10.9.8.7/", true],
    ["http://11.0.0.1/", false],
    ["http://[::1]:8080/", true],
    ["https://api.test:8443/", true],
    ["https://api.test/", false],
    ["http://192.0.2.7/", true],
    ["http://192.0.2.8/", false],
  ];
  for (const [url, expected] of cases) {
    assert.equal(bypassesProxy(new URL(url), list), expected, url);
  }
  assert.ok(bypassesProxy(new URL("https://anything.example/"), ["*"]));
  assert.ok(!bypassesProxy(new URL("https://anything.example/"), []));
});
