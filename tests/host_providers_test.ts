/**
 * A host's own providers through the library: `createGleaner(…, { providers })` and
 * `gleaner.withProviders(…)` put them in the role router's fallback, breaker and search cache
 * beside the built-in ones (fake upstreams on loopback, real SQLite cache); `roleToolName`
 * names the role tools.
 */
import assert from "node:assert/strict";
import { createGleaner, GleanerError, type Provider, roleToolName } from "../mod.ts";
import { withFakeProviders } from "../testing/fixtures/fake_providers.ts";
import { SearchFailure } from "../lib/net/upstream_failure.ts";

/** A host provider that answers from memory, or fails as an outage `failures` times first. */
function hostProvider(name: string, state: { calls: number; failures: number }): Provider {
  return {
    name,
    title: "Host index",
    scope: "shared",
    roles: ["search", "answer"],
    configHint: "the host's own index",
    isConfigured: () => true,
    search(req) {
      state.calls++;
      if (state.failures > 0) {
        state.failures--;
        return Promise.reject(
          new SearchFailure("unavailable", `${name}: down`, { backend: name }),
        );
      }
      return Promise.resolve([{
        title: `Host result for ${req.query}`,
        url: "https://intranet.example/wal",
        snippet: "From the host's own index.",
        source: name,
      }]);
    },
    answer(req) {
      state.calls++;
      return Promise.resolve({ answer: `Host answer to ${req.query}`, citations: [] });
    },
    tools: [],
  };
}

Deno.test("host providers: they answer first, fall back to the built-in ones, cool down and are cached", async () => {
  await withFakeProviders(async (fakes) => {
    const state = { calls: 0, failures: 0 };
    const gleaner = await createGleaner(
      { embed: { provider: "none" }, ...fakes.config({ exa: "ke" }) },
      { providers: [hostProvider("intranet", state)] },
    );
    try {
      assert.deepEqual(gleaner.roles.providers("search").slice(0, 2), ["intranet", "exa"]);
      const first = await gleaner.roles.search({ query: "wal mode", max_results: 3 });
      assert.equal(first.provider, "intranet");
      assert.equal(first.results[0].url, "https://intranet.example/wal");
      // The search cache holds the host's answer like any other.
      const again = await gleaner.roles.search({ query: "wal mode", max_results: 3 });
      assert.equal(again.cached, true);
      assert.equal(state.calls, 1);
      // An outage falls back to the next provider; three in a row open its breaker.
      state.failures = 3;
      for (const query of ["a", "b", "c"]) {
        const out = await gleaner.roles.search({ query, max_results: 2 });
        assert.equal(out.provider, "exa");
        assert.deepEqual(out.fallback_from[0], {
          provider: "intranet",
          code: "provider_unavailable",
        });
      }
      const calls = state.calls;
      const cooled = await gleaner.roles.search({ query: "d", max_results: 2 });
      assert.equal(state.calls, calls, "cooling down: not asked");
      assert.deepEqual(cooled.fallback_from[0], {
        provider: "intranet",
        code: "provider_unavailable",
        skipped: true,
      });
      // Pinned like any provider, and through Gleaner's own `search` tool too.
      const answer = await gleaner.roles.answer({ query: "q", provider: "intranet" });
      assert.equal(answer.answer, "Host answer to q");
    } finally {
      await gleaner.close();
    }
  });
});

Deno.test("host providers: withProviders is a view over the same router; names are checked", async () => {
  await withFakeProviders(async (fakes) => {
    const gleaner = await createGleaner({
      embed: { provider: "none" },
      ...fakes.config({ exa: "ke" }),
    });
    try {
      const state = { calls: 0, failures: 0 };
      const view = gleaner.withProviders([hostProvider("wiki_mirror", state)]);
      assert.ok(!gleaner.roles.providers("search").includes("wiki_mirror"));
      assert.equal(view.roles.providers("search")[0], "wiki_mirror");
      const found = await view.search.search({ query: "wal", max_results: 2 });
      assert.equal(found.results[0].source, "wiki_mirror");
      assert.ok(view.roles.configured().some((p) => p.name === "wiki_mirror"));
      for (const name of ["exa", "Bad Name"]) {
        assert.throws(
          () => gleaner.withProviders([hostProvider(name, state)]),
          (e: unknown) => e instanceof GleanerError && e.code === "invalid_arguments",
        );
      }
    } finally {
      await gleaner.close();
    }
  });
});

Deno.test("roleToolName: the tool of each role", () => {
  assert.equal(roleToolName("search"), "web_search_tool");
  assert.equal(roleToolName("answer"), "web_answer_tool");
  assert.equal(roleToolName("contents"), "web_contents_tool");
  assert.throws(() => roleToolName("nope" as never), GleanerError);
});
