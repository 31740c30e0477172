import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { GleanerError } from "../../errors.ts";
import { createFetcher } from "../../net/fetch.ts";
import { startFakeHister } from "../../../testing/fixtures/fake_hister.ts";
import { serveLoopback } from "../../../testing/fixtures/serve.ts";
import { createReader } from "../cascade.ts";
import { histerKey, histerTier } from "./hister.ts";
import { httpTier } from "./http.ts";
import { countsAgainstTier } from "../outcomes.ts";
import { defaultTiers } from "../tiers.ts";

const TOKEN = "hister-secret-token-0123";
const VISITED = "https://intranet.example/wiki/Sprockets";
const ADDED = 1709640000; // 2024-03-05T12:00:00Z

const HISTORY = {
  [VISITED]: {
    title: "Sprockets - Intranet Wiki",
    html: "<!doctype html><html lang='en'><head><title>Sprockets - Intranet Wiki</title></head>" +
      "<body><nav>Home | Wiki</nav><main><article><h1>Sprockets</h1>" +
      "<p>Sprockets are toothed wheels that mesh with a chain. Our plant makes them in three sizes, " +
      "from the small S-12 to the large L-48, and every one is checked by hand before it ships.</p>" +
      "<p>See the <a href='/wiki/Chains'>chains page</a> for the matching chains.</p>" +
      "</article></main></body></html>",
    text: "Sprockets are toothed wheels that mesh with a chain.",
    added: ADDED,
  },
  "https://intranet.example/notes/plain": {
    title: "Plain note",
    html: "",
    text: "A note kept as text only, because previews are disabled.",
    added: ADDED,
  },
};

function configFor(origins: string[], hister: { url?: string; token?: string }) {
  return parseConfig({
    network: { allow_private: origins },
    read: { render: "never", hister_url: hister.url, hister_token: hister.token },
  });
}

Deno.test("histerKey drops the fragment and utm parameters, as Hister does when it stores a URL", () => {
  assert.equal(
    histerKey(new URL("https://example.com/a?utm_source=x&b=1&utm=y#frag")),
    "https://example.com/a?b=1",
  );
  assert.equal(histerKey(new URL("https://example.com/a?b=1")), "https://example.com/a?b=1");
});

Deno.test("hister tier: absent from the cascade until read.hister_url is set", async () => {
  const off = defaultTiers(parseConfig({}), { fetcher: createFetcher(parseConfig({}).network) });
  const on = defaultTiers(parseConfig({ read: { hister_url: "http://127.0.0.1:4433" } }), {
    fetcher: createFetcher(parseConfig({}).network),
  });
  try {
    assert.ok(!off.tiers.some((t) => t.name === "hister"));
    const names = on.tiers.map((t) => t.name);
    assert.ok(names.includes("hister"));
    assert.ok(names.indexOf("hister") < names.indexOf("http"), "history before the live page");
  } finally {
    await off.close();
    await on.close();
  }
});

Deno.test("hister tier: a visited page is read from the history with its snapshot time", async () => {
  const hister = startFakeHister(HISTORY, TOKEN);
  try {
    const config = configFor([hister.origin], { url: hister.origin, token: TOKEN });
    const reader = createReader({
      config,
      fetcher: createFetcher(config.network),
      tiers: [histerTier, httpTier],
    });
    // intranet.example is never contacted: the page comes from the history.
    const page = await reader.read({ url: `${VISITED}?utm_source=mail#usage` });
    assert.equal(page.tier, "hister");
    assert.equal(page.finalUrl, VISITED);
    assert.equal(page.archivedAt, "2024-03-05T12:00:00.000Z");
    assert.equal(page.originalUrl, VISITED);
    assert.match(page.title, /Sprockets/);
    assert.match(page.markdown, /toothed wheels that mesh with a chain/);
    assert.doesNotMatch(page.markdown, /Home \| Wiki/, "extracted like any HTML page");
    assert.ok(page.links.some((l) => l.url === "https://intranet.example/wiki/Chains"));
    assert.equal(hister.requests.length, 1);
    assert.equal(hister.requests[0].path, "/api/document");
    assert.equal(hister.requests[0].url, VISITED, "utm parameters and fragment dropped");
    assert.equal(hister.requests[0].headers.authorization, `Bearer ${TOKEN}`);

    // Stored without HTML (previews disabled): the text is the page.
    const plain = await reader.read({ url: "https://intranet.example/notes/plain" });
    assert.equal(plain.tier, "hister");
    assert.equal(plain.title, "Plain note");
    assert.equal(plain.markdown, "A note kept as text only, because previews are disabled.");
  } finally {
    await hister.close();
  }
});

Deno.test("hister tier: pages not in the history, a refused token or a dead server leave it to the live page", async () => {
  const hister = startFakeHister(HISTORY, TOKEN);
  const live = serveLoopback((req) =>
    new URL(req.url).pathname === "/robots.txt" ? new Response("", { status: 404 }) : new Response(
      "<html><head><title>Live page</title></head><body><main><p>" +
        "This page is read from the web itself, because the history does not hold it. ".repeat(3) +
        "</p></main></body></html>",
      { headers: { "content-type": "text/html" } },
    )
  );
  try {
    const fresh = (token: string) => {
      const config = configFor([hister.origin, live.origin], { url: hister.origin, token });
      const fetcher = createFetcher(config.network);
      return {
        config,
        fetcher,
        reader: createReader({ config, fetcher, tiers: [histerTier, httpTier] }),
      };
    };
    const good = fresh(TOKEN);
    const missing = await good.reader.read({ url: `${live.origin}/article` });
    assert.equal(missing.tier, "http");
    assert.equal(hister.requests.at(-1)?.url, `${live.origin}/article`);

    const bad = fresh("wrong-token");
    await assert.rejects(
      histerTier.read(new URL(`${live.origin}/article`), { url: `${live.origin}/article` }, bad),
      (e) => {
        assert.ok(e instanceof GleanerError);
        assert.equal(e.code, "unauthorized");
        assert.match(e.message, /read\.hister_token/);
        assert.doesNotMatch(e.message, /wrong-token/);
        assert.equal(countsAgainstTier(e), false, "a setup failure is not the origin's");
        return true;
      },
    );
    assert.equal((await bad.reader.read({ url: `${live.origin}/article` })).tier, "http");

    await hister.close();
    const down = fresh(TOKEN);
    await assert.rejects(
      histerTier.read(new URL(VISITED), { url: VISITED }, down),
      (e) =>
        e instanceof GleanerError && e.code === "provider_unavailable" && !countsAgainstTier(e),
    );
    assert.equal((await down.reader.read({ url: `${live.origin}/other` })).tier, "http");
  } finally {
    await hister.close().catch(() => {});
    await live.close();
  }
});
