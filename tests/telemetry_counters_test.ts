/**
 * OpenTelemetry counters: cache hits and misses by namespace and each reading tier's outcome,
 * exported to the loopback OTLP collector (`testing/fixtures/otlp.ts`) by a Gleaner that reads
 * and searches the test world twice.
 */
import assert from "node:assert/strict";
import { createGleaner } from "../lib/gleaner.ts";
import { initTelemetry, shutdownTelemetry } from "../lib/telemetry/mod.ts";
import { startOtlpCollector } from "../testing/fixtures/otlp.ts";
import { startTestWorld } from "../testing/fixtures/world.ts";

Deno.test("telemetry: gleaner.cache.hits / misses by namespace and gleaner.read.tier.outcomes per tier", async () => {
  await using collector = startOtlpCollector();
  const world = await startTestWorld();
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.origin, OTEL_TRACES_EXPORTER: "none" };
  const started = await initTelemetry(env);
  assert.equal(started.enabled, true);
  const gleaner = await createGleaner(world.config, { env });
  try {
    const url = world.web.url("/pages/002");
    assert.equal((await gleaner.reader.read({ url })).tier, "http");
    assert.equal((await gleaner.reader.read({ url })).tier, "cache");
    await gleaner.search.search({ query: "request body consumed", max_results: 3 });
    await gleaner.search.search({ query: "request body consumed", max_results: 3 });
    await assert.rejects(gleaner.reader.read({ url: world.web.url("/no-such-page") }));
  } finally {
    await gleaner.close();
    await shutdownTelemetry();
    await world.close();
  }
  const hits = collector.sums("gleaner.cache.hits");
  const misses = collector.sums("gleaner.cache.misses");
  assert.equal(misses.get("gleaner.cache.namespace=pages"), 2, "the first read and the 404");
  assert.equal(hits.get("gleaner.cache.namespace=pages"), 1, "the second read");
  assert.ok((misses.get("gleaner.cache.namespace=search") ?? 0) >= 1, "the first search");
  assert.ok((hits.get("gleaner.cache.namespace=search") ?? 0) >= 1, "the second search");
  const outcomes = collector.sums("gleaner.read.tier.outcomes");
  assert.equal(outcomes.get("gleaner.read.result=page,gleaner.tier=http"), 1, [...outcomes].join());
  assert.equal(outcomes.get("gleaner.read.result=not_found,gleaner.tier=http"), 1);
});
