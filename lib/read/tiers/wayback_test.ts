import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { GleanerError } from "../../errors.ts";
import { createFetcher } from "../../net/fetch.ts";
import {
  type FakeWayback,
  startFakeWayback,
  TOOLBAR_TEXT,
} from "../../../testing/fixtures/fake_wayback.ts";
import { createReader } from "../cascade.ts";
import { httpTier } from "./http.ts";
import type { ReadContext } from "../types.ts";
import type { Resolver } from "../../net/fetch.ts";
import { parseSnapshotUrl, waybackTier, waybackTimeToIso } from "./wayback.ts";

const STAMP = "20240102030405";
const ARTICLE =
  "The lighthouse keeper logged every ship that passed the northern cape during the storm.";
/** A page of a site that is gone: its name no longer resolves (a public URL the archive may know). */
const GONE = "https://gone.example/article";

/**
 * A resolver that answers from a table (no DNS server needed) and records the names asked;
 * a name not in the table does not exist (`ENOTFOUND`), a `null` entry fails as DNS outages do.
 */
function tableResolver(table: Record<string, string[] | null>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver = (hostname: string) => {
    asked.push(hostname);
    const answers = table[hostname];
    if (answers === null) {
      return Promise.reject(Object.assign(new Error("temporary failure"), { code: "EAI_AGAIN" }));
    }
    if (!answers) {
      return Promise.reject(Object.assign(new Error("not found"), { code: "ENOTFOUND" }));
    }
    return Promise.resolve(answers.map((address) => ({
      address,
      family: address.includes(":") ? 6 : 4,
    })));
  };
  return Object.assign(resolver, { asked });
}

function contextFor(
  wayback: FakeWayback,
  enabled = true,
  network: Record<string, unknown> = { allow_private: [wayback.origin] },
  dns: Record<string, string[] | null> = {},
): ReadContext {
  const config = parseConfig({
    network,
    read: { wayback: enabled, wayback_url: wayback.url, render: "never" },
  });
  return { config, fetcher: createFetcher(config.network, { resolver: tableResolver(dns) }) };
}

const SNAPSHOT_HTML =
  `<!DOCTYPE html><html><head><title>Lighthouse log</title></head><body><article>` +
  `<h1>Lighthouse log</h1><p>${ARTICLE}</p><p>${ARTICLE}</p>` +
  `<p><a href="/gone/other">Other entry</a> and <a href="https://example.com/related">related</a></p>` +
  `</article></body></html>`;

async function withWayback(
  fn: (wayback: FakeWayback, gone: string) => Promise<void>,
  gone = GONE,
): Promise<void> {
  const wayback = await startFakeWayback();
  wayback.addSnapshot(gone, { timestamp: STAMP, html: SNAPSHOT_HTML });
  try {
    await fn(wayback, gone);
  } finally {
    await wayback.close();
  }
}

Deno.test("wayback helpers: timestamps to ISO, snapshot URLs to raw mode", () => {
  assert.equal(waybackTimeToIso("20240102030405"), "2024-01-02T03:04:05Z");
  assert.equal(waybackTimeToIso("2024"), "2024-01-01T00:00:00Z");
  assert.equal(waybackTimeToIso("2024x"), undefined);
  assert.deepEqual(
    parseSnapshotUrl("http://web.archive.org/web/20240102030405/https://example.com/a?b=1"),
    {
      url: "https://web.archive.org/web/20240102030405/https://example.com/a?b=1",
      rawUrl: "https://web.archive.org/web/20240102030405id_/https://example.com/a?b=1",
      originalUrl: "https://example.com/a?b=1",
      timestamp: "20240102030405",
    },
  );
  assert.equal(
    parseSnapshotUrl("https://web.archive.org/web/20240102030405im_/https://example.com/x.png")
      ?.rawUrl,
    "https://web.archive.org/web/20240102030405id_/https://example.com/x.png",
  );
  assert.equal(parseSnapshotUrl("https://web.archive.org/about"), undefined);
});

Deno.test("wayback tier: reads the latest snapshot in raw mode and marks archivedAt", async () => {
  await withWayback(async (wayback, gone) => {
    const url = new URL(gone);
    assert.ok(waybackTier.canHandle(url, { url: gone }));
    const page = await waybackTier.read(url, { url: gone }, contextFor(wayback));
    assert.ok(page);
    assert.equal(page.tier, "wayback");
    assert.equal(page.url, gone);
    assert.equal(page.archivedAt, "2024-01-02T03:04:05Z");
    assert.equal(page.finalUrl, `${wayback.origin}/web/${STAMP}/${gone}`);
    assert.equal(page.title, "Lighthouse log");
    assert.ok(page.markdown.includes(ARTICLE));
    assert.ok(!page.markdown.includes(TOOLBAR_TEXT), "raw mode has no toolbar");
    // Links of a raw snapshot resolve against the original page.
    const urls = page.links.map((l) => l.url);
    assert.ok(urls.includes("https://gone.example/gone/other"), urls.join());
    assert.ok(urls.includes("https://example.com/related"));
    assert.deepEqual(wayback.requests, [
      `/wayback/available?url=${encodeURIComponent(gone)}`,
      `/web/${STAMP}id_/${gone}`,
    ]);
  });
});

Deno.test("wayback tier: passes when disabled or nothing is archived", async () => {
  await withWayback(async (wayback, gone) => {
    assert.equal(
      await waybackTier.read(new URL(gone), { url: gone }, contextFor(wayback, false)),
      undefined,
    );
    assert.equal(wayback.requests.length, 0);
    const never = "https://gone.example/never-archived";
    assert.equal(
      await waybackTier.read(new URL(never), { url: never }, contextFor(wayback)),
      undefined,
    );
    assert.equal(wayback.requests.length, 1);
    assert.equal(
      waybackTier.canHandle(new URL("https://web.archive.org/web/2024/x"), { url: "x" }),
      false,
    );
  });
});

Deno.test("wayback tier in the cascade: a 404 page is read from the archive only when opted in", async () => {
  await withWayback(async (wayback, gone) => {
    const on = contextFor(wayback);
    const reader = createReader({
      config: on.config,
      fetcher: on.fetcher,
      tiers: [httpTier, waybackTier],
    });
    const page = await reader.read({ url: gone });
    assert.equal(page.tier, "wayback");
    assert.equal(page.archivedAt, "2024-01-02T03:04:05Z");

    const off = contextFor(wayback, false);
    const plain = createReader({
      config: off.config,
      fetcher: off.fetcher,
      tiers: [httpTier, waybackTier],
    });
    await assert.rejects(
      plain.read({ url: gone }),
      (e) => e instanceof GleanerError && e.code === "not_found",
    );
  });
});

/**
 * An outbound proxy on loopback that answers every request itself with 404 (the site is
 * gone): pages of a public address are "read" through it without any internet or DNS.
 */
function goneProxy(): { url: string; close(): Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("<p>Gone</p>", { status: 404, headers: { "content-type": "text/html" } }),
  );
  return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

Deno.test("scrape_urls on a gone page read from the archive: items and evidence say it is a snapshot", async () => {
  const { createGleaner, scrapeUrls } = await import("../../../mod.ts");
  const proxy = goneProxy();
  // A public address literal: no DNS is needed to know it may be told to the archive.
  await withWayback(async (wayback, gone) => {
    const gleaner = await createGleaner({
      network: { allow_private: [wayback.origin], proxy_url: proxy.url, no_proxy: ["127.0.0.1"] },
      read: { wayback: true, wayback_url: wayback.url, render: "never" },
      store: { path: ":memory:" },
      embed: { provider: "none" },
    });
    try {
      for (const query of [undefined, "which ships did the lighthouse keeper log"]) {
        const out = await scrapeUrls(gleaner, {
          items: [{ url: gone, ...(query ? { query } : {}) }],
        });
        const [item] = out.items;
        assert.equal(item.ok, true, JSON.stringify(item));
        // The second read comes from the page cache, which keeps the provenance.
        assert.equal(item.tier, query ? "cache" : "wayback");
        assert.equal(item.archived_at, "2024-01-02T03:04:05Z");
        assert.equal(item.original_url, gone);
        assert.ok(out.evidence.length > 0);
        for (const passage of out.evidence) {
          assert.equal(passage.archived_at, "2024-01-02T03:04:05Z");
          assert.equal(passage.original_url, gone);
        }
        // The text a model reads names the snapshot, its time and the page it captured.
        const { renderEvidence } = await import("../../rank/render.ts");
        const text = renderEvidence(out.evidence);
        assert.ok(
          text.includes(`[Archived snapshot – 2024-01-02T03:04:05Z – ${gone}]`),
          text.slice(0, 300),
        );
        assert.ok(out.tokens > 0);
      }
    } finally {
      await gleaner.close();
    }
  }, "http://93.184.216.34/article").finally(() => proxy.close());
});

Deno.test("wayback tier: a URL of the operator's private network is never sent to the archive", async () => {
  await withWayback(async (wayback) => {
    const secret = "?session=s3cr3t-0123";
    // Listed in network.allow_private: by origin, without asking DNS.
    const listed = contextFor(wayback, true, {
      allow_private: [wayback.origin, "http://wiki.lan:8080", "https://intranet.example"],
    }, { "intranet.example": ["93.184.216.34"] });
    // Every private address allowed: the addresses decide.
    const port = Number(new URL(wayback.origin).port);
    const open = contextFor(
      wayback,
      true,
      { allow_private: true, allowed_ports: [80, 8080, port] },
      {
        "intranet.example": ["10.0.0.7"],
        "mixed.example": ["93.184.216.34", "192.168.1.2"],
        "flaky.example": null,
      },
    );
    const cases: [string, ReadContext][] = [
      [`${wayback.origin}/gone/article${secret}`, listed],
      [`http://wiki.lan:8080/Passwords${secret}`, listed],
      [`https://intranet.example/hr/salaries${secret}`, listed],
      [`http://10.1.2.3/admin${secret}`, open],
      [`http://127.0.0.1:8080/${secret}`, open],
      [`http://169.254.169.254/latest/meta-data/${secret}`, open],
      [`http://[fe80::1]/router${secret}`, open],
      [`http://[::ffff:192.168.0.1]/${secret}`, open],
      [`http://printer.local/queue${secret}`, open],
      [`http://nas.home.arpa/files${secret}`, open],
      [`https://intranet.example/hr/salaries${secret}`, open],
      [`https://mixed.example/wiki${secret}`, open],
      [`https://flaky.example/wiki${secret}`, open],
    ];
    for (const [raw, context] of cases) {
      wayback.addSnapshot(raw, { timestamp: STAMP, html: SNAPSHOT_HTML });
      const url = new URL(raw);
      assert.equal(await waybackTier.read(url, { url: raw }, context), undefined, raw);
    }
    assert.equal(wayback.requests.length, 0, `asked: ${wayback.requests.join()}`);
    // Through the cascade: the private page's 404 stays the answer.
    const reader = createReader({
      config: open.config,
      fetcher: open.fetcher,
      tiers: [httpTier, waybackTier],
    });
    const gone = `${wayback.origin}/gone/article${secret}`;
    wayback.addSnapshot(gone, { timestamp: STAMP, html: SNAPSHOT_HTML });
    await assert.rejects(
      reader.read({ url: gone }),
      (e) => e instanceof GleanerError && e.code === "not_found",
    );
    assert.ok(!wayback.requests.some((r) => r.startsWith("/wayback/")), wayback.requests.join());
    // A public page that is gone is still looked up.
    const page = await waybackTier.read(new URL(GONE), { url: GONE }, open);
    assert.equal(page?.tier, "wayback");
    assert.equal(wayback.requests.filter((r) => r.startsWith("/wayback/")).length, 1);
  });
});
