/**
 * The memory file under stress, on real SQLite files: a first-version
 * database upgrades in place, a model change re-embeds in the background,
 * a process killed mid-save leaves none of its batch, and two processes
 * write the same file.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import { createGleaner } from "../mod.ts";
import { listMemories, recallMemories, saveMemories } from "../lib/api.ts";
import { MEMORY_MIGRATIONS } from "../lib/memory/sqlite/migrations.ts";
import { openSqliteMemoryBackend } from "../lib/memory/sqlite/backend.ts";
import { MemoryService } from "../lib/memory/service.ts";
import { memoryTextKey } from "../lib/memory/text.ts";
import { openDatabase, userVersion } from "../lib/store/sqlite.ts";
import { countTokens } from "../lib/text/tokens.ts";
import { createStaticEmbedder } from "../lib/embed/static.ts";
import { serveLoopback } from "../testing/fixtures/serve.ts";

const WRITER = new URL("../lib/memory/testdata/writer.ts", import.meta.url).pathname;

function integrity(path: string): string {
  const db = new DatabaseSync(path);
  try {
    const row = db.prepare("PRAGMA integrity_check").get() as { integrity_check: string };
    // FTS5's own check throws when the index disagrees with the table.
    db.exec("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')");
    return row.integrity_check;
  } finally {
    db.close();
  }
}

Deno.test("a first-version memory file upgrades in place and its memories stay usable", async () => {
  const root = await Deno.makeTempDir();
  const path = `${root}/memory.db`;
  try {
    // Build a version-1 file the way the first release wrote it.
    const v1 = openDatabase(path, { migrations: MEMORY_MIGRATIONS.slice(0, 1) });
    const add = v1.prepare(
      "INSERT INTO memories (ref, content, kind, session_id, created_at, updated_at, embedding_model) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    const contents = [
      "The staging cluster runs on three ARM nodes.",
      "The user prefers metric units.",
      "Backups are verified every Sunday night.",
    ];
    contents.forEach((c, i) =>
      add.run(
        `v1ref00${i}`,
        c,
        i === 1 ? "profile" : "episodic",
        null,
        1_700_000_000_000 + i,
        1_700_000_000_000 + i,
        "static:old-model",
      )
    );
    assert.equal(userVersion(v1), 1);
    v1.close();

    const embedder = await createStaticEmbedder();
    const service = new MemoryService(openSqliteMemoryBackend(path), {
      embedder: () => Promise.resolve(embedder),
    });
    try {
      await service.reembedIdle();
      const backend = service.backend as ReturnType<typeof openSqliteMemoryBackend>;
      assert.equal(userVersion(backend.db), MEMORY_MIGRATIONS.length);
      const listed = await service.list({ sort: "recent" });
      assert.equal(listed.total_count, 3);
      const tokens = backend.db.prepare("SELECT ref, tokens FROM memories ORDER BY id").all() as {
        ref: string;
        tokens: number;
      }[];
      assert.deepEqual(tokens.map((t) => t.tokens), contents.map(countTokens), "tokens backfilled");
      const counts = await backend.counts();
      assert.equal(counts.embedded, 3, "old vectors' model is unknown: re-embedded");
      const hit = await service.recall({ query: "when are backups checked" });
      assert.equal(hit.memories[0].ref, "v1ref002");
      assert.deepEqual(hit.retrievers, ["bm25", "dense"]);
      assert.equal(hit.profile[0].ref, "v1ref001");
      const saved = await service.save({
        memories: [{ content: "New memory after the upgrade." }],
      });
      assert.equal(saved.saved, 1);
      // Old rows got their duplicate keys: the same text is found, another is saved.
      const again = await service.save({
        memories: [
          { content: "  Backups are verified every Sunday night.\n" },
          { content: "Backups are verified every Saturday night." },
          { content: "backups are verified every sunday night" },
        ],
      });
      assert.deepEqual(again.results.map((r) => r.status), ["duplicate", "saved", "saved"]);
      assert.equal(again.results[0].ref, "v1ref002");
    } finally {
      await service.close();
    }
    assert.equal(integrity(path), "ok");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/**
 * The duplicate key of a row as the version-4 rule wrote it: SHA-256 (32 hex
 * characters) of the text lowercased, with edge punctuation dropped. Each
 * `oldForm` below is that rule's output, written out by hand.
 */
function oldKey(oldForm: string): string {
  return createHash("sha256").update(oldForm).digest("hex").slice(0, 32);
}

/** Rows of a version-4 file: [ref, content, session, the old rule's normal form]. */
const V4_ROWS: readonly [string, string, string | null, string][] = [
  ["v4ref000", "Wifi password is HuntEr2", null, "wifi password is hunter2"],
  ["v4ref001", "The door is open.", null, "the door is open"],
  ["v4ref002", "token suffix Xy7Q", "s1", "token suffix xy7q"],
];

Deno.test("a version-4 memory file (keys of the case- and punctuation-blind rule) migrates: case and punctuation variants save, exact repeats do not", async () => {
  const root = await Deno.makeTempDir();
  const path = `${root}/memory.db`;
  const keys = (db: DatabaseSync) =>
    (db.prepare("SELECT content_key FROM memories ORDER BY id").all() as {
      content_key: string;
    }[]).map((r) => r.content_key);
  try {
    // A version-4 file with its rows as that version wrote them.
    const v4 = openDatabase(path, { migrations: MEMORY_MIGRATIONS.slice(0, 4) });
    const add = v4.prepare(
      "INSERT INTO memories (ref, content, kind, session_id, created_at, updated_at, tokens, " +
        "content_key) VALUES (?, ?, 'episodic', ?, ?, ?, ?, ?)",
    );
    V4_ROWS.forEach(([ref, content, session, form], i) =>
      add.run(ref, content, session, 1_700_000_000_000 + i, 1_700_000_000_000 + i, 5, oldKey(form))
    );
    const old = keys(v4);
    assert.deepEqual(old, V4_ROWS.map(([, , , form]) => oldKey(form)));
    // Cut the recomputation short at the last row: the migration fails as a whole.
    v4.exec(`CREATE TRIGGER cut_short BEFORE UPDATE OF content_key ON memories
      WHEN old.ref = 'v4ref002' BEGIN SELECT RAISE(ABORT, 'cut short'); END`);
    v4.close();
    assert.throws(() => openSqliteMemoryBackend(path), /store migration 5/);
    const cut = new DatabaseSync(path);
    assert.equal(userVersion(cut), 4, "still version 4");
    assert.deepEqual(keys(cut), old, "no key half-recomputed");
    cut.exec("DROP TRIGGER cut_short");
    cut.close();

    const service = new MemoryService(openSqliteMemoryBackend(path));
    try {
      const backend = service.backend as ReturnType<typeof openSqliteMemoryBackend>;
      assert.equal(userVersion(backend.db), MEMORY_MIGRATIONS.length);
      assert.deepEqual(keys(backend.db), V4_ROWS.map(([, content]) => memoryTextKey(content)));
      const out = await service.save({
        memories: [
          { content: "Wifi password is hunter2" },
          { content: "Wifi password is HuntEr2" },
          { content: "The door is open?" },
          { content: "  The door is open.\n" },
          { content: "token suffix xy7q", session_id: "s1" },
          { content: "token suffix Xy7Q", session_id: "s1" },
        ],
      });
      assert.deepEqual(
        out.results.map((r) => [r.status, r.status === "duplicate" ? r.ref : ""]),
        [
          ["saved", ""],
          ["duplicate", "v4ref000"],
          ["saved", ""],
          ["duplicate", "v4ref001"],
          ["saved", ""],
          ["duplicate", "v4ref002"],
        ],
      );
      assert.equal((await backend.counts()).live, 6);
    } finally {
      await service.close();
    }
    assert.equal(integrity(path), "ok");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** An OpenAI-compatible embeddings API on loopback: letter histograms, slow on purpose. */
function fakeEmbeddings(delayMs: number) {
  let requests = 0;
  const server = serveLoopback(async (request) => {
    const body = await request.json();
    requests++;
    await new Promise((r) => setTimeout(r, delayMs));
    const data = (body.input as string[]).map((text, index) => {
      const v = new Array(26).fill(0);
      for (const ch of text.toLowerCase()) {
        const c = ch.charCodeAt(0) - 97;
        if (c >= 0 && c < 26) v[c]++;
      }
      return { object: "embedding", index, embedding: v };
    });
    return Response.json({
      object: "list",
      data,
      model: body.model,
      usage: { prompt_tokens: 1, total_tokens: 1 },
    });
  });
  return { ...server, requests: () => requests };
}

Deno.test("changing the embedding model re-embeds in the background; recall keeps working on BM25", async () => {
  const root = await Deno.makeTempDir();
  const api = fakeEmbeddings(60);
  const memory = { path: `${root}/memory.db` };
  try {
    const first = await createGleaner({ store: { path: ":memory:" }, memory });
    const facts = Array.from({ length: 150 }, (_, i) => ({
      content: `Fact ${i}: service ${["alpha", "bravo", "charlie", "delta", "echo"][i % 5]}-${i} ` +
        `is owned by team ${["red", "blue", "green"][i % 3]} and deploys from region ${i % 7}.`,
    }));
    facts.push({ content: "The kitchen espresso machine needs descaling every month." });
    const saved = await saveMemories(first, { memories: facts });
    assert.equal(saved.saved + saved.duplicates, facts.length);
    const staticModel = (await (await first.memories()).backend.embeddingModel())!.model;
    await first.close();

    const second = await createGleaner({
      store: { path: ":memory:" },
      memory,
      network: { allow_private: [api.origin] },
      embed: {
        provider: "openai",
        api_url: `${api.origin}/v1`,
        api_model: "letters-26",
        batch_size: 32,
      },
    });
    try {
      const during = await recallMemories(second, { query: "espresso machine descaling" });
      const notice = during.notices.find((n) => n.code === "reembedding");
      assert.ok(notice, "a notice reports the re-embed");
      assert.equal(notice.total, saved.saved);
      assert.ok(notice.done! < notice.total!);
      assert.match(notice.message, /of \d+ done/);
      assert.deepEqual(during.retrievers, ["bm25"], "BM25 alone while re-embedding");
      assert.match(during.memories[0].content, /espresso/);
      const listed = await listMemories(second, { limit: 1 });
      assert.ok(listed.notices.some((n) => n.code === "reembedding"));

      const service = await second.memories();
      await service.reembedIdle();
      const model = await service.backend.embeddingModel();
      assert.notEqual(model!.model, staticModel);
      assert.equal(model!.dimensions, 26);
      const counts = await service.backend.counts();
      assert.equal(counts.pending, 0);
      assert.equal(counts.embedded, saved.saved);
      const after = await recallMemories(second, { query: "espresso machine descaling" });
      assert.deepEqual(after.retrievers, ["bm25", "dense"]);
      assert.deepEqual(after.notices, []);
      assert.match(after.memories[0].content, /espresso/);
      assert.ok(api.requests() >= Math.ceil(saved.saved / 64));
    } finally {
      await second.close();
    }
  } finally {
    await api.close();
    await Deno.remove(root, { recursive: true });
  }
});

async function readLine(reader: ReadableStreamDefaultReader<string>): Promise<string> {
  let buffer = "";
  while (!buffer.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
  }
  return buffer.trim();
}

function spawnWriter(path: string, label: string, batches: number, size: number, same = false) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--node-modules-dir=manual",
      "-A",
      WRITER,
      path,
      label,
      String(batches),
      String(size),
      ...(same ? ["same"] : []),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stdin = child.stdin.getWriter();
  return {
    child,
    ready: () => readLine(lines),
    go: async () => {
      await stdin.write(new TextEncoder().encode("go\n"));
      await stdin.close();
    },
    done: () => readLine(lines),
    release: () => lines.cancel().catch(() => {}),
  };
}

/** True while another connection holds the write lock (a transaction is open). */
function writeLocked(path: string): boolean {
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA busy_timeout = 0");
    try {
      db.exec("BEGIN IMMEDIATE");
    } catch {
      return true;
    }
    db.exec("ROLLBACK");
    return false;
  } finally {
    db.close();
  }
}

Deno.test("a process killed mid-save leaves the store consistent with none of that batch", async () => {
  const root = await Deno.makeTempDir();
  const path = `${root}/memory.db`;
  try {
    const before = new MemoryService(openSqliteMemoryBackend(path));
    await before.save({ memories: [{ content: "Saved before the crash." }] });
    await before.close();

    const writer = spawnWriter(path, "crash", 1, 60_000);
    assert.equal(await writer.ready(), "ready");
    await writer.go();
    // Wait until the writer holds the write lock: its batch transaction is open.
    let locked = false;
    for (let i = 0; i < 6_000 && !locked; i++) {
      locked = writeLocked(path);
      if (!locked) await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(locked, "the writer started its transaction");
    await new Promise((r) => setTimeout(r, 200)); // let it write a good part of the batch
    writer.child.kill("SIGKILL");
    const status = await writer.child.status;
    await writer.release();
    assert.equal(status.signal, "SIGKILL");

    assert.equal(integrity(path), "ok");
    const after = new MemoryService(openSqliteMemoryBackend(path));
    try {
      const all = await after.list({ limit: 200 });
      assert.deepEqual(all.memories.map((m) => m.preview), ["Saved before the crash."]);
      assert.equal((await after.list({ session_id: "crash" })).total_count, 0);
      const backend = after.backend as ReturnType<typeof openSqliteMemoryBackend>;
      const { n } = backend.db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number };
      assert.equal(n, 1);
      const saved = await after.save({ memories: [{ content: "Saved after the crash." }] });
      assert.equal(saved.saved, 1);
      const hit = await after.recall({ query: "crash" });
      assert.equal(hit.memories.length, 2);
    } finally {
      await after.close();
    }
    assert.equal(integrity(path), "ok");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("two processes writing the same memory file: every batch lands, refs stay unique", async () => {
  const root = await Deno.makeTempDir();
  const path = `${root}/memory.db`;
  try {
    const init = new MemoryService(openSqliteMemoryBackend(path));
    await init.ready();
    await init.close();
    const batches = 20;
    const size = 25;
    const writers = [
      spawnWriter(path, "one", batches, size),
      spawnWriter(path, "two", batches, size),
    ];
    for (const w of writers) assert.equal(await w.ready(), "ready");
    await Promise.all(writers.map((w) => w.go()));
    for (const w of writers) {
      assert.equal(await w.done(), "done");
      assert.equal((await w.child.status).code, 0);
      await w.release();
    }
    assert.equal(integrity(path), "ok");
    const check = new MemoryService(openSqliteMemoryBackend(path));
    try {
      assert.equal((await check.list({ session_id: "one" })).total_count, batches * size);
      assert.equal((await check.list({ session_id: "two" })).total_count, batches * size);
      const backend = check.backend as ReturnType<typeof openSqliteMemoryBackend>;
      const { n, refs } = backend.db.prepare(
        "SELECT count(*) AS n, count(DISTINCT ref) AS refs FROM memories",
      ).get() as { n: number; refs: number };
      assert.equal(n, 2 * batches * size);
      assert.equal(refs, n);
      const hit = await check.recall({ query: "batch 7 item 3", session_id: "two", top_k: 1 });
      assert.match(hit.memories[0].content, /^two batch 7 item 3:/);
    } finally {
      await check.close();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("processes saving the same texts into one memory file at once: each text is stored once", async () => {
  const root = await Deno.makeTempDir();
  const path = `${root}/memory.db`;
  try {
    const init = new MemoryService(openSqliteMemoryBackend(path));
    await init.ready();
    await init.close();
    const batches = 10;
    const size = 25;
    const writers = ["one", "two", "three"].map((label) =>
      spawnWriter(path, label, batches, size, true)
    );
    for (const w of writers) assert.equal(await w.ready(), "ready");
    await Promise.all(writers.map((w) => w.go()));
    let saved = 0;
    for (const w of writers) {
      const [done, count] = (await w.done()).split(" ");
      assert.equal(done, "done");
      saved += Number(count);
      assert.equal((await w.child.status).code, 0);
      await w.release();
    }
    assert.equal(saved, batches * size, "the writers' saved counts add up to the texts");
    assert.equal(integrity(path), "ok");
    const check = new MemoryService(openSqliteMemoryBackend(path));
    try {
      assert.equal((await check.list({ session_id: "shared" })).total_count, batches * size);
    } finally {
      await check.close();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
