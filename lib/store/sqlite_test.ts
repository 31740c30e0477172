import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { configure, type LogRecord, reset } from "@logtape/logtape";
import { GleanerError } from "../errors.ts";
import { SqliteDomainStats } from "./domain_stats.ts";
import { type Migration, MIGRATIONS } from "./migrations.ts";
import { storeModes } from "./file_mode.ts";
import { defaultDatabasePath, migrate, openDatabase, transaction, userVersion } from "./sqlite.ts";

function tables(db: DatabaseSync): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
    name: string;
  }[]).map((r) => r.name);
}

Deno.test("openDatabase creates the file 0600 in a 0700 directory, WAL on", async () => {
  const root = await Deno.makeTempDir();
  try {
    const path = `${root}/a/b/gleaner.db`;
    const db = openDatabase(path);
    db.exec("CREATE TABLE probe (x)"); // forces the WAL file into existence
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(`${root}/a/b`)).mode! & 0o777, 0o700);
    assert.equal((await Deno.stat(`${path}-wal`)).mode! & 0o777, 0o600);
    const mode = db.prepare("PRAGMA journal_mode").get() as { journal_mode: string };
    assert.equal(mode.journal_mode, "wal");
    const busy = db.prepare("PRAGMA busy_timeout").get() as Record<string, number>;
    assert.ok(Object.values(busy)[0] > 0);
    db.close();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("migrations are applied once and are idempotent across reopenings", async () => {
  const root = await Deno.makeTempDir();
  try {
    const path = `${root}/gleaner.db`;
    const db = openDatabase(path);
    assert.equal(userVersion(db), MIGRATIONS.length);
    for (
      const t of ["cache_entries", "cache_totals", "origin_daily", "origin_info", "embeddings"]
    ) {
      assert.ok(tables(db).includes(t), t);
    }
    const again = migrate(db);
    assert.deepEqual(again, { from: MIGRATIONS.length, to: MIGRATIONS.length, applied: [] });
    db.prepare(
      "INSERT INTO origin_info (origin, host) VALUES ('https://kept.example', 'kept.example')",
    ).run();
    db.close();

    const reopened = openDatabase(path);
    assert.equal(userVersion(reopened), MIGRATIONS.length);
    const n = reopened.prepare("SELECT COUNT(*) AS n FROM origin_info").get() as { n: number };
    assert.equal(n.n, 1);
    reopened.close();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a schema-1 file upgrades in place: cache kept, host-keyed domain memory replaced by origins", async () => {
  const root = await Deno.makeTempDir();
  try {
    const path = `${root}/old.db`;
    const old = openDatabase(path, { migrations: MIGRATIONS.slice(0, 1) });
    assert.equal(userVersion(old), 1);
    old.prepare(
      "INSERT INTO cache_entries VALUES ('pages', 'k', '\"v\"', 3, 1, 1)",
    ).run();
    // What the old code left after 10 refused requests: a host "skipped" for 30 days.
    old.prepare(
      "INSERT INTO domain_daily VALUES ('127.0.0.1', 'http', 20000, 10, 0, 10)",
    ).run();
    old.close();

    const db = openDatabase(path);
    assert.equal(userVersion(db), MIGRATIONS.length);
    assert.ok(!tables(db).includes("domain_daily"));
    assert.ok(tables(db).includes("origin_tiers"));
    const cached = db.prepare("SELECT value FROM cache_entries WHERE key = 'k'").get() as {
      value: string;
    };
    assert.equal(cached.value, '"v"');
    const stats = new SqliteDomainStats(db);
    assert.equal(await stats.shouldSkip("http://127.0.0.1", "http"), false);
    await stats.record("http://127.0.0.1:8080", "http", true);
    assert.equal((await stats.get("http://127.0.0.1:8080"))?.successes, 1);
    db.close();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a failing migration rolls back entirely and keeps the previous version", () => {
  const steps: Migration[] = [
    { version: 1, name: "one", up: "CREATE TABLE one (x)" },
    {
      version: 2,
      name: "two",
      up: (db) => {
        db.exec("CREATE TABLE two (x)");
        db.exec("INSERT INTO one VALUES (1)");
        throw new Error("boom");
      },
    },
  ];
  const db = new DatabaseSync(":memory:");
  assert.throws(() => migrate(db, steps), GleanerError);
  assert.equal(userVersion(db), 1);
  assert.deepEqual(tables(db), ["one"]);
  const rows = db.prepare("SELECT COUNT(*) AS n FROM one").get() as { n: number };
  assert.equal(rows.n, 0);
  // Fixed migration list applies the rest.
  const fixed: Migration[] = [steps[0], { version: 2, name: "two", up: "CREATE TABLE two (x)" }];
  assert.deepEqual(migrate(db, fixed), { from: 1, to: 2, applied: [2] });
  db.close();
});

Deno.test("a file from a newer schema is refused, gaps in versions are refused", () => {
  const db = new DatabaseSync(":memory:");
  db.exec(`PRAGMA user_version = ${MIGRATIONS.length + 5}`);
  assert.throws(() => migrate(db), (e) => e instanceof GleanerError && e.code === "internal");
  db.close();
  const db2 = new DatabaseSync(":memory:");
  assert.throws(() => migrate(db2, [{ version: 2, name: "gap", up: "SELECT 1" }]), GleanerError);
  db2.close();
});

Deno.test("transaction commits on return and rolls back on throw", () => {
  const db = openDatabase(":memory:");
  db.exec("CREATE TABLE t (x)");
  transaction(db, () => db.exec("INSERT INTO t VALUES (1)"));
  assert.throws(() =>
    transaction(db, () => {
      db.exec("INSERT INTO t VALUES (2)");
      throw new Error("no");
    })
  );
  const rows = db.prepare("SELECT x FROM t").all() as { x: number }[];
  assert.deepEqual(rows.map((r) => r.x), [1]);
  assert.equal(db.isTransaction, false);
  db.close();
});

Deno.test("defaultDatabasePath follows XDG_DATA_HOME, then HOME", () => {
  assert.equal(defaultDatabasePath({ XDG_DATA_HOME: "/x/" }), "/x/gleaner/gleaner.db");
  assert.equal(defaultDatabasePath({ HOME: "/home/u" }), "/home/u/.local/share/gleaner/gleaner.db");
  assert.throws(() => defaultDatabasePath({}), GleanerError);
});

Deno.test("an unopenable path fails with invalid_arguments naming store.path", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${root}/file`, "x");
    assert.throws(
      () => openDatabase(`${root}/file/sub/gleaner.db`),
      (e) =>
        e instanceof GleanerError && e.code === "invalid_arguments" &&
        e.message.includes("store.path"),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** Runs `fn` with Gleaner's warnings captured (as the CLI's sink would print them). */
async function withWarnings(fn: (warnings: string[]) => Promise<void> | void): Promise<void> {
  const warnings: string[] = [];
  await configure({
    reset: true,
    sinks: {
      capture: (r: LogRecord) => {
        if (r.level === "warning") warnings.push(r.message.map(String).join(""));
      },
    },
    loggers: [
      { category: ["gleaner"], lowestLevel: "warning", sinks: ["capture"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: ["capture"] },
    ],
  });
  try {
    await fn(warnings);
  } finally {
    await reset();
  }
}

Deno.test({
  name: "openDatabase tightens a store file and folder that others can reach, one warning each",
  ignore: Deno.build.os === "windows",
  fn: () =>
    withWarnings(async (warnings) => {
      const root = await Deno.makeTempDir();
      try {
        const dir = `${root}/data`;
        const path = `${dir}/gleaner.db`;
        openDatabase(path).close();
        Deno.chmodSync(dir, 0o755);
        Deno.chmodSync(path, 0o644);
        Deno.writeFileSync(`${path}-wal`, new Uint8Array(), { mode: 0o644 });
        Deno.chmodSync(`${path}-wal`, 0o664);
        warnings.length = 0;

        const db = openDatabase(path);
        assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
        assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
        assert.equal(Deno.statSync(`${path}-wal`).mode! & 0o777, 0o600);
        db.close();
        assert.equal(warnings.length, 3, warnings.join("\n"));
        assert.ok(warnings.some((w) => w.includes(dir) && /0755.*0700/.test(w)), warnings[0]);
        assert.ok(warnings.some((w) => w.includes(`${path} had`) && /0644.*0600/.test(w)));
        assert.ok(warnings.some((w) => w.includes(`${path}-wal`) && /0664.*0600/.test(w)));

        // Tight already: nothing to say.
        warnings.length = 0;
        openDatabase(path).close();
        assert.deepEqual(warnings, []);
      } finally {
        await Deno.remove(root, { recursive: true });
      }
    }),
});

Deno.test({
  name: "a shared folder (sticky bit) is left as it is; the file in it is still tightened",
  ignore: Deno.build.os === "windows",
  fn: () =>
    withWarnings(async (warnings) => {
      const root = await Deno.makeTempDir();
      try {
        Deno.chmodSync(root, 0o1777);
        const path = `${root}/gleaner.db`;
        Deno.writeFileSync(path, new Uint8Array(), { mode: 0o644 });
        Deno.chmodSync(path, 0o644);
        openDatabase(path).close();
        assert.equal(Deno.statSync(root).mode! & 0o7777, 0o1777);
        assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
        assert.equal(warnings.length, 1, warnings.join("\n"));
        const modes = storeModes(path, { tighten: false });
        const folder = modes.find((m) => m.kind === "folder");
        assert.equal(folder?.loose, true);
        assert.match(folder?.left ?? "", /sticky/);
      } finally {
        await Deno.remove(root, { recursive: true });
      }
    }),
});
