/**
 * The PostgreSQL memory backend: the same {@link MemoryBackend} as SQLite,
 * on PostgreSQL 15+ with pgvector, so many stateless Gleaner instances can
 * share one memory store.
 *
 * - Hosted mode: one table for every user, a `tenant` column first in every
 *   index, and `tenant = $1` in every statement ({@link PostgresMemoryDatabase.backend}).
 * - Lexical: `tsvector` (`english`: stemming, stop words) + GIN, ranked by
 *   BM25 (k1 1.2, b 0.75) computed in SQL (not `ts_rank_cd`, which has no
 *   IDF): term frequency from `ts_rank_cd` of each single-term query,
 *   document length from the content's tokens, N = the tenant's live
 *   memories, document frequency counted over the matched rows (or the
 *   planner's lexeme frequency, when larger). Work is bounded: the match is
 *   the OR of the rarest query terms (planner statistics) until about
 *   max(1,000, 20·k) rows are expected; more common terms only score those
 *   rows, and the newest rows matching any term fill in below k.
 * - Dense: `vector` + one partial HNSW index (cosine) per dimension count;
 *   iterative scans keep filtered searches from coming back short. A tenant
 *   with few memories among many tenants' is scanned exactly through its own
 *   rows instead (the shared graph would walk mostly other tenants' entries).
 *   Saves write their vectors to `staged`, which the database's
 *   {@link VectorIndexer} moves into the index in the background; vector
 *   search reads the tenant's newest staged vectors exactly beside it.
 * - Candidates are top-k per retriever (LIMIT in SQL), never the whole table.
 *
 * Permissions: net access to the PostgreSQL server; nothing on disk.
 *
 * @module
 */
import { GleanerError } from "../../errors.ts";
import {
  inTransaction,
  openPgPool,
  type PgClient,
  pgError,
  type PgPool,
  type PgQueryable,
} from "./client.ts";
import { DUPLICATE_LOCK_CLASS, ensureVectorIndex, migratePostgres, TS_CONFIG } from "./schema.ts";
import { VectorIndexer } from "./indexer.ts";
import { listSearchWords, memoryTextKey, normalizeMemoryText, scopeKey } from "../text.ts";
import {
  type InsertedMemory,
  isoTime,
  type Memory,
  type MemoryBackend,
  type MemoryCandidate,
  type MemoryCounts,
  type MemoryKind,
  type MemoryListPage,
  type MemoryListQuery,
  type MemoryScope,
  type MemoryUpdate,
  type MemoryUpdateResult,
  type NewMemoryRow,
  newRef,
  type PendingEmbedding,
  type SessionNeighbours,
} from "../types.ts";

/** Options of {@link openPostgresMemory} and {@link PostgresMemoryDatabase.open}. */
export interface PostgresMemoryOptions {
  /** `memory.postgres_url` (a secret: never logged or echoed). */
  url: string;
  /** Most pooled connections per process (default 10). */
  maxConnections?: number;
  /** HNSW candidate list size (`hnsw.ef_search`, default 100). */
  efSearch?: number;
}

/** Most query lexemes used for ranking (longer queries keep the first ones). */
const MAX_TERMS = 64;
/** Draws of a fresh ref before giving up (a clash is ~n / 2^40). */
const REF_TRIES = 8;
/** A lexical match stops widening to more common terms once this many rows are expected. */
const WIDEN_ROWS = 1_000;
/** When even the rarest query term is this common, only this many newest matching rows are ranked. */
const MAX_MATCH = 5_000;
/** When the rarest terms find fewer than k rows, this many newest rows matching any term are ranked too. */
const FALLBACK_ROWS = 2_000;
/**
 * A tenant with at most this many live memories, holding under
 * {@link EXACT_SCAN_SHARE} of the table, is searched exactly (its rows read
 * through its own index) instead of through the table-wide HNSW graph, which
 * would walk about k / share entries of other tenants to find k of its own.
 */
const EXACT_SCAN_ROWS = 20_000;
/** See {@link EXACT_SCAN_ROWS}. */
const EXACT_SCAN_SHARE = 0.1;
/**
 * The full-text index is on `(tenant, tsv)`, and reading a tenant's key means
 * reading that tenant's whole posting list (at 1,000,000 memories of one
 * tenant: 371 index pages, 4.2 ms, for every search). Reading a matched row
 * of another tenant from the table costs about 350 times as much as one entry
 * of that list (1.5 µs against 4.2 ns, `EXPLAIN (ANALYZE, BUFFERS)` on the
 * bench's store). So the tenant is an index key only when the rows of other
 * tenants expected to match exceed this share of the tenant's live rows;
 * otherwise it is a filter on the matched rows.
 */
const TENANT_KEY_BREAK_EVEN = 1 / 350;
/**
 * Vector search reads at most this many of a tenant's newest staged vectors
 * (saved, not yet indexed) exactly: while a burst of saves runs ahead of the
 * indexer, older staged memories are found by BM25 only until indexed. A
 * full window costs about 9 ms a search (5,000 heap rows; at 1,000,000
 * memories vector search p50 9.5 ms with nothing staged, 18.3 ms with 5,000).
 */
const STAGED_SCAN_ROWS = 5_000;
/** How long the planner's lexeme frequencies are reused (ms). */
const STATS_TTL = 300_000;
/** BM25 parameters. */
const K1 = 1.2;
const B = 0.75;

/** Columns of a memory row in `gleaner_memory` (the recall bookkeeping is in `gleaner_memory_recall`). */
const BASE_COLS = [
  "id",
  "ref",
  "content",
  "kind",
  "session_id",
  "created_at",
  "updated_at",
  "superseded_by",
  "tokens",
  "embedding_model",
  "occurred_at",
  "author",
];

/**
 * The select list of a memory read from `gleaner_memory` as `t`: its columns
 * and its recall bookkeeping from the side table (two primary-key probes).
 */
function cols(t = "gleaner_memory"): string {
  const side = `FROM gleaner_memory_recall r WHERE r.tenant = ${t}.tenant AND r.id = ${t}.id`;
  return `${BASE_COLS.map((c) => `${t}.${c}`).join(", ")}, ` +
    `coalesce((SELECT r.recall_count ${side}), 0) AS recall_count, ` +
    `(SELECT r.last_recalled_at ${side}) AS last_recalled_at`;
}

/** The select list of a row just written, without its bookkeeping (filled in by the caller). */
const WRITTEN_COLS = `${BASE_COLS.join(", ")}, 0 AS recall_count, NULL::bigint AS last_recalled_at`;

/** The select list of a memory read from `gleaner_memory` without an alias. */
const COLS = cols();

interface Row {
  id: string | number;
  ref: string;
  content: string;
  kind: MemoryKind;
  session_id: string | null;
  created_at: string | number;
  updated_at: string | number;
  recall_count: number;
  last_recalled_at: string | number | null;
  superseded_by: string | number | null;
  tokens: number;
  embedding_model: string | null;
  occurred_at: string | number | null;
  author: string | null;
}

function toMemory(r: Row): Memory {
  return {
    id: Number(r.id),
    ref: r.ref,
    content: r.content,
    kind: r.kind,
    session_id: r.session_id,
    created_at: isoTime(Number(r.created_at)),
    updated_at: isoTime(Number(r.updated_at)),
    recall_count: Number(r.recall_count),
    last_recalled_at: r.last_recalled_at === null ? null : isoTime(Number(r.last_recalled_at)),
    superseded_by: r.superseded_by === null ? null : Number(r.superseded_by),
    tokens: Number(r.tokens),
    embedding_model: r.embedding_model,
    occurred_at: r.occurred_at === null ? null : isoTime(Number(r.occurred_at)),
    author: r.author,
  };
}

/** pgvector's text form of a vector. */
function vectorText(v: Float32Array): string {
  return `[${Array.from(v).join(",")}]`;
}

/**
 * What is stored for a vector: its text form, or `""` for an all-zero vector
 * (the row counts as embedded but holds no vector: cosine would be NaN).
 */
function storedVector(v: Float32Array): string {
  return v.some((x) => x !== 0) ? vectorText(v) : "";
}

/** A lexeme as a quoted tsquery operand (no operator in user text survives). */
function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

function checkVector(v: Float32Array, dims: number, field: string): void {
  if (v.length !== dims) {
    throw new GleanerError(
      "invalid_arguments",
      `${field} has ${v.length} dimensions; the memory store holds ${dims}`,
    );
  }
  for (const x of v) {
    if (!Number.isFinite(x)) {
      throw new GleanerError("invalid_arguments", `${field} has a non-finite component`);
    }
  }
}

function checkContent(content: string, field: string): void {
  if (content.includes("\0")) {
    throw new GleanerError(
      "invalid_arguments",
      `${field} contains a NUL character, which PostgreSQL text cannot hold`,
    );
  }
}

/** Checks the content and kind of rows to insert. */
function checkRows(rows: NewMemoryRow[]): void {
  rows.forEach((r, i) => {
    checkContent(r.content, `memories[${i}].content`);
    checkKind(r.kind, `memories[${i}].kind`);
  });
}

function checkKind(kind: unknown, field: string): void {
  if (kind !== "episodic" && kind !== "profile") {
    throw new GleanerError("invalid_arguments", `${field} must be "episodic" or "profile"`);
  }
}

/** `id` when it can name a row, else undefined (no row has it). */
function rowId(id: unknown): number | undefined {
  return typeof id === "number" && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** Appends the scope filters to `where`, binding values into `params`. */
function addScope(scope: MemoryScope, where: string[], params: unknown[]): void {
  if (scope.kind !== undefined) {
    checkKind(scope.kind, "kind");
    where.push(`kind = $${params.push(scope.kind)}`);
  }
  if (scope.session_id === null) where.push("session_id IS NULL");
  else if (scope.session_id !== undefined) {
    where.push(`session_id = $${params.push(String(scope.session_id))}`);
  }
}

/** Lexeme frequencies: listed lexemes, and the frequency every unlisted one is below. */
interface LexemeStats {
  freq: Map<string, number>;
  floor: number;
  /** Rows of the whole table (every tenant), as the planner last counted them. */
  rows: number;
}

const statsCache = new WeakMap<PgPool, { at: number; stats: Promise<LexemeStats> }>();

/**
 * Fraction of rows holding each frequent lexeme, from the planner's
 * statistics of `tsv` (`pg_stats.most_common_elems`, kept by ANALYZE /
 * autovacuum); empty before the first ANALYZE. Cached per pool.
 */
function lexemeStats(pool: PgPool): Promise<LexemeStats> {
  const now = Date.now();
  const hit = statsCache.get(pool);
  if (hit && now - hit.at < STATS_TTL) return hit.stats;
  statsCache.delete(pool);
  const stats = pool.query<
    { elems: string[] | null; freqs: number[] | null; reltuples: number | null }
  >(
    `SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs,
       c.reltuples::float8 AS reltuples
     FROM pg_class c
     LEFT JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = 'gleaner_memory'
       AND s.attname = 'tsv'
     WHERE c.oid = 'gleaner_memory'::regclass`,
  ).then(({ rows }) => {
    const freq = new Map<string, number>();
    const r = rows[0];
    const tableRows = Math.max(0, Number(r?.reltuples ?? 0));
    if (!r?.elems || !r.freqs) return { freq, floor: 0, rows: tableRows };
    r.elems.forEach((e, i) => freq.set(e, Number(r.freqs![i])));
    // After the per-lexeme frequencies come their minimum and maximum.
    return { freq, floor: Number(r.freqs[r.elems.length] ?? 1), rows: tableRows };
  }, () => ({ freq: new Map<string, number>(), floor: 0, rows: 0 }));
  statsCache.set(pool, { at: now, stats });
  // Until ANALYZE has run there is nothing to keep: ask again next time.
  stats.then((st) => {
    if (st.freq.size === 0 && statsCache.get(pool)?.stats === stats) statsCache.delete(pool);
  });
  return stats;
}

/** A tenant's live count: the count in flight or done, and the one before it. */
interface LiveCount {
  /** When the count was asked for. */
  at: number;
  /** The count. */
  n: Promise<number>;
  /** Its value once known. */
  value?: number;
  /** The previous count's value, answered meanwhile. */
  stale?: number;
}

/** The current embedder of one tenant. */
interface TenantModel {
  model: string;
  dims: number;
}

/**
 * One pool and schema shared by every tenant of a PostgreSQL database.
 * {@link PostgresMemoryDatabase.backend} gives a tenant's store; closing a
 * tenant's store leaves the pool open, {@link PostgresMemoryDatabase.close}
 * ends it.
 *
 * @example
 * ```ts ignore
 * const db = await PostgresMemoryDatabase.open({ url: "postgres://gleaner@127.0.0.1/gleaner" });
 * const alice = db.backend("alice");
 * await alice.useEmbeddingModel("static:m", 100);
 * await db.close();
 * ```
 */
export class PostgresMemoryDatabase {
  /** The connection pool. */
  readonly pool: PgPool;
  /** Moves the vectors saves stage into the vector index (one per instance). */
  readonly indexer: VectorIndexer;

  private constructor(pool: PgPool) {
    this.pool = pool;
    this.indexer = new VectorIndexer(pool);
    // Rows a stopped instance left staged are taken at once.
    this.indexer.kick();
  }

  /** Connects (lazily loading `npm:pg`) and migrates the schema. */
  static async open(opts: PostgresMemoryOptions): Promise<PostgresMemoryDatabase> {
    const pool = await openPgPool({
      url: opts.url,
      max: opts.maxConnections,
      efSearch: opts.efSearch,
    });
    try {
      await migratePostgres(pool);
    } catch (err) {
      await pool.end().catch(() => {});
      throw pgError(err, "migrate");
    }
    return new PostgresMemoryDatabase(pool);
  }

  /**
   * The store of `tenant` (`""` in single-user mode); every statement is
   * filtered on it. Its `close()` runs `onClose` (default: nothing; the pool
   * stays open).
   */
  backend(tenant: string, onClose?: () => Promise<void>): PostgresMemoryBackend {
    return new PostgresMemoryBackend(this.pool, tenant, onClose, this.indexer);
  }

  /** Stops the indexer after its batch in flight and ends the pool. */
  async close(): Promise<void> {
    await this.indexer.close();
    await this.pool.end();
  }
}

/**
 * Opens the single-user PostgreSQL store (tenant `""`, or `tenant`): its
 * `close()` ends the pool.
 *
 * @example
 * ```ts ignore
 * const store = await openPostgresMemory({ url: "postgres://gleaner@127.0.0.1/gleaner" });
 * await store.useEmbeddingModel("static:m", 100);
 * await store.close();
 * ```
 *
 * @internal exported for tests only
 */
export async function openPostgresMemory(
  opts: PostgresMemoryOptions & { tenant?: string },
): Promise<PostgresMemoryBackend> {
  const db = await PostgresMemoryDatabase.open(opts);
  return db.backend(opts.tenant ?? "", () => db.close());
}

/** {@link MemoryBackend} of one tenant on PostgreSQL. */
export class PostgresMemoryBackend implements MemoryBackend {
  /** Engine name. */
  readonly engine = "postgres";
  /** The tenant every statement is filtered on. */
  readonly tenant: string;
  private readonly pool: PgPool;
  private readonly onClose?: () => Promise<void>;
  private readonly indexer?: VectorIndexer;
  private model: TenantModel | null | undefined = undefined;
  private live: LiveCount | undefined;

  /**
   * Use {@link PostgresMemoryDatabase.backend} or {@link openPostgresMemory}.
   * Without `indexer`, staged vectors stay staged until some instance's
   * indexer takes them (recall finds them meanwhile).
   */
  constructor(
    pool: PgPool,
    tenant: string,
    onClose?: () => Promise<void>,
    indexer?: VectorIndexer,
  ) {
    if (typeof tenant !== "string") {
      throw new GleanerError("invalid_arguments", "tenant must be a string");
    }
    this.pool = pool;
    this.tenant = tenant;
    this.onClose = onClose;
    this.indexer = indexer;
  }

  /**
   * Runs a write and, once it committed, has the indexer take what it staged
   * (`vectors`: whether the write carried any; a save without one asks nothing).
   */
  private async staging<T>(
    operation: string,
    vectors: boolean,
    fn: () => Promise<T>,
  ): Promise<T> {
    const out = await this.run(operation, fn);
    if (vectors) this.indexer?.kick();
    return out;
  }

  private async run<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw pgError(err, operation);
    }
  }

  private async readModel(q: PgQueryable, lock = ""): Promise<TenantModel | null> {
    const { rows } = await q.query<{ model: string | null; dims: number | null }>(
      `SELECT model, dims FROM gleaner_memory_tenant WHERE tenant = $1 ${lock}`,
      [this.tenant],
    );
    const r = rows[0];
    return r && r.model !== null && r.dims !== null ? { model: r.model, dims: r.dims } : null;
  }

  private async currentModel(): Promise<TenantModel | null> {
    if (this.model === undefined) this.model = await this.readModel(this.pool);
    return this.model;
  }

  /** Declares the current embedder; drops every vector of this tenant when it changes. */
  async useEmbeddingModel(model: string, dimensions: number): Promise<boolean> {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 16_000) {
      throw new GleanerError(
        "invalid_arguments",
        `embedding dimensions must be an integer from 1 to 16000, got ${dimensions}`,
      );
    }
    return await this.run("use embedding model", () =>
      inTransaction(this.pool, async (c) => {
        await c.query(
          "INSERT INTO gleaner_memory_tenant (tenant) VALUES ($1) ON CONFLICT DO NOTHING",
          [this.tenant],
        );
        const prev = await this.readModel(c, "FOR UPDATE");
        await ensureVectorIndex(c, dimensions);
        if (prev && prev.model === model && prev.dims === dimensions) {
          this.model = prev;
          return false;
        }
        await c.query(
          `UPDATE gleaner_memory SET embedding = NULL, embedding_model = NULL, embedding_dims = NULL,
             staged = NULL
           WHERE tenant = $1 AND embedding_model IS NOT NULL`,
          [this.tenant],
        );
        await c.query("UPDATE gleaner_memory_tenant SET model = $2, dims = $3 WHERE tenant = $1", [
          this.tenant,
          model,
          dimensions,
        ]);
        this.model = { model, dims: dimensions };
        return prev !== null;
      }));
  }

  /** The current embedder of this tenant, or `null` before the first declaration. */
  async embeddingModel(): Promise<{ model: string; dimensions: number } | null> {
    return await this.run("read embedding model", async () => {
      const m = await this.readModel(this.pool);
      this.model = m;
      return m ? { model: m.model, dimensions: m.dims } : null;
    });
  }

  /** Inserts rows in one transaction (all or none). */
  async insert(rows: NewMemoryRow[]): Promise<Memory[]> {
    if (rows.length === 0) return [];
    checkRows(rows);
    const keys = rows.map((r) => memoryTextKey(r.content));
    return await this.staging(
      "insert",
      rows.some((r) => r.embedding),
      () => inTransaction(this.pool, (c) => this.insertRows(c, rows, keys)),
    );
  }

  /**
   * {@link MemoryBackend.insertDistinct}: inside the insert transaction, an
   * advisory lock per (tenant, session, content key), taken in ascending
   * order (no deadlock between batches), serialises every save of the same
   * text; the lookup runs after the lock, so it sees what the previous
   * holder committed.
   */
  async insertDistinct(rows: NewMemoryRow[]): Promise<InsertedMemory[]> {
    if (rows.length === 0) return [];
    checkRows(rows);
    const texts = rows.map((r) => normalizeMemoryText(r.content));
    const keys = rows.map((r, i) => memoryTextKey(r.content, texts[i]));
    return await this.staging(
      "insert",
      rows.some((r) => r.embedding),
      () =>
        inTransaction(this.pool, async (c) => {
          await c.query(
            `SELECT pg_advisory_xact_lock($1, s.h)
           FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest($2::text[]) AS k ORDER BY 1) AS s`,
            [
              DUPLICATE_LOCK_CLASS,
              rows.map((r, i) => `${this.tenant} ${scopeKey(r.session_id)} ${keys[i]}`),
            ],
          );
          const { rows: found } = await c.query<Row & { content_key: string }>(
            `SELECT ${COLS}, content_key FROM gleaner_memory
           WHERE tenant = $1 AND superseded_by IS NULL AND content_key = ANY($2::text[])
           ORDER BY id`,
            [this.tenant, [...new Set(keys)]],
          );
          // Per row: the live memory it repeats, or the earlier row of this call it repeats.
          const existing: (Memory | undefined)[] = [];
          const earlier: (number | undefined)[] = [];
          const first = new Map<string, number>();
          const fresh: number[] = [];
          rows.forEach((r, i) => {
            const same = found.find((f) =>
              f.content_key === keys[i] && f.session_id === r.session_id &&
              normalizeMemoryText(f.content) === texts[i]
            );
            if (same) {
              existing[i] = toMemory(same);
              return;
            }
            const id = `${scopeKey(r.session_id)} ${texts[i]}`;
            earlier[i] = first.get(id);
            if (earlier[i] === undefined) {
              first.set(id, i);
              fresh.push(i);
            }
          });
          const made = await this.insertRows(
            c,
            fresh.map((i) => rows[i]),
            fresh.map((i) => keys[i]),
          );
          const byIndex = new Map(fresh.map((i, n) => [i, made[n]] as const));
          return rows.map((_, i): InsertedMemory => {
            if (existing[i]) return { memory: existing[i]!, duplicate: true };
            if (earlier[i] !== undefined) {
              return { memory: byIndex.get(earlier[i]!)!, duplicate: true };
            }
            return { memory: byIndex.get(i)!, duplicate: false };
          });
        }),
    );
  }

  /**
   * Inserts rows on `c` inside its transaction, in input order; their
   * vectors are staged (the caller has the indexer take them once committed).
   */
  private async insertRows(
    c: PgQueryable,
    rows: NewMemoryRow[],
    keys: string[],
  ): Promise<Memory[]> {
    if (rows.length === 0) return [];
    const model = await this.readModel(c, "FOR SHARE");
    const vecs = rows.map((r, i) => {
      if (!r.embedding || !model || r.embedding.model !== model.model) return null;
      checkVector(r.embedding.vector, model.dims, `memories[${i}].embedding`);
      return storedVector(r.embedding.vector);
    });
    const out = new Map<number, Memory>();
    let todo = rows.map((_, i) => i);
    for (let attempt = 0; todo.length > 0; attempt++) {
      if (attempt >= REF_TRIES) {
        throw new GleanerError("internal", "could not draw a unique memory ref");
      }
      const refs = new Set<string>();
      while (refs.size < todo.length) refs.add(newRef());
      const refList = [...refs];
      const { rows: made } = await c.query<Row>(
        `INSERT INTO gleaner_memory (tenant, ref, content, kind, session_id, created_at,
           updated_at, tokens, embedding_model, staged, content_key, occurred_at, author)
         SELECT $1, u.ref, u.content, u.kind, u.session_id, u.created_at, u.created_at,
           u.tokens, CASE WHEN u.vec IS NULL THEN NULL ELSE $2 END,
           NULLIF(u.vec, '')::vector, u.content_key, u.occurred_at, u.author
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[],
                     $8::integer[], $9::text[], $10::text[], $11::bigint[], $12::text[])
           WITH ORDINALITY AS u(ref, content, kind, session_id, created_at, tokens, vec, content_key,
                                occurred_at, author, ord)
         ORDER BY u.ord
         ON CONFLICT (tenant, ref) DO NOTHING
         RETURNING ${WRITTEN_COLS}`,
        [
          this.tenant,
          model?.model ?? null,
          refList,
          todo.map((i) => rows[i].content),
          todo.map((i) => rows[i].kind),
          todo.map((i) => rows[i].session_id),
          todo.map((i) => Math.trunc(rows[i].created_at)),
          todo.map((i) => Math.trunc(rows[i].tokens)),
          todo.map((i) => vecs[i]),
          todo.map((i) => keys[i]),
          todo.map((i) => {
            const at = rows[i].occurred_at;
            return at == null ? null : Math.trunc(at);
          }),
          todo.map((i) => rows[i].author ?? null),
        ],
      );
      const byRef = new Map(made.map((r) => [r.ref, r]));
      const left: number[] = [];
      todo.forEach((i, j) => {
        const r = byRef.get(refList[j]);
        if (r) out.set(i, toMemory(r));
        else left.push(i);
      });
      todo = left;
    }
    return rows.map((_, i) => out.get(i)!);
  }

  /** Replaces the content of live memory `id`, keeping the old version as history. */
  async update(id: number, change: MemoryUpdate): Promise<MemoryUpdateResult> {
    checkContent(change.content, "content");
    const notFound = () => new GleanerError("not_found", `no live memory with id ${id}`);
    const key = rowId(id);
    if (key === undefined) throw notFound();
    return await this.staging(
      "update",
      change.embedding !== undefined,
      () =>
        inTransaction(this.pool, async (c) => {
          const model = await this.readModel(c, "FOR SHARE");
          const live = await c.query<Row>(
            `SELECT ${COLS} FROM gleaner_memory
           WHERE tenant = $1 AND id = $2 AND superseded_by IS NULL FOR UPDATE`,
            [this.tenant, key],
          );
          if (live.rows.length === 0) throw notFound();
          let vec: string | null = null;
          if (change.embedding && model && change.embedding.model === model.model) {
            checkVector(change.embedding.vector, model.dims, "embedding");
            vec = storedVector(change.embedding.vector);
          }
          const counted = live.rows[0];
          const previous = await this.keepAsHistory(c, key, counted);
          const { rows } = await c.query<Row>(
            `UPDATE gleaner_memory SET content = $3, tokens = $4, updated_at = $5,
             embedding = NULL, embedding_dims = NULL, staged = NULLIF($6, '')::vector,
             embedding_model = $7, content_key = $8,
             occurred_at = CASE WHEN $9::boolean THEN $10::bigint ELSE occurred_at END,
             author = CASE WHEN $11::boolean THEN $12::text ELSE author END
           WHERE tenant = $1 AND id = $2
           RETURNING ${WRITTEN_COLS}`,
            [
              this.tenant,
              key,
              change.content,
              Math.trunc(change.tokens),
              Math.trunc(change.updated_at),
              vec,
              vec === null ? null : model!.model,
              memoryTextKey(change.content),
              change.occurred_at !== undefined,
              change.occurred_at == null ? null : Math.trunc(change.occurred_at),
              change.author !== undefined,
              change.author ?? null,
            ],
          );
          const memory = {
            ...rows[0],
            recall_count: counted.recall_count,
            last_recalled_at: counted.last_recalled_at,
          };
          return { memory: toMemory(memory), previous: toMemory(previous) };
        }),
    );
  }

  /**
   * Inside an update's transaction: a copy of live row `key` as its old
   * version (superseded by it, without a vector), with the recall
   * bookkeeping `counted` had.
   */
  private async keepAsHistory(c: PgQueryable, key: number, counted: Row): Promise<Row> {
    let previous: Row | undefined;
    for (let attempt = 0; !previous; attempt++) {
      if (attempt >= REF_TRIES) {
        throw new GleanerError("internal", "could not draw a unique memory ref");
      }
      const { rows } = await c.query<Row>(
        `INSERT INTO gleaner_memory (tenant, ref, content, kind, session_id, created_at,
           updated_at, superseded_by, tokens, content_key, occurred_at, author)
         SELECT tenant, $3, content, kind, session_id, created_at, updated_at, id, tokens,
           content_key, occurred_at, author
         FROM gleaner_memory WHERE tenant = $1 AND id = $2
         ON CONFLICT (tenant, ref) DO NOTHING
         RETURNING ${WRITTEN_COLS}`,
        [this.tenant, key, newRef()],
      );
      previous = rows[0];
    }
    // The old version keeps the bookkeeping it had (the live memory keeps it too).
    previous.recall_count = counted.recall_count;
    previous.last_recalled_at = counted.last_recalled_at;
    await c.query(
      `INSERT INTO gleaner_memory_recall (tenant, id, recall_count, last_recalled_at)
       SELECT tenant, $3, recall_count, last_recalled_at FROM gleaner_memory_recall
       WHERE tenant = $1 AND id = $2`,
      [this.tenant, key, previous.id],
    );
    return previous;
  }

  /** Deletes live memory `id` with its history (foreign key cascade) and vector. */
  async delete(id: number): Promise<boolean> {
    const key = rowId(id);
    if (key === undefined) return false;
    return await this.run("delete", async () => {
      // The memory, its history (cascade) and their recall bookkeeping.
      const res = await this.pool.query(
        `WITH gone AS (
           DELETE FROM gleaner_memory WHERE tenant = $1 AND id = $2 AND superseded_by IS NULL
           RETURNING id
         ), side AS (
           DELETE FROM gleaner_memory_recall r
           WHERE r.tenant = $1 AND EXISTS (SELECT 1 FROM gone)
             AND (r.id = $2 OR r.id IN (SELECT h.id FROM gleaner_memory h
                                         WHERE h.tenant = $1 AND h.superseded_by = $2))
         )
         SELECT count(*) AS n FROM gone`,
        [this.tenant, key],
      );
      return Number((res.rows[0] as { n: string }).n) > 0;
    });
  }

  /** A memory (live or history) of this tenant by id or ref. */
  async get(key: { id: number } | { ref: string }): Promise<Memory | undefined> {
    let where: string;
    let value: unknown;
    if ("id" in key) {
      value = rowId(key.id);
      if (value === undefined) return undefined;
      where = "id = $2";
    } else {
      if (typeof key.ref !== "string") return undefined;
      value = key.ref;
      where = "ref = $2";
    }
    return await this.run("get", async () => {
      const { rows } = await this.pool.query<Row>(
        `SELECT ${COLS} FROM gleaner_memory WHERE tenant = $1 AND ${where}`,
        [this.tenant, value],
      );
      return rows[0] ? toMemory(rows[0]) : undefined;
    });
  }

  /** Memories of this tenant by id, in the order of `ids`. */
  async getMany(ids: readonly number[]): Promise<Memory[]> {
    const keys = [...new Set(ids.map(rowId).filter((x): x is number => x !== undefined))];
    if (keys.length === 0) return [];
    return await this.run("get", async () => {
      const { rows } = await this.pool.query<Row>(
        `SELECT ${COLS} FROM gleaner_memory WHERE tenant = $1 AND id = ANY($2::bigint[])`,
        [this.tenant, keys],
      );
      const byId = new Map(rows.map((r) => [Number(r.id), toMemory(r)]));
      return ids.map((id) => byId.get(id)).filter((m): m is Memory => m !== undefined);
    });
  }

  /** Older versions of live memory `id`, newest first. */
  async history(id: number): Promise<Memory[]> {
    const key = rowId(id);
    if (key === undefined) return [];
    return await this.run("history", async () => {
      const { rows } = await this.pool.query<Row>(
        `SELECT ${COLS} FROM gleaner_memory WHERE tenant = $1 AND superseded_by = $2
         ORDER BY id DESC`,
        [this.tenant, key],
      );
      return rows.map(toMemory);
    });
  }

  /** The query's distinct lexemes (the `english` configuration), at most {@link MAX_TERMS}. */
  private async lexemes(text: string): Promise<string[]> {
    if (!text.trim()) return [];
    const { rows } = await this.pool.query<{ t: string[] }>(
      `SELECT tsvector_to_array(to_tsvector('${TS_CONFIG}'::regconfig, $1)) AS t`,
      [text.replaceAll("\0", " ")],
    );
    return (rows[0]?.t ?? []).slice(0, MAX_TERMS);
  }

  /**
   * The tsquery operands of a `list_memories` search ({@link listSearchWords}):
   * each whole word's lexemes quoted, the last word's as prefixes (`'pyth':*`);
   * empty when no word is left (only stopwords, or no word).
   */
  private async listOperands(text: string): Promise<string[]> {
    const words = listSearchWords(text);
    if (!words) return [];
    const { rows } = await this.pool.query<{ w: string[]; p: string[] }>(
      `SELECT tsvector_to_array(to_tsvector('${TS_CONFIG}'::regconfig, $1)) AS w,
              tsvector_to_array(to_tsvector('${TS_CONFIG}'::regconfig, $2)) AS p`,
      [words.whole.join(" "), words.prefix ?? ""],
    );
    const whole = (rows[0]?.w ?? []).map(quoteLexeme);
    const prefix = (rows[0]?.p ?? []).map((lexeme) => `${quoteLexeme(lexeme)}:*`);
    return [...whole, ...prefix].slice(0, MAX_TERMS);
  }

  /**
   * SQL ranking the live rows matching `where` (params bound in `params`) and
   * any of `plan.match` (default: every term) by BM25 over all `terms`
   * (`plan.operands`: ready tsquery operands instead, all required with `plan.all`);
   * selects `id, score`. IDF uses `plan.n` documents (default: the matched
   * set's size) and, per term, the larger of its matched count and
   * `plan.estDf` (an estimate for terms left out of the match).
   */
  private bm25Sql(
    where: string[],
    params: unknown[],
    terms: string[],
    plan: {
      n?: number;
      estDf?: number[];
      match?: string[];
      newest?: number;
      operands?: string[];
      all?: boolean;
    } = {},
  ): string {
    const quoted = plan.operands ?? terms.map(quoteLexeme);
    const any = params.push(
      plan.operands
        ? plan.operands.join(plan.all ? " & " : " | ")
        : (plan.match ?? terms).map(quoteLexeme).join(" | "),
    );
    const each = params.push(quoted);
    const est = params.push(plan.estDf ?? quoted.map(() => 0));
    const n = params.push(plan.n ?? 0);
    const newest = plan.newest
      ? `ORDER BY created_at DESC, id DESC LIMIT $${params.push(plan.newest)}`
      : "";
    return `
      WITH m AS MATERIALIZED (
        SELECT id, tsv, greatest(tokens, 1)::float8 AS len FROM gleaner_memory
        WHERE ${where.join(" AND ")} AND tsv @@ $${any}::tsquery ${newest}
      ),
      t AS (
        SELECT q, est, i FROM unnest($${each}::tsquery[], $${est}::float8[])
          WITH ORDINALITY AS u(q, est, i)
      ),
      st AS (
        SELECT greatest(count(*)::float8, $${n}::float8) AS n, greatest(avg(len), 1) AS avgdl
        FROM m
      ),
      p AS (
        SELECT m.id, m.len, ts_rank_cd(m.tsv, t.q, 0)::float8 * 10 AS tf,
          greatest(count(*) OVER (PARTITION BY t.i)::float8, t.est) AS df
        FROM m JOIN t ON m.tsv @@ t.q
      ),
      s AS (
        SELECT p.id, sum(
          ln(1 + greatest(st.n - p.df + 0.5, 0.5) / (p.df + 0.5))
          * (p.tf * ${K1 + 1}) / (p.tf + ${K1} * (${1 - B} + ${B} * p.len / st.avgdl))
        ) AS score
        FROM p CROSS JOIN st
        GROUP BY p.id
      )
      SELECT id, score FROM s`;
  }

  /**
   * Live memories of this tenant (index-only count, cached for a minute).
   * One count at a time, and a recall never waits for a refresh when an
   * earlier count is known (it takes that one, a minute old): at 200,000 a
   * count took 300 ms of a server core, and a recall's two retrievers asked
   * at once.
   */
  private liveCount(): Promise<number> {
    const now = Date.now();
    const live = this.live;
    if (live && now - live.at < 60_000) {
      const known = live.value ?? live.stale;
      return known !== undefined ? Promise.resolve(known) : live.n;
    }
    const n = this.pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM gleaner_memory WHERE tenant = $1 AND superseded_by IS NULL",
      [this.tenant],
    ).then(({ rows }) => Number(rows[0].n));
    const entry: LiveCount = { at: now, n, stale: live?.value ?? live?.stale };
    this.live = entry;
    n.then((value) => entry.value = value, () => {
      // A failed count is not kept: the next call counts again.
      if (this.live === entry) this.live = undefined;
    });
    return entry.stale !== undefined ? Promise.resolve(entry.stale) : n;
  }

  /** A filtered, ordered page of this tenant's live memories and their total. */
  async list(query: MemoryListQuery): Promise<MemoryListPage> {
    const limit = Math.max(1, Math.trunc(query.limit));
    const offset = Math.max(0, Math.trunc(query.offset));
    return await this.run("list", async () => {
      const params: unknown[] = [this.tenant];
      const where = ["tenant = $1", "superseded_by IS NULL"];
      addScope(query, where, params);
      if (query.since !== undefined) where.push(`created_at >= $${params.push(query.since)}`);
      if (query.until !== undefined) where.push(`created_at < $${params.push(query.until)}`);
      const search = query.search?.trim() ? query.search : undefined;
      // Every word must appear (`&`); the last may be the start of a word (`:*`).
      let operands: string[] = [];
      if (search !== undefined) {
        operands = await this.listOperands(search);
        if (operands.length === 0) return { items: [], total: 0 };
      }
      if (search !== undefined && query.sort === "relevance") {
        const sql = this.bm25Sql(where, params, [], { operands, all: true });
        const lim = params.push(limit);
        const off = params.push(offset);
        const { rows } = await this.pool.query<Row & { score: number; total: string }>(
          `WITH r AS (${sql}), c AS (SELECT count(*) AS total FROM r)
           SELECT ${cols("g")}, c.total
           FROM c LEFT JOIN LATERAL (
             SELECT id, score FROM r ORDER BY score DESC, id DESC LIMIT $${lim} OFFSET $${off}
           ) p ON true
           LEFT JOIN gleaner_memory g ON g.tenant = $1 AND g.id = p.id
           ORDER BY p.score DESC, p.id DESC`,
          params,
        );
        return {
          items: rows.filter((r) => r.id !== null).map(toMemory),
          total: Number(rows[0]?.total ?? 0),
        };
      }
      if (search !== undefined) {
        where.push(`tsv @@ $${params.push(operands.join(" & "))}::tsquery`);
      }
      const order = query.sort === "stale"
        ? "last_recalled_at ASC NULLS FIRST, created_at ASC, id ASC"
        : "created_at DESC, id DESC";
      const filter = where.join(" AND ");
      const countParams = params.slice();
      const lim = params.push(limit);
      const off = params.push(offset);
      const [page, count] = await Promise.all([
        this.pool.query<Row>(
          `SELECT ${COLS} FROM gleaner_memory WHERE ${filter}
           ORDER BY ${order} LIMIT $${lim} OFFSET $${off}`,
          params,
        ),
        this.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM gleaner_memory WHERE ${filter}`,
          countParams,
        ),
      ]);
      return { items: page.rows.map(toMemory), total: Number(count.rows[0].n) };
    });
  }

  /** This tenant's top `k` live memories for `query` by BM25 over `tsvector`. */
  async lexicalCandidates(
    query: string,
    k: number,
    scope: MemoryScope,
  ): Promise<MemoryCandidate[]> {
    const limit = Math.trunc(k);
    if (!(limit > 0) || typeof query !== "string") return [];
    return await this.run("lexical search", async () => {
      const terms = await this.lexemes(query);
      if (terms.length === 0) return [];
      const [n, stats] = await Promise.all([this.liveCount(), lexemeStats(this.pool)]);
      // Bounded work, rarest first: the match is the OR of the rarest terms
      // until about max(WIDEN_ROWS, 20·k) rows are expected (a term expected
      // in more rows than that alone never widens it past the rarest); the
      // more common terms only score the rows found. Expected rows come from the
      // planner's lexeme frequencies (a lexeme it does not list is rarer than
      // its least frequent one). When even the rarest term is that common,
      // only the newest MAX_MATCH matching rows are ranked; when the rarest
      // terms find fewer than k rows, the newest FALLBACK_ROWS rows matching
      // any term are ranked as well.
      const estDf = terms.map((t) => Math.round((stats.freq.get(t) ?? 0) * n));
      const upper = terms.map((t, i) => stats.freq.has(t) ? estDf[i] : stats.floor * n);
      const order = terms.map((_, i) => i).sort((x, y) => upper[x] - upper[y]);
      const target = Math.max(WIDEN_ROWS, 20 * limit);
      const match: string[] = [];
      let expected = 0;
      const known = stats.freq.size > 0; // no statistics yet (small or new table): match all
      for (const i of order) {
        if (known && match.length > 0 && (expected >= target || upper[i] > target)) break;
        match.push(terms[i]);
        expected += upper[i];
      }
      // Other tenants' rows matching as well (the table's rows beyond this tenant's, at the
      // same frequencies): few enough, and the tenant is a filter rather than an index key.
      const others = (expected / Math.max(n, 1)) * Math.max(0, stats.rows - n);
      const tenantFilter = known && others <= n * TENANT_KEY_BREAK_EVEN;
      const ranked = async (plan: { match: string[]; newest?: number }) => {
        const params: unknown[] = [this.tenant];
        // `IS TRUE` keeps the condition out of the index scan (same rows: tenant is never null).
        const tenant = tenantFilter && !plan.newest ? "(tenant = $1) IS TRUE" : "tenant = $1";
        const where = [tenant, "superseded_by IS NULL"];
        addScope(scope, where, params);
        const sql = this.bm25Sql(where, params, terms, { n, estDf, ...plan });
        const lim = params.push(limit);
        const { rows } = await this.pool.query<{ id: string; score: number }>(
          `${sql} ORDER BY score DESC, id DESC LIMIT $${lim}`,
          params,
        );
        return rows.map((r) => ({ id: Number(r.id), score: Number(r.score) }));
      };
      const first = await ranked({
        match,
        newest: known && upper[order[0]] > MAX_MATCH ? MAX_MATCH : undefined,
      });
      if (first.length >= limit || match.length === terms.length) return first;
      // The rare terms found fewer than k: rank the newest rows matching any term too.
      const byId = new Map(first.map((c) => [c.id, c]));
      for (const c of await ranked({ match: terms, newest: FALLBACK_ROWS })) {
        if (!byId.has(c.id)) byId.set(c.id, c);
      }
      return [...byId.values()].sort((a, b) => b.score - a.score || b.id - a.id).slice(0, limit);
    });
  }

  /**
   * This tenant's `k` nearest live memories to `vector` by cosine: the HNSW
   * index (or an exact scan of a small tenant) and, beside it, an exact scan
   * of the newest staged vectors (see {@link STAGED_SCAN_ROWS}).
   */
  async vectorCandidates(
    vector: Float32Array,
    k: number,
    scope: MemoryScope,
  ): Promise<MemoryCandidate[]> {
    const limit = Math.trunc(k);
    if (!(limit > 0)) return [];
    return await this.run("vector search", async () => {
      let model = await this.currentModel();
      if (!model || vector.length !== model.dims) {
        // Another instance may have switched the model since it was cached.
        this.model = undefined;
        model = await this.currentModel();
        if (!model || vector.length !== model.dims) return [];
      }
      checkVector(vector, model.dims, "query vector");
      const d = model.dims;
      const params: unknown[] = [this.tenant, vectorText(vector), model.model];
      const where = ["tenant = $1", "superseded_by IS NULL", "embedding_model = $3"];
      addScope(scope, where, params);
      const lim = params.push(limit);
      const query = `$2::vector(${d})`;
      const dist = `embedding::vector(${d}) <=> ${query}`;
      // A small tenant among many is scanned exactly: `+ 0` keeps the
      // planner off the HNSW index (its order is the same).
      const [live, stats] = await Promise.all([this.liveCount(), lexemeStats(this.pool)]);
      const exact = live <= EXACT_SCAN_ROWS && live < EXACT_SCAN_SHARE * stats.rows;
      // A row is either indexed (`embedding`) or staged, never both.
      const { rows } = await this.pool.query<{ id: string; dist: number }>(
        `WITH c AS MATERIALIZED (
           SELECT id, ${dist} AS dist FROM gleaner_memory
           WHERE ${where.join(" AND ")} AND embedding_dims = ${d}
           ORDER BY ${exact ? `(${dist}) + 0` : dist} LIMIT $${lim}
         ), s AS MATERIALIZED (
           SELECT id, staged <=> ${query} AS dist FROM (
             SELECT id, staged FROM gleaner_memory
             WHERE ${where.join(" AND ")} AND staged IS NOT NULL
             ORDER BY id DESC LIMIT ${STAGED_SCAN_ROWS}
           ) n
           WHERE vector_dims(staged) = ${d}
           ORDER BY dist LIMIT $${lim}
         )
         SELECT id, dist FROM (SELECT id, dist FROM c UNION ALL SELECT id, dist FROM s) a
         ORDER BY dist, id LIMIT $${lim}`,
        params,
      );
      return rows.map((r) => ({ id: Number(r.id), score: 1 - Number(r.dist) }));
    });
  }

  /** This tenant's live profile memories, newest first. */
  async profilePool(limit: number): Promise<Memory[]> {
    const n = Math.trunc(limit);
    if (!(n > 0)) return [];
    return await this.run("profile", async () => {
      const { rows } = await this.pool.query<Row>(
        `SELECT ${COLS} FROM gleaner_memory
         WHERE tenant = $1 AND superseded_by IS NULL AND kind = 'profile'
         ORDER BY created_at DESC, id DESC LIMIT $2`,
        [this.tenant, n],
      );
      return rows.map(toMemory);
    });
  }

  /** This tenant's distinct authors of live memories, at most `limit`, in text order. */
  async authors(limit: number): Promise<string[]> {
    const n = Math.max(0, Math.trunc(limit));
    if (n === 0) return [];
    return await this.run("authors", async () => {
      // One index probe per distinct author (a skip scan), not one per memory.
      const { rows } = await this.pool.query<{ author: string }>(
        `WITH RECURSIVE a(author) AS (
           (SELECT author FROM gleaner_memory
            WHERE tenant = $1 AND superseded_by IS NULL AND author IS NOT NULL
            ORDER BY author LIMIT 1)
           UNION ALL
           SELECT (SELECT g.author FROM gleaner_memory g
                   WHERE g.tenant = $1 AND g.superseded_by IS NULL AND g.author IS NOT NULL
                     AND g.author > a.author ORDER BY g.author LIMIT 1)
           FROM a WHERE a.author IS NOT NULL
         ) SELECT author FROM a WHERE author IS NOT NULL LIMIT $2`,
        [this.tenant, n],
      );
      return rows.map((r) => r.author);
    });
  }

  /** The neighbours of each live id in its session (see {@link MemoryBackend.sessionNeighbours}). */
  async sessionNeighbours(
    ids: readonly number[],
    before: number,
    after: number,
  ): Promise<Map<number, SessionNeighbours>> {
    const keys = [...new Set(ids.map(rowId).filter((x): x is number => x !== undefined))];
    const out = new Map<number, SessionNeighbours>();
    const nb = Math.max(0, Math.trunc(before));
    const na = Math.max(0, Math.trunc(after));
    if (keys.length === 0) return out;
    return await this.run("neighbours", async () => {
      const { rows } = await this.pool.query<Row & { hit: string; side: string }>(
        `SELECT h.id AS hit, n.*
         FROM unnest($2::bigint[]) AS h(id)
         JOIN gleaner_memory s ON s.tenant = $1 AND s.id = h.id AND s.superseded_by IS NULL
           AND s.session_id IS NOT NULL
         CROSS JOIN LATERAL (
           (SELECT 'before' AS side, ${cols("g")} FROM gleaner_memory g
            WHERE g.tenant = $1 AND g.session_id = s.session_id AND g.kind = s.kind
              AND g.superseded_by IS NULL AND g.id < h.id ORDER BY g.id DESC LIMIT $3)
           UNION ALL
           (SELECT 'after' AS side, ${cols("g")} FROM gleaner_memory g
            WHERE g.tenant = $1 AND g.session_id = s.session_id AND g.kind = s.kind
              AND g.superseded_by IS NULL AND g.id > h.id ORDER BY g.id ASC LIMIT $4)
         ) n`,
        [this.tenant, keys, nb, na],
      );
      const { rows: live } = await this.pool.query<{ id: string }>(
        `SELECT id FROM gleaner_memory WHERE tenant = $1 AND id = ANY($2::bigint[])
           AND superseded_by IS NULL AND session_id IS NOT NULL`,
        [this.tenant, keys],
      );
      for (const r of live) out.set(Number(r.id), { before: [], after: [] });
      for (const r of rows) {
        const entry = out.get(Number(r.hit));
        if (!entry) continue;
        (r.side === "before" ? entry.before : entry.after).push(toMemory(r));
      }
      for (const entry of out.values()) {
        entry.before.sort((a, b) => b.id - a.id);
        entry.after.sort((a, b) => a.id - b.id);
      }
      return out;
    });
  }

  /** Counts one recall of each of these live ids at `at`. */
  async markRecalled(ids: readonly number[], at: number): Promise<void> {
    const keys = [...new Set(ids.map(rowId).filter((x): x is number => x !== undefined))];
    if (keys.length === 0) return;
    return await this.run("mark recalled", async () => {
      // Only the side table is written (ids in ascending order: concurrent
      // recalls of the same memories lock their rows in one order).
      await this.pool.query(
        `INSERT INTO gleaner_memory_recall AS r (tenant, id, recall_count, last_recalled_at)
         SELECT tenant, id, 1, $3 FROM gleaner_memory
         WHERE tenant = $1 AND id = ANY($2::bigint[]) AND superseded_by IS NULL
         ORDER BY id
         ON CONFLICT (tenant, id) DO UPDATE
           SET recall_count = r.recall_count + 1, last_recalled_at = EXCLUDED.last_recalled_at`,
        [this.tenant, keys, Math.trunc(at)],
      );
    });
  }

  /** Live memories of this tenant without a vector, lowest id first. */
  async pendingEmbeddings(limit: number): Promise<PendingEmbedding[]> {
    const n = Math.trunc(limit);
    if (!(n > 0)) return [];
    return await this.run("pending embeddings", async () => {
      const { rows } = await this.pool.query<{ id: string; content: string }>(
        `SELECT id, content FROM gleaner_memory
         WHERE tenant = $1 AND superseded_by IS NULL AND embedding_model IS NULL
         ORDER BY id LIMIT $2`,
        [this.tenant, n],
      );
      return rows.map((r) => ({ id: Number(r.id), content: r.content }));
    });
  }

  /**
   * Stores vectors of `model` for live ids of this tenant, in one transaction;
   * an item with `content` is skipped when the row's content changed since.
   */
  async setEmbeddings(
    model: string,
    items: readonly { id: number; vector: Float32Array; content?: string }[],
  ): Promise<number> {
    const valid = items.filter((it) => rowId(it.id) !== undefined);
    if (valid.length === 0) return 0;
    return await this.run(
      "store embeddings",
      () =>
        inTransaction(this.pool, async (c: PgClient) => {
          const current = await this.readModel(c, "FOR SHARE");
          if (!current || current.model !== model) return 0;
          valid.forEach((it, i) => checkVector(it.vector, current.dims, `items[${i}].vector`));
          const res = await c.query(
            `UPDATE gleaner_memory g SET embedding = NULLIF(u.vec, '')::vector, staged = NULL,
             embedding_model = $2, embedding_dims = CASE WHEN NULLIF(u.vec, '') IS NULL THEN NULL ELSE $3::integer END
           FROM unnest($4::bigint[], $5::text[], $6::text[]) AS u(id, vec, content)
           WHERE g.tenant = $1 AND g.id = u.id AND g.superseded_by IS NULL
             AND (u.content IS NULL OR g.content = u.content)`,
            [
              this.tenant,
              current.model,
              current.dims,
              valid.map((it) => it.id),
              valid.map((it) => storedVector(it.vector)),
              valid.map((it) => it.content ?? null),
            ],
          );
          return res.rowCount ?? 0;
        }),
    );
  }

  /** Counts of this tenant's store. */
  async counts(): Promise<MemoryCounts> {
    return await this.run("counts", async () => {
      const { rows } = await this.pool.query<Record<keyof MemoryCounts, string>>(
        `SELECT
           count(*) FILTER (WHERE g.superseded_by IS NULL) AS live,
           count(*) FILTER (WHERE g.superseded_by IS NULL AND g.kind = 'episodic') AS episodic,
           count(*) FILTER (WHERE g.superseded_by IS NULL AND g.kind = 'profile') AS profile,
           count(*) FILTER (WHERE g.superseded_by IS NOT NULL) AS history,
           count(*) FILTER (WHERE g.superseded_by IS NULL
                              AND g.embedding_model = t.model) AS embedded
         FROM gleaner_memory g
         LEFT JOIN gleaner_memory_tenant t ON t.tenant = g.tenant
         WHERE g.tenant = $1`,
        [this.tenant],
      );
      const r = rows[0];
      const live = Number(r.live);
      const embedded = Number(r.embedded);
      return {
        live,
        episodic: Number(r.episodic),
        profile: Number(r.profile),
        history: Number(r.history),
        embedded,
        pending: live - embedded,
      };
    });
  }

  /** Releases the store: ends the pool when this store owns it ({@link openPostgresMemory}). */
  async close(): Promise<void> {
    await this.onClose?.();
  }
}
