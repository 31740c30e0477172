/**
 * Gleaner behind an outbound proxy, end to end: a real tinyproxy on loopback
 * as `network.proxy_url`, the real MCP client against the real server, and
 * every outbound call the tools make (page reads, a keyed provider, keyless
 * search) seen in the proxy's log. Without tinyproxy/openssl the tests are
 * ignored, or fail when GLEANER_REQUIRE_PROXY=1 (see lib/net/proxy_test.ts).
 */
import { linkMcpClient } from "../testing/mcp_client.ts";
import assert from "node:assert/strict";
import { createGleaner } from "../mod.ts";
import { type ConfigInput, mergeConfig } from "../lib/config/config.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { createMcpServer } from "../mcp/server.ts";
import { withFakeProviders } from "../testing/fixtures/fake_providers.ts";
import { fakeUpstreamConfig, withFakeUpstreams } from "../testing/fixtures/upstreams.ts";
import { startFixtureWeb } from "../testing/fixtures/web.ts";
import {
  type ForwardProxy,
  forwardProxy,
  startForwardProxy,
} from "../testing/fixtures/forward_proxy.ts";

const ignore = forwardProxy.ignore;

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

async function withProxiedClient(
  proxy: ForwardProxy,
  input: ConfigInput,
  fn: (call: (name: string, args: Record<string, unknown>) => Promise<ToolResult>) => Promise<void>,
): Promise<void> {
  const gleaner: Gleaner = await createGleaner(
    mergeConfig({ embed: { provider: "none" }, store: { path: ":memory:" } }, input, {
      network: { ...input.network, proxy_url: proxy.url },
    }),
  );
  const { client, close } = await linkMcpClient(createMcpServer(gleaner, toolsFor(gleaner.config)));
  try {
    await fn((name, args) => client.callTool({ name, arguments: args }) as Promise<ToolResult>);
  } finally {
    await close();
    await gleaner.close();
  }
}

async function withProxy(fn: (proxy: ForwardProxy) => Promise<void>): Promise<void> {
  const proxy = await startForwardProxy();
  try {
    await fn(proxy);
  } finally {
    await proxy.close();
  }
}

Deno.test({
  name: "behind a proxy: scrape_urls reads through it; a private URL is refused before it",
  ignore,
  fn: () =>
    withProxy(async (proxy) => {
      const web = await startFixtureWeb();
      try {
        const port = Number(new URL(web.origin).port);
        await withProxiedClient(proxy, {
          network: { allow_private: [web.origin], allowed_ports: [80, 443, port] },
        }, async (call) => {
          const result = await call("scrape_urls", {
            items: [
              { url: web.url("/pages/001") },
              { url: "http://169.254.169.254/latest/meta-data/" },
              { url: "http://metadata.google.internal/computeMetadata/v1/" },
            ],
          });
          assert.ok(!result.isError, result.content[0]?.text);
          const items = (result.structuredContent as {
            items: { ok: boolean; error?: { code: string } }[];
          }).items;
          assert.equal(items[0].ok, true, JSON.stringify(items[0]));
          assert.equal(items[1].error?.code, "blocked_url");
          assert.equal(items[2].error?.code, "blocked_url");
        });
        const seen = await proxy.requests();
        assert.ok(
          seen.includes(`GET ${web.origin}/pages/001 HTTP/1.1`),
          `the page went through the proxy: ${JSON.stringify(seen)}`,
        );
        assert.ok(seen.includes(`GET ${web.origin}/robots.txt HTTP/1.1`), "so did robots.txt");
        assert.ok(!seen.some((line) => /169\.254|metadata/.test(line)), "no private target");
      } finally {
        await web.close();
      }
    }),
});

Deno.test({
  name: "behind a proxy: a keyed provider call (Brave) goes through it",
  ignore,
  fn: () =>
    withProxy((proxy) =>
      withFakeProviders(async (fakes) => {
        await withProxiedClient(
          proxy,
          fakes.config({ brave: "brave-key" }, { presentation: "all_tools" }),
          async (call) => {
            const result = await call("brave_web_search", { query: "sqlite wal" });
            assert.ok(!result.isError, result.content[0]?.text);
          },
        );
        const [request] = fakes.requestsOf("brave");
        assert.match(String(request.headers.via), /tinyproxy/, "it arrived through the proxy");
        assert.equal(request.headers["x-subscription-token"], "brave-key");
        assert.ok(
          (await proxy.requests()).some((line) =>
            line.startsWith(`GET ${fakes.origin}/brave/res/v1/web/search?`)
          ),
        );
      })
    ),
});

Deno.test({
  name: "behind a proxy: keyless search (SearXNG, DuckDuckGo) goes through it",
  ignore,
  fn: () =>
    withProxy((proxy) =>
      withFakeUpstreams(async (fakes) => {
        for (const backend of ["searxng", "duckduckgo"] as const) {
          await withProxiedClient(
            proxy,
            fakeUpstreamConfig(fakes, { searxng: true, backend }) as ConfigInput,
            async (call) => {
              const result = await call("search", { items: [{ query: `proxy ${backend}` }] });
              assert.ok(!result.isError, result.content[0]?.text);
              const items = (result.structuredContent as {
                items: { provider?: string; results: unknown[] }[];
              }).items;
              assert.equal(items[0].provider, backend, JSON.stringify(items[0]));
              assert.ok(items[0].results.length > 0);
            },
          );
        }
        assert.deepEqual(
          new Set(fakes.requests.map((r) => r.backend.split("_")[0])),
          new Set([
            "searxng",
            "duckduckgo",
          ]),
        );
        for (const request of fakes.requests) {
          assert.match(request.headers.via ?? "", /tinyproxy/, `${request.backend} via the proxy`);
        }
      })
    ),
});
