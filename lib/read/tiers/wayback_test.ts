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
import { parseSnapshotUrl, waybackTier, waybackTimeToIso } from "./wayback.ts";

const STAMP = "20240102030405";
const ARTICLE =
  "The lighthouse keeper logged every ship that passed the northern cape during the storm.";

function contextFor(wayback: FakeWayback, enabled = true): ReadContext {
  const config = parseConfig({
    network: { allow_private: [wayback.origin] },
    read: { wayback: enabled, wayback_url: wayback.url, render: "never" },
  });
  return { config, fetcher: createFetcher(config.network) };
}

async function withWayback(
  fn: (wayback: FakeWayback, gone: string) => Promise<void>,
): Promise<void> {
  const wayback = await startFakeWayback();
  const gone = `${wayback.origin}/gone/article`;
  wayback.addSnapshot(gone, {
    timestamp: STAMP,
    html: `<!DOCTYPE html><html><head><title>Lighthouse log</title></head><body><article>` +
      `<h1>Lighthouse log</h1><p>${ARTICLE}</p><p>${ARTICLE}</p>` +
      `<p><a href="/gone/other">Other entry</a> and <a href="https://example.com/related">related</a></p>` +
      `</article></body></html>`,
  });
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
    assert.ok(urls.includes(`${wayback.origin}/gone/other`), urls.join());
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
    const never = `${wayback.origin}/gone/never-archived`;
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

Deno.test("scrape_urls on a gone page read from the archive: items and evidence say it is a snapshot", async () => {
  const { createGleaner, scrapeUrls } = await import("../../../mod.ts");
  await withWayback(async (wayback, gone) => {
    const gleaner = await createGleaner({
      network: { allow_private: [wayback.origin] },
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
  });
});
