import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { withFakeProviders } from "../../../testing/fixtures/fake_providers.ts";
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

Deno.test("jina: keyless reader when enabled; search asks ?q= without content", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({}, { providers: { jina: { enabled: true } } }));
    assert.ok(jinaProvider.isConfigured(config));
    const env = { config, fetcher: createFetcher(config.network) };
    await jinaProvider.contents!({ urls: ["https://a.example/"] }, env);
    assert.equal(fakes.requestsOf("jina")[0].headers.authorization, undefined);
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
