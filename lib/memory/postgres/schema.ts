/**
 * Schema of the PostgreSQL memory store and its migrations: versioned SQL
 * recorded in `gleaner_memory_migrations`, applied in one transaction under
 * an advisory lock so several Gleaner instances starting together never race.
 *
 * One table holds every user's memories with a `tenant` column (hosted mode:
 * one tenant per user; single-user mode: the empty tenant). Every index
 * starts with `tenant` and every query filters on it.
 *
 * - Full text: `tsv` is a generated `tsvector` (`english` configuration:
 *   stemming and stop words), indexed by GIN on `(tenant, tsv)` (btree_gin),
 *   without a pending list (version 6: a search never reads unmerged entries).
 * - The recall bookkeeping (`recall_count`, `last_recalled_at`, written on
 *   every recall) lives in its own small table `gleaner_memory_recall`
 *   (version 5): a recall writes rows there only, never a new version of a
 *   memory row (whose update would add entries to its GIN and HNSW indexes
 *   whenever it cannot stay on its page), so recalls and saves do not
 *   compete for the memory table's pages.
 * - Vectors: an untyped `vector` column plus `embedding_dims`; one partial
 *   HNSW index (cosine) per dimension count, created on first use
 *   ({@link ensureVectorIndex}), so tenants or models of other sizes coexist.
 *   A save writes its vector to `staged` (version 7), outside every vector
 *   index, and the indexer (`indexer.ts`) moves it into `embedding` later:
 *   a save never waits for an HNSW insert.
 *
 * @module
 */
import type { PgPool, PgQueryable } from "./client.ts";
import { inTransaction } from "./client.ts";
import { memoryTextKey } from "../text.ts";

/** Text search configuration of the `tsv` column and of queries. */
export const TS_CONFIG = "english";

/** Advisory lock class of this store ("glnr"); second key 0: migrations, n > 0: index for n dims. */
const LOCK_CLASS = 0x676c6e72;

/**
 * Advisory lock class of the duplicate check ("glnk"); the second key is a
 * hash of (tenant, session, content key), taken in ascending order.
 */
export const DUPLICATE_LOCK_CLASS = 0x676c6e6b;

/** Rows back-filled per statement by a migration. */
const BACKFILL_BATCH = 1_000;

/** Largest dimension count pgvector's HNSW index takes for `vector`. */
const HNSW_MAX_DIMENSIONS = 2000;

/** One migration: a version and the SQL that brings the schema to it. */
export interface PgMigration {
  /** Version reached (1, 2, …). */
  version: number;
  /** Statements, run in order in the migration transaction (none when only `run` works). */
  sql?: string;
  /** Run after `sql` in the same transaction (back-fills computed in TypeScript). */
  run?: (client: PgQueryable) => Promise<void>;
}

/** Sets `content_key` (see `memoryTextKey`) of every row without one, a batch at a time. */
async function backfillContentKeys(client: PgQueryable): Promise<void> {
  for (;;) {
    const { rows } = await client.query<{ tenant: string; id: string; content: string }>(
      `SELECT tenant, id, content FROM gleaner_memory WHERE content_key IS NULL
       ORDER BY tenant, id LIMIT ${BACKFILL_BATCH}`,
    );
    if (rows.length === 0) return;
    await client.query(
      `UPDATE gleaner_memory g SET content_key = u.key
       FROM unnest($1::text[], $2::bigint[], $3::text[]) AS u(tenant, id, key)
       WHERE g.tenant = u.tenant AND g.id = u.id`,
      [rows.map((r) => r.tenant), rows.map((r) => r.id), rows.map((r) => memoryTextKey(r.content))],
    );
  }
}

/**
 * Recomputes `content_key` (see `memoryTextKey`) of every row, a batch at a
 * time in (tenant, id) order, inside the migration's transaction.
 */
async function recomputeContentKeys(client: PgQueryable): Promise<void> {
  let after: { tenant: string; id: string } | undefined;
  for (;;) {
    const { rows } = await client.query<{ tenant: string; id: string; content: string }>(
      `SELECT tenant, id, content FROM gleaner_memory
       ${after ? "WHERE (tenant, id) > ($1::text, $2::bigint)" : ""}
       ORDER BY tenant, id LIMIT ${BACKFILL_BATCH}`,
      after ? [after.tenant, after.id] : [],
    );
    if (rows.length === 0) return;
    await client.query(
      `UPDATE gleaner_memory g SET content_key = u.key
       FROM unnest($1::text[], $2::bigint[], $3::text[]) AS u(tenant, id, key)
       WHERE g.tenant = u.tenant AND g.id = u.id AND g.content_key IS DISTINCT FROM u.key`,
      [rows.map((r) => r.tenant), rows.map((r) => r.id), rows.map((r) => memoryTextKey(r.content))],
    );
    after = rows[rows.length - 1];
  }
}

/** The migrations, oldest first. Append only. */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    sql: `
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS btree_gin;

CREATE TABLE gleaner_memory_tenant (
  tenant text PRIMARY KEY,
  model text,
  dims integer CHECK (dims > 0)
);

CREATE TABLE gleaner_memory (
  tenant text NOT NULL,
  id bigint GENERATED ALWAYS AS IDENTITY,
  ref text NOT NULL,
  content text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('episodic', 'profile')),
  session_id text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  recall_count integer NOT NULL DEFAULT 0,
  last_recalled_at bigint,
  superseded_by bigint,
  tokens integer NOT NULL,
  embedding_model text,
  embedding_dims integer,
  embedding vector,
  tsv tsvector GENERATED ALWAYS AS (to_tsvector('${TS_CONFIG}'::regconfig, content)) STORED,
  PRIMARY KEY (tenant, id),
  UNIQUE (tenant, ref),
  FOREIGN KEY (tenant, superseded_by) REFERENCES gleaner_memory (tenant, id) ON DELETE CASCADE,
  CHECK ((embedding IS NULL) = (embedding_dims IS NULL)),
  CHECK (embedding IS NULL OR embedding_model IS NOT NULL),
  CHECK (embedding IS NULL OR superseded_by IS NULL)
) WITH (fillfactor = 70);

CREATE INDEX gleaner_memory_recent ON gleaner_memory (tenant, created_at DESC, id DESC)
  WHERE superseded_by IS NULL;
CREATE INDEX gleaner_memory_kind_recent ON gleaner_memory (tenant, kind, created_at DESC, id DESC)
  WHERE superseded_by IS NULL;
CREATE INDEX gleaner_memory_session ON gleaner_memory (tenant, session_id, created_at DESC)
  WHERE superseded_by IS NULL;
CREATE INDEX gleaner_memory_history ON gleaner_memory (tenant, superseded_by)
  WHERE superseded_by IS NOT NULL;
CREATE INDEX gleaner_memory_pending ON gleaner_memory (tenant, id)
  WHERE superseded_by IS NULL AND embedding_model IS NULL;
CREATE INDEX gleaner_memory_fts ON gleaner_memory USING gin (tenant, tsv)
  WHERE superseded_by IS NULL;
`,
  },
  {
    // The duplicate check's key (memoryTextKey: a hash of the normalised
    // text), back-filled for every row, indexed over live rows.
    version: 2,
    sql: `
ALTER TABLE gleaner_memory ADD COLUMN content_key text;
CREATE INDEX gleaner_memory_content_key ON gleaner_memory (tenant, content_key)
  WHERE superseded_by IS NULL;
`,
    run: backfillContentKeys,
  },
  {
    // The duplicate check's key recomputed for every row: a duplicate is now
    // the same text after trimming white space (case and punctuation are
    // content); keys written before hashed a text lowercased and stripped of
    // edge punctuation. Cut short, the transaction leaves version 2 and its
    // keys, and the next start runs it again.
    version: 3,
    run: recomputeContentKeys,
  },
  {
    // When what a memory tells happened and who said it (both optional), and
    // each session's live memories in saving order (a recalled turn's
    // neighbours), and the authors (the ones a question may name).
    version: 4,
    sql: `
ALTER TABLE gleaner_memory ADD COLUMN occurred_at bigint;
ALTER TABLE gleaner_memory ADD COLUMN author text;
CREATE INDEX gleaner_memory_session_order ON gleaner_memory (tenant, session_id, id)
  WHERE superseded_by IS NULL;
CREATE INDEX gleaner_memory_author ON gleaner_memory (tenant, author)
  WHERE superseded_by IS NULL AND author IS NOT NULL;
`,
  },
  {
    // Recall bookkeeping out of the memory rows: a side table keyed like
    // them holds every count and time recorded so far (rows never recalled
    // have none), and the memory table's columns go. Its new pages are
    // filled (the 30% kept free for in-place counter updates is no longer
    // needed). Rows of deleted memories are removed with them (delete).
    version: 5,
    sql: `
CREATE TABLE gleaner_memory_recall (
  tenant text NOT NULL,
  id bigint NOT NULL,
  recall_count integer NOT NULL DEFAULT 0,
  last_recalled_at bigint,
  PRIMARY KEY (tenant, id)
);
INSERT INTO gleaner_memory_recall (tenant, id, recall_count, last_recalled_at)
  SELECT tenant, id, recall_count, last_recalled_at FROM gleaner_memory
  WHERE recall_count <> 0 OR last_recalled_at IS NOT NULL;
ALTER TABLE gleaner_memory DROP COLUMN recall_count, DROP COLUMN last_recalled_at;
ALTER TABLE gleaner_memory SET (fillfactor = 100);
`,
  },
  {
    // The full-text index without its pending list: with fastupdate (the
    // default) saves append their entries to a list of up to 4 MB that every
    // search reads whole until a vacuum merges it; at 200,000 memories a
    // full list made the index part of a recall's BM25 statement 7 ms
    // instead of 0.9 ms (EXPLAIN ANALYZE). Saves now add their entries to
    // the index itself; the list left behind is merged here.
    version: 6,
    sql: `
ALTER INDEX gleaner_memory_fts SET (fastupdate = off);
SELECT gin_clean_pending_list('gleaner_memory_fts'::regclass);
`,
  },
  {
    // Saves that never wait for the HNSW index: a new or changed memory's
    // vector is written to `staged` (outside every vector index) and each
    // instance's indexer moves staged vectors into `embedding` in batches
    // (an HNSW insert is ~90% of a save's cost at 1,000,000 rows). Recall
    // reads staged vectors exactly beside the HNSW result.
    version: 7,
    sql: `
ALTER TABLE gleaner_memory ADD COLUMN staged vector;
CREATE INDEX gleaner_memory_staged ON gleaner_memory (tenant, id) WHERE staged IS NOT NULL;
`,
  },
];

/**
 * Brings the schema up to the newest migration: one transaction, serialised
 * across instances by `pg_advisory_xact_lock`. Returns the version reached.
 */
export async function migratePostgres(pool: PgPool): Promise<number> {
  return await inTransaction(pool, async (c) => {
    await c.query("SELECT pg_advisory_xact_lock($1, 0)", [LOCK_CLASS]);
    await c.query(
      `CREATE TABLE IF NOT EXISTS gleaner_memory_migrations (
         version integer PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await c.query<{ v: number | null }>(
      "SELECT max(version) AS v FROM gleaner_memory_migrations",
    );
    let current = rows[0]?.v ?? 0;
    for (const m of PG_MIGRATIONS) {
      if (m.version <= current) continue;
      if (m.sql) await c.query(m.sql);
      await m.run?.(c);
      await c.query("INSERT INTO gleaner_memory_migrations (version) VALUES ($1)", [m.version]);
      current = m.version;
    }
    return current;
  });
}

/**
 * Name of the HNSW index for vectors of `dims` dimensions.
 *
 * @internal exported for tests only
 */
export function vectorIndexName(dims: number): string {
  return `gleaner_memory_hnsw_${dims}`;
}

/**
 * Creates the partial HNSW index (cosine) for `dims` when missing. Runs on
 * `client` inside the caller's transaction, serialised across instances by
 * an advisory lock. Above {@link HNSW_MAX_DIMENSIONS} there is no index and
 * vector search scans the tenant's rows exactly.
 */
export async function ensureVectorIndex(client: PgQueryable, dims: number): Promise<boolean> {
  if (!Number.isInteger(dims) || dims < 1 || dims > HNSW_MAX_DIMENSIONS) return false;
  const name = vectorIndexName(dims);
  const exists = async () =>
    (await client.query<{ r: string | null }>("SELECT to_regclass($1)::text AS r", [name]))
      .rows[0].r !== null;
  if (await exists()) return true;
  await client.query("SELECT pg_advisory_xact_lock($1, $2)", [LOCK_CLASS, dims]);
  if (await exists()) return true;
  await client.query(
    `CREATE INDEX ${name} ON gleaner_memory
       USING hnsw ((embedding::vector(${dims})) vector_cosine_ops)
       WHERE embedding_dims = ${dims}`,
  );
  return true;
}
