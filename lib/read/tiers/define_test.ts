import assert from "node:assert/strict";
import { parseConfig } from "../../config/parse.ts";
import { createFetcher } from "../../net/fetch.ts";
import { defaultTiers } from "../tiers.ts";
import type { Tier } from "../types.ts";
import { cutTierSlice, declaredTierSettings, defineTier, type TierSlice } from "./define.ts";
import { serveLoopback } from "../../../testing/fixtures/serve.ts";

Deno.test("defineTier: every tier of the default cascade, every one configured, is defined with the slice it reads", async () => {
  const config = parseConfig({
    read: {
      firecrawl_url: "http://127.0.0.1:9/",
      crawl4ai_url: "http://127.0.0.1:9/",
      kiwix_url: "http://127.0.0.1:9/",
      kiwix_books: { "en.wikipedia.org": "wikipedia_en_all" },
      github_token: "token",
      hister_url: "http://127.0.0.1:9/",
    },
  });
  const set = defaultTiers(config, { fetcher: createFetcher(config.network) });
  try {
    const names = set.tiers.map((tier) => tier.name);
    for (const name of ["kiwix", "github", "hister", "firecrawl", "crawl4ai", "browser"]) {
      assert.ok(names.includes(name as Tier["name"]), name);
    }
    const undeclared = [
      ...set.tiers,
      ...set.tiersFor({ hister: false, githubToken: false }),
    ].filter((tier) => declaredTierSettings(tier) === undefined).map((tier) => tier.name);
    assert.deepEqual(undeclared, []);
  } finally {
    await set.close();
  }
});

Deno.test("cutTierSlice: the declared read settings and the network section, nothing else", () => {
  const config = parseConfig({ read: { max_links: 7, wayback: true } });
  const slice = cutTierSlice(config, ["max_links", "wayback"]);
  assert.deepEqual(slice.read, { max_links: 7, wayback: true });
  assert.equal(slice.network, config.network);
  assert.deepEqual(cutTierSlice(config, []).read, {});
});

Deno.test("defineTier: a read receives its slice, cut once per configuration, beside the reader's context", async () => {
  const site = serveLoopback(() => new Response("ok"));
  const seen: TierSlice<"max_links">[] = [];
  const fetched: number[] = [];
  const tier = defineTier({
    name: "http",
    scope: "shared",
    settings: { read: ["max_links"] },
    canHandle: () => true,
    async read(url, _request, context) {
      seen.push(context.config);
      // The rest of the reader's context comes through as it was.
      fetched.push((await context.fetcher.fetch(url, { robots: false })).status);
      return undefined;
    },
  });
  const port = Number(new URL(site.origin).port);
  const config = parseConfig({
    network: { allow_private: [site.origin], allowed_ports: [port] },
    read: { max_links: 3 },
  });
  const fetcher = createFetcher(config.network);
  const url = new URL(`${site.origin}/`);
  try {
    await tier.read(url, { url: url.href }, { config, fetcher });
    await tier.read(url, { url: url.href }, { config, fetcher });
    assert.deepEqual(fetched, [200, 200]);
    assert.equal(seen.length, 2);
    assert.equal(seen[0], seen[1]);
    assert.deepEqual(seen[0].read, { max_links: 3 });
    assert.equal(seen[0].network, config.network);
    assert.equal("settings" in tier, false);
    assert.deepEqual(declaredTierSettings(tier), { read: ["max_links"] });
    // Another configuration gets its own slice.
    const other = parseConfig({ network: config.network, read: { max_links: 9 } });
    await tier.read(url, { url: url.href }, { config: other, fetcher });
    assert.deepEqual(seen[2].read, { max_links: 9 });
  } finally {
    await site.close();
  }
});

Deno.test("defineTier: a tier written against the whole settings has no declaration", () => {
  const own: Tier = {
    name: "http",
    scope: "shared",
    canHandle: () => true,
    read: () => Promise.resolve(undefined),
  };
  assert.equal(declaredTierSettings(own), undefined);
});
