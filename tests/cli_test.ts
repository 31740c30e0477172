/** The `gleaner` command as an operator runs it (in process: what it parses, prints and returns). */
import assert from "node:assert/strict";
import { startTestWorld } from "../testing/fixtures/world.ts";
import { gleanerInProcess as gleaner } from "../testing/fixtures/cli.ts";

Deno.test("cli: search, scrape and config print what an operator expects", async () => {
  const world = await startTestWorld();
  try {
    // Independent runs, side by side.
    const [search, scrape, config, bad] = await Promise.all([
      gleaner(["search", "fetch", "api"], world.env),
      gleaner(
        [
          "scrape",
          world.web.url("/pages/002"),
          "--query",
          "bodyUsed",
          "--max-tokens",
          "300",
          "--json",
        ],
        world.env,
      ),
      gleaner(["config"], { ...world.env, GLEANER_API_KEY: "super-secret" }),
      gleaner(["config"], { ...world.env, GLEANER_PORT: "eighty" }),
    ]);
    assert.equal(search.code, 0, search.err);
    assert.ok(search.out.includes(world.web.url("/pages/mozilla-1")));

    assert.equal(scrape.code, 0, scrape.err);
    const out = JSON.parse(scrape.out);
    assert.ok(out.tokens <= 300);
    assert.ok(out.evidence.some((e: { text: string }) => e.text.includes("bodyUsed")));

    assert.equal(config.code, 0, config.err);
    assert.ok(!config.out.includes("super-secret"));
    assert.equal(JSON.parse(config.out).server.api_key, "[redacted]");

    assert.equal(bad.code, 1);
    assert.match(bad.err, /invalid_arguments: config: server\.port/);
  } finally {
    await world.close();
  }
});
