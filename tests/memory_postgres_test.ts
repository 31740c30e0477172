/**
 * `memory.backend: "postgres"` end to end: two Gleaner instances (as behind
 * a load balancer) share one PostgreSQL store through the memory service;
 * hosted users stay apart across instances; `/config` never shows
 * `memory.postgres_url`. Ignored without PostgreSQL + pgvector, failing
 * instead when GLEANER_REQUIRE_POSTGRES=1 (CI).
 */
import assert from "node:assert/strict";
import { createApp } from "../http/app.ts";
import { configFromEnv, parseConfig, redactConfig } from "../lib/config/config.ts";
import { GleanerError } from "../lib/errors.ts";
import { createGleaner, type Gleaner } from "../lib/gleaner.ts";
import { ignorePostgres, postgresSuffix, startPostgres } from "../testing/fixtures/postgres.ts";

const SECRET = "h".repeat(40);
const TOKEN = "t".repeat(40);

function instance(url: string, hosted = false): Promise<Gleaner> {
  return createGleaner({
    store: { path: ":memory:" },
    memory: {
      backend: "postgres",
      postgres_url: url,
      ...(hosted ? { hosted: true, hosted_hmac_secret: SECRET, hosted_proxy_token: TOKEN } : {}),
    },
  });
}

Deno.test("config: memory.postgres_url comes from the environment and is redacted", () => {
  const url = "postgres://gleaner:pg-pass-123@db.internal:5432/gleaner";
  const config = parseConfig(
    configFromEnv({ GLEANER_MEMORY_BACKEND: "postgres", GLEANER_MEMORY_POSTGRES_URL: url }),
  );
  assert.equal(config.memory.backend, "postgres");
  assert.equal(config.memory.postgres_url, url);
  const shown = JSON.stringify(redactConfig(config));
  assert.ok(!shown.includes("pg-pass-123") && !shown.includes("db.internal"), shown);
  assert.equal(parseConfig({}).memory.backend, "sqlite", "SQLite stays the default");
});

Deno.test("memory.backend postgres without memory.postgres_url is invalid_arguments", async () => {
  const gleaner = await createGleaner({
    store: { path: ":memory:" },
    memory: { backend: "postgres" },
  });
  try {
    await assert.rejects(
      () => gleaner.memories(),
      (e: unknown) =>
        e instanceof GleanerError && e.code === "invalid_arguments" &&
        e.message.includes("memory.postgres_url"),
    );
  } finally {
    await gleaner.close();
  }
});

Deno.test({
  name: `memory on PostgreSQL: instances share one store; hosted users stay apart${postgresSuffix}`,
  ignore: ignorePostgres,
  fn: async (t) => {
    await using server = await startPostgres();
    const url = server.url.replace("postgres@", "postgres:pg-secret-pw@");

    await t.step("a memory saved through one instance is recalled through another", async () => {
      const [a, b] = await Promise.all([instance(url), instance(url)]);
      try {
        const saved = await (await a.memories()).save({
          memories: [
            { content: "The staging deploy key rotates every Monday at 09:00 UTC." },
            { content: "The user prefers answers in metric units.", kind: "profile" },
          ],
        });
        assert.equal(saved.saved, 2, JSON.stringify(saved));
        const recalled = await (await b.memories()).recall({
          query: "when does the staging deploy key rotate",
        });
        assert.equal(recalled.mode, "search");
        assert.equal(recalled.memories[0]?.ref, saved.results[0].ref, JSON.stringify(recalled));
        assert.deepEqual(recalled.profile.map((p) => p.ref), [saved.results[1].ref]);

        // An update through B is what A reads next, with the old version as history.
        const updated = await (await b.memories()).update({
          ref: saved.results[0].ref,
          content: "The staging deploy key rotates every Tuesday at 09:00 UTC.",
        });
        const got = await (await a.memories()).get({ ref: saved.results[0].ref });
        assert.match(got.memory.content, /Tuesday/);
        assert.deepEqual(got.history.map((h) => h.ref), [updated.previous_ref]);
        // A duplicate saved through A is detected against B's write.
        const again = await (await a.memories()).save({
          memories: [{ content: "The staging deploy key rotates every Tuesday at 09:00 UTC." }],
        });
        assert.equal(again.duplicates, 1, JSON.stringify(again));
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    await t.step("hosted: each user is a tenant; users never see each other", async () => {
      const [a, b] = await Promise.all([instance(url, true), instance(url, true)]);
      try {
        const alice = await (await a.forUser("alice").memories()).save({
          memories: [{ content: "alice's launch codename is Bluebird" }],
        });
        const asBob = await (await b.forUser("bob").memories()).recall({
          query: "launch codename Bluebird",
        });
        assert.deepEqual(asBob.memories, []);
        await assert.rejects(
          async () => (await b.forUser("bob").memories()).get({ ref: alice.results[0].ref }),
          (e: unknown) => e instanceof GleanerError && e.code === "not_found",
        );
        const asAlice = await (await b.forUser("alice").memories()).recall({
          query: "launch codename Bluebird",
        });
        assert.equal(asAlice.memories[0]?.ref, alice.results[0].ref);
        await assert.rejects(
          () => a.memories(),
          (e: unknown) => e instanceof GleanerError && e.code === "unauthorized",
        );
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    await t.step("/config masks memory.postgres_url", async () => {
      const gleaner = await instance(url);
      try {
        const res = await createApp(gleaner).request("http://localhost/config");
        const text = await res.text();
        assert.equal(res.status, 200);
        assert.ok(!text.includes("pg-secret-pw") && !text.includes(String(server.port)), text);
        assert.equal(JSON.parse(text).memory.postgres_url, "[redacted]");
      } finally {
        await gleaner.close();
      }
    });
  },
});
