/**
 * `gleaner domains export` / `gleaner domains import`: the domain memory of
 * the SQLite store and of Valkey written to a versioned JSON snapshot and read
 * back, bad entries reported while the others are imported.
 */
import assert from "node:assert/strict";
import { openStore, type Store } from "../lib/store/mod.ts";
import { gleanerInProcess } from "../testing/fixtures/cli.ts";
import { redisRequirement, startRedis } from "../lib/store/testdata/helpers.ts";

const redis = redisRequirement;

/** `gleaner <args>` in process (its arguments, output and exit code are what is tested). */
function gleaner(args: string[], env: Record<string, string>) {
  return gleanerInProcess(args, {
    ...env,
    GLEANER_MEMORY_ENABLED: "false",
    GLEANER_EMBED_PROVIDER: "none",
    GLEANER_LOG_LEVEL: "warning",
    XDG_CONFIG_HOME: "/nonexistent/gleaner-test-config",
  });
}

const ORIGIN = "https://docs.example.com";
const OTHER = "http://127.0.0.1:8080";

async function seed(store: Store): Promise<void> {
  await store.ready();
  for (let i = 0; i < 3; i++) await store.domains.record(ORIGIN, "http", false, "timeout");
  await store.domains.record(ORIGIN, "browser", true);
  await store.domains.setRobots(ORIGIN, "partial");
  await store.domains.setLlmsTxt(ORIGIN, true);
  await store.domains.noteSeenInSearch([`${ORIGIN}/guide`]);
  await store.domains.noteCapabilities(ORIGIN, {
    page: { json_ld_article: true, og_title: false },
    metadata_fetch: true,
    llms_full_txt_bytes: 5120,
    preferred_strategy: "browser",
  });
  await store.domains.record(OTHER, "http", true, undefined, { policy: "p1" });
}

async function roundTrip(
  source: Record<string, string>,
  target: Record<string, string>,
  open: (env: Record<string, string>) => Store,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/domains.json`;
  try {
    const from = open(source);
    await seed(from);
    const expected = [await from.domains.get(ORIGIN), await from.domains.get(OTHER)];
    await from.close();
    assert.ok(expected[0]?.tiers.http.skipped_until, "the seed put http on probation");
    assert.equal(expected[0]?.seen_in_search?.count, 1);
    assert.equal(expected[0]?.capabilities?.preferred_strategy?.tier, "browser");

    const exported = await gleaner(["domains", "export", file], source);
    assert.equal(exported.code, 0, exported.err);
    assert.match(exported.out, /exported 2 origins/);
    const snapshot = JSON.parse(await Deno.readTextFile(file));
    assert.equal(snapshot.format, "gleaner-domain-memory");
    assert.equal(snapshot.version, 1);
    assert.deepEqual(snapshot.origins.map((o: { origin: string }) => o.origin), [OTHER, ORIGIN]);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);

    // Three bad entries among the good ones: reported, the others imported.
    snapshot.origins.push(
      { origin: "ftp://files.example.com", days: [] },
      {
        origin: "https://bad.example.com",
        days: [{ day: 1, tier: "http", attempts: -1, successes: 0, failures: 0 }],
      },
      { origin: "https://extra.example.com", surprise: true },
    );
    await Deno.writeTextFile(file, JSON.stringify(snapshot));
    const imported = await gleaner(["domains", "import", file, "--json"], target);
    assert.equal(imported.code, 0, imported.err);
    const report = JSON.parse(imported.out);
    assert.equal(report.imported, 2);
    assert.deepEqual(
      report.failed.map((f: { index: number; error: { code: string } }) => [f.index, f.error.code]),
      [[2, "invalid_arguments"], [3, "invalid_arguments"], [4, "invalid_arguments"]],
    );
    assert.match(report.failed[0].error.message, /ftp:\/\/files\.example\.com/);
    assert.match(report.failed[1].error.message, /days\.0\.attempts/);
    assert.match(report.failed[2].error.message, /surprise/);

    const to = open(target);
    await to.ready();
    try {
      assert.deepEqual(await to.domains.get(ORIGIN), expected[0]);
      assert.deepEqual(await to.domains.get(OTHER), expected[1]);
      // The restored probation is in force: the cascade would put http off.
      assert.ok(await to.domains.shouldSkip(ORIGIN, "http"));
      assert.equal(await to.domains.get("https://bad.example.com"), undefined);
    } finally {
      await to.close();
    }

    // A file of another version is refused whole, naming the field.
    await Deno.writeTextFile(file, JSON.stringify({ ...snapshot, version: 2 }));
    const refused = await gleaner(["domains", "import", file], target);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /invalid_arguments: snapshot version 2 is not supported/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("domains export/import: SQLite store round trip, bad entries reported", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await roundTrip(
      { GLEANER_STORE_PATH: `${dir}/a.db` },
      { GLEANER_STORE_PATH: `${dir}/b.db` },
      (env) => openStore({ path: env.GLEANER_STORE_PATH }),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: `domains export/import: Valkey round trip between two servers${redis.suffix}`,
  ignore: redis.ignore,
  async fn() {
    redis.assertPresent();
    const [a, b] = await Promise.all([startRedis(), startRedis()]);
    try {
      await roundTrip(
        { GLEANER_STORE_PATH: ":memory:", GLEANER_STORE_CACHE_URL: a.url },
        { GLEANER_STORE_PATH: ":memory:", GLEANER_STORE_CACHE_URL: b.url },
        (env) => openStore({ path: ":memory:", cache_url: env.GLEANER_STORE_CACHE_URL }),
      );
    } finally {
      await a.stop();
      await b.stop();
    }
  },
});
