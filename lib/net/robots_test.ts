import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { createGleaner } from "../gleaner.ts";
import type { RobotsState } from "./robots_state.ts";
import { createFetcher } from "./fetch.ts";

/** A loopback origin whose robots.txt answers `status` with `body`. */
function origin(status: number, body: string) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) =>
      new URL(req.url).pathname === "/robots.txt"
        ? new Response(body, { status })
        : new Response("<p>ok</p>", { headers: { "content-type": "text/html" } }),
  );
  return { server, url: `http://127.0.0.1:${server.addr.port}` };
}

Deno.test("robots.txt: each fetch reports what the file means for Gleaner", async () => {
  const sites = {
    partial: origin(
      200,
      "User-agent: Gleaner\nDisallow: /no-gleaner\n\nUser-agent: *\nDisallow: /\n",
    ),
    disallow_all: origin(200, "User-agent: *\nDisallow: /\n"),
    allow_all: origin(200, "User-agent: OtherBot\nDisallow: /x\n\nUser-agent: *\nDisallow:\n"),
    missing: origin(404, "not here"),
    error: origin(503, "down"),
  };
  try {
    const fetcher = createFetcher(
      parseConfig({ network: { allow_private: Object.values(sites).map((s) => s.url) } }).network,
    );
    const seen = new Map<string, RobotsState>();
    fetcher.robots.observe((at, state) => seen.set(at, state));
    for (const site of Object.values(sites)) await fetcher.robots.isAllowed(`${site.url}/page`);
    for (const [expected, site] of Object.entries(sites)) {
      assert.equal(seen.get(site.url), expected, site.url);
      assert.equal(fetcher.robots.stateOf(site.url), expected, `${site.url} while cached`);
    }
    assert.equal(fetcher.robots.stateOf("https://never.example"), undefined);
    fetcher.robots.clear();
    assert.equal(fetcher.robots.stateOf(Object.values(sites)[0].url), undefined, "forgotten");
  } finally {
    await Promise.all(Object.values(sites).map((s) => s.server.shutdown()));
  }
});

Deno.test("robots.txt state reaches domain_stats after a read", async () => {
  const site = origin(200, "User-agent: *\nDisallow: /private\n");
  const gleaner = await createGleaner({
    network: { allow_private: [site.url] },
    store: { path: ":memory:" },
  });
  try {
    await gleaner.reader.read({ url: `${site.url}/page` });
    const stats = await gleaner.store.domains.get(site.url);
    assert.equal(stats?.robots?.state, "partial");
  } finally {
    await gleaner.close();
    await site.server.shutdown();
  }
});
