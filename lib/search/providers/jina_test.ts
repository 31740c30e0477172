import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { GleanerError } from "../../errors.ts";
import { type FakeProviders, withFakeProviders } from "../../../testing/fixtures/fake_providers.ts";
import { createRoleRouter } from "../roles.ts";
import { assertFailureClasses } from "../../../testing/fixtures/provider_checks.ts";
import { jinaProvider } from "./jina.ts";

const KEY = "jina_test_key_321";

Deno.test("jina: the reader gets <base>/<url> as JSON, with the key when set", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ jina: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const out = await jinaProvider.contents!({
      urls: ["https://sqlite.org/wal.html?x=1", "https://a.example/missing"],
    }, env);
    const reads = fakes.requestsOf("jina");
    assert.deepEqual(reads.map((r) => r.path).sort(), [
      "/https://a.example/missing",
      "/https://sqlite.org/wal.html?x=1",
    ]);
    assert.ok(reads.every((r) => r.headers.authorization === `Bearer ${KEY}`));
    assert.ok(reads.every((r) => r.headers.accept === "application/json"));
    assert.equal(out.pages[0].title, "Page https://sqlite.org/wal.html?x=1");
    assert.match(out.pages[0].content, /read by jina/);
    assert.equal(out.pages[0].published, "2024-05-01T10:00:00.000Z");
    assert.equal(out.pages[0].provider_data?.tokens, 42);
    assert.equal(
      out.pages[1].error?.code,
      "provider_unavailable",
      "a page the reader could not load fails alone, not as the caller's mistake",
    );
  });
});

Deno.test("jina: keyless reader when enabled; search with a key asks ?q= without content", async () => {
  await withFakeProviders(async (fakes) => {
    const keyless = parseConfig(fakes.config({}, { providers: { jina: { enabled: true } } }));
    assert.ok(jinaProvider.isConfigured(keyless));
    await jinaProvider.contents!({ urls: ["https://a.example/"] }, {
      config: keyless,
      fetcher: createFetcher(keyless.network),
    });
    assert.equal(fakes.requestsOf("jina")[0].headers.authorization, undefined);
    const config = parseConfig(fakes.config({ jina: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const hits = await jinaProvider.search!({ query: "deno", max_results: 2 }, env);
    const req = fakes.requestsOf("jina")[1];
    assert.equal(req.path, "/");
    assert.deepEqual(req.query, { q: "deno" });
    assert.equal(req.headers["x-respond-with"], "no-content");
    assert.equal(hits.length, 2);
    assert.equal(hits[0].source, "jina");
    assert.equal(
      hits[0].snippet,
      "The default method by which SQLite implements atomic commit; about deno.",
    );
  });
});

/** A router over keyless Jina (reader) and keyed Exa, Jina first in every order. */
function keylessJinaRouter(fakes: FakeProviders, providers: Record<string, unknown> = {}) {
  const config = parseConfig(fakes.config({ exa: "ke" }, {
    search_order: ["jina", "exa"],
    contents_order: ["jina", "exa"],
    providers: { jina: { enabled: true }, ...providers },
  }));
  return { config, roles: createRoleRouter({ config, fetcher: createFetcher(config.network) }) };
}

Deno.test("jina: keyless Jina reads pages but is never asked to search, so its breaker stays closed", async () => {
  await withFakeProviders(async (fakes) => {
    const { config, roles } = keylessJinaRouter(fakes);
    assert.deepEqual(roles.providers("search"), ["exa"], "keyless Jina is no search provider");
    assert.deepEqual(roles.providers("contents"), ["jina", "exa"]);
    const found = await roles.search({ query: "sqlite wal", max_results: 2 });
    assert.equal(found.provider, "exa");
    assert.deepEqual(found.fallback_from, [], "no wasted call to fall back from");
    assert.equal(fakes.requestsOf("jina").length, 0, "Jina's search never got a keyless request");
    // Its reader is still healthy and first in the contents order.
    const read = await roles.contents({ urls: ["https://a.example/page"] });
    assert.equal(read.provider, "jina");
    assert.deepEqual(read.fallback_from, []);
    // Pinned, and called directly, keyless search is refused before sending, naming the key.
    const pinned = await roles.search({ query: "x", max_results: 1, provider: "jina" }).then(
      () => assert.fail("expected a refusal"),
      (e) => e,
    );
    assert.equal(pinned.code, "invalid_arguments");
    assert.match(pinned.message, /search\.providers\.jina\.api_key/);
    const direct = await jinaProvider.search!({ query: "x", max_results: 1 }, {
      config,
      fetcher: createFetcher(config.network),
    }).then(() => assert.fail("expected a refusal"), (e) => e);
    assert.ok(direct instanceof GleanerError && direct.code === "invalid_arguments");
    assert.equal(fakes.requestsOf("jina").length, 1, "only the page read reached Jina");
  });
});

Deno.test("jina: a page the reader refuses (451) is read by the next contents provider; Jina stays healthy", async () => {
  await withFakeProviders(async (fakes) => {
    const { roles } = keylessJinaRouter(fakes);
    // Source of the 451: https://github.com/jina-ai/reader src/api/crawler.ts (domain blockade).
    const both = await roles.contents({
      urls: ["https://abuse.example/post", "https://a.example/page"],
    });
    assert.equal(both.provider, "jina");
    assert.equal(both.pages[0].error, undefined, both.pages[0].error?.message);
    assert.equal(both.pages[0].provider, "exa", "the refused page came from the next provider");
    assert.match(both.pages[0].content, /read by exa/);
    assert.match(both.pages[1].content, /read by jina/);

    const alone = await roles.contents({ urls: ["https://abuse.example/other"] });
    assert.equal(alone.provider, "exa");
    assert.deepEqual(alone.fallback_from, [{ provider: "jina", code: "provider_unavailable" }]);
    assert.deepEqual(alone.attempts.map((a) => [a.backend, a.outcome]), [
      ["jina", "blocked"],
      ["exa", "ok"],
    ]);
    const health = roles.health().find((h) => h.provider === "jina");
    assert.equal(health?.last_code, undefined, "a refused page is no failure of Jina's");
    assert.equal(health?.state, "closed");
  });
});

Deno.test("jina: keyless reading is paced to Jina's 20 requests a minute; past them the next provider reads", async () => {
  await withFakeProviders(async (fakes) => {
    const { roles } = keylessJinaRouter(fakes);
    const ten = (n: number) =>
      Array.from({ length: 10 }, (_, i) => `https://a.example/batch-${n}/page-${i}`);
    for (const n of [1, 2]) {
      const out = await roles.contents({ urls: ten(n) });
      assert.equal(out.provider, "jina");
      assert.ok(out.pages.every((p) => !p.error && !p.provider), `batch ${n} read by Jina`);
    }
    assert.equal(fakes.requestsOf("jina").length, 20);
    const next = await roles.contents({ urls: ["https://a.example/twenty-first"] });
    assert.equal(fakes.requestsOf("jina").length, 20, "the 21st request in a minute is not sent");
    assert.equal(next.provider, "exa");
    assert.deepEqual(next.fallback_from, [{ provider: "jina", code: "rate_limited" }]);
    assert.equal(
      roles.health().find((h) => h.provider === "jina")?.last_code,
      undefined,
      "Gleaner's own pacing is no failure of Jina's",
    );
  });
});

Deno.test("jina: a read may take Jina's documented 30 s, longer than search.timeout_ms; its own setting wins", async () => {
  await withFakeProviders(async (fakes) => {
    fakes.setDelay("jina", 700);
    const read = (providers: Record<string, unknown> = {}) => {
      const config = parseConfig(fakes.config({ jina: KEY }, { timeout_ms: 250, providers }));
      const env = { config, fetcher: createFetcher(config.network) };
      return {
        contents: () => jinaProvider.contents!({ urls: ["https://a.example/slow"] }, env),
        search: () => jinaProvider.search!({ query: "slow", max_results: 1 }, env),
      };
    };
    const out = await read().contents();
    assert.match(out.pages[0].content, /read by jina/, "the slow read was waited for");
    const searchError = await read().search().then(
      () => assert.fail("expected a timeout"),
      (e) => e,
    );
    assert.equal(searchError.code, "timeout", "search keeps search.timeout_ms");
    const ownError = await read({ jina: { timeout_ms: 250 } }).contents().then(
      () => assert.fail("expected a timeout"),
      (e) => e,
    );
    assert.equal(ownError.code, "timeout", "search.providers.jina.timeout_ms wins");
  });
});

Deno.test("jina: every failure class is produced and classified", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ jina: KEY }, {
      providers: { jina: { timeout_ms: 400 } },
    }));
    const env = { config, fetcher: createFetcher(config.network) };
    await assertFailureClasses(
      fakes,
      "jina",
      KEY,
      () => jinaProvider.contents!({ urls: ["https://a.example/"] }, env),
    );
    await assertFailureClasses(
      fakes,
      "jina",
      KEY,
      () => jinaProvider.search!({ query: "x", max_results: 2 }, env),
    );
  });
});
