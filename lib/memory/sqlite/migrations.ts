/**
 * Schema migrations of the memory file (its own SQLite file, its own
 * `user_version`). Append new steps at the end; never edit one that shipped.
 * The vector table (`memory_vectors`, sqlite-vec `vec0`) is not created here:
 * its dimensions follow the embedder, so the backend (re)creates it when the
 * model changes.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { countTokens } from "../../text/tokens.ts";
import { memoryTextKey } from "../text.ts";
import type { Migration } from "../../store/migrations.ts";

/** Version 1: memories, the FTS5 index kept in sync by triggers, a key/value meta table. */
const V1_MEMORIES = `
  CREATE TABLE memories (
    id               INTEGER PRIMARY KEY,
    ref              TEXT    NOT NULL UNIQUE,
    content          TEXT    NOT NULL,
    kind             TEXT    NOT NULL CHECK (kind IN ('episodic', 'profile')),
    session_id       TEXT,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    superseded_by    INTEGER REFERENCES memories(id) ON DELETE CASCADE,
    embedding_model  TEXT
  );
  CREATE INDEX memories_live_recent ON memories (created_at DESC, id DESC)
    WHERE superseded_by IS NULL;
  CREATE INDEX memories_live_kind ON memories (kind, created_at DESC)
    WHERE superseded_by IS NULL;
  CREATE INDEX memories_live_session ON memories (session_id, created_at DESC)
    WHERE superseded_by IS NULL;
  CREATE INDEX memories_history ON memories (superseded_by)
    WHERE superseded_by IS NOT NULL;

  CREATE VIRTUAL TABLE memories_fts USING fts5(
    content,
    content = 'memories',
    content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content) VALUES (new.id, new.content);
  END;
  CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.id, old.content);
  END;
  CREATE TRIGGER memories_fts_update AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO memories_fts (rowid, content) VALUES (new.id, new.content);
  END;

  CREATE TABLE memory_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;
`;

/** Version 2: token counts (backfilled with the tokenizer) and recall bookkeeping. */
function v2TokensAndRecalls(db: DatabaseSync): void {
  db.exec(`
    ALTER TABLE memories ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE memories ADD COLUMN recall_count INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE memories ADD COLUMN last_recalled_at INTEGER;
    CREATE INDEX memories_live_stale ON memories (last_recalled_at, created_at)
      WHERE superseded_by IS NULL;
    CREATE INDEX memories_pending ON memories (id)
      WHERE superseded_by IS NULL AND embedding_model IS NULL;
  `);
  const rows = db.prepare("SELECT id, content FROM memories").all() as {
    id: number;
    content: string;
  }[];
  const set = db.prepare("UPDATE memories SET tokens = ? WHERE id = ?");
  for (const row of rows) set.run(countTokens(row.content), row.id);
}

/**
 * Version 3: a log of vector changes (one row per memory whose vector was
 * written or dropped), so that a process holding vectors in memory catches
 * up with another process's writes by reading only what changed. Kept short
 * (the newest few thousand changes); a reader that fell further behind
 * reloads.
 */
const V3_VECTOR_LOG = `
  CREATE TABLE memory_vector_log (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id  INTEGER NOT NULL
  );
`;

/**
 * Version 4: the duplicate check's key (`memoryTextKey`: a hash of the
 * normalised text), back-filled for every row and indexed over live rows, so
 * a save finds a memory that says the same thing by lookup, not by vectors.
 * (It back-fills with today's `memoryTextKey`; version 5 recomputes every
 * key all the same.)
 */
function v4ContentKeys(db: DatabaseSync): void {
  db.exec("ALTER TABLE memories ADD COLUMN content_key TEXT");
  const rows = db.prepare("SELECT id, content FROM memories").all() as {
    id: number;
    content: string;
  }[];
  const set = db.prepare("UPDATE memories SET content_key = ? WHERE id = ?");
  for (const row of rows) set.run(memoryTextKey(row.content), row.id);
  db.exec(`
    CREATE INDEX memories_live_key ON memories (content_key, session_id)
      WHERE superseded_by IS NULL;
  `);
}

/**
 * Version 5: the duplicate check's key recomputed for every row. A duplicate
 * is now the same text after trimming white space (case and punctuation are
 * content); keys written before were hashes of a text lowercased and
 * stripped of edge punctuation, under which "HuntEr2" and "hunter2" shared a
 * key. Runs in the migration's transaction: a run cut short leaves version 4
 * and its keys, and the next open runs it again.
 */
function v5ExactContentKeys(db: DatabaseSync): void {
  const rows = db.prepare("SELECT id, content FROM memories").all() as {
    id: number;
    content: string;
  }[];
  const set = db.prepare("UPDATE memories SET content_key = ? WHERE id = ?");
  for (const row of rows) set.run(memoryTextKey(row.content), row.id);
}

/**
 * Version 6: when what a memory tells happened (`occurred_at`, ms) and who
 * said it (`author`), both optional, an index of each session's live
 * memories in saving order (a recalled turn's neighbours) and one of the
 * authors (the ones a question may name).
 */
const V6_OCCURRED_AT_AUTHOR = `
  ALTER TABLE memories ADD COLUMN occurred_at INTEGER;
  ALTER TABLE memories ADD COLUMN author TEXT;
  CREATE INDEX memories_live_session_order ON memories (session_id, id)
    WHERE superseded_by IS NULL;
  CREATE INDEX memories_live_author ON memories (author)
    WHERE superseded_by IS NULL AND author IS NOT NULL;
`;

/**
 * Every migration of the memory file, in order.
 *
 * @example
 * ```ts
 * import { MEMORY_MIGRATIONS } from "./migrations.ts";
 * console.assert(MEMORY_MIGRATIONS.every((m, i) => m.version === i + 1));
 * ```
 */
export const MEMORY_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "memories, full-text index, meta", up: V1_MEMORIES },
  { version: 2, name: "token counts and recall bookkeeping", up: v2TokensAndRecalls },
  { version: 3, name: "vector change log", up: V3_VECTOR_LOG },
  { version: 4, name: "duplicate check keys", up: v4ContentKeys },
  {
    version: 5,
    name: "duplicate check keys: the text after trimming white space",
    up: v5ExactContentKeys,
  },
  { version: 6, name: "occurred_at, author, session order", up: V6_OCCURRED_AT_AUTHOR },
];
