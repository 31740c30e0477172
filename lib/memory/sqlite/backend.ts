/**
 * The SQLite engine of the memory store: `node:sqlite` in WAL mode, an FTS5
 * index kept in sync by triggers (BM25), and vectors in a sqlite-vec `vec0`
 * table with cosine distance and the embedder's dimensions.
 *
 * @example
 * ```ts
 * import { openSqliteMemoryBackend } from "./backend.ts";
 * const backend = openSqliteMemoryBackend(":memory:");
 * await backend.useEmbeddingModel("demo", 2);
 * const [m] = await backend.insert([{
 *   content: "prefers tabs over spaces",
 *   kind: "profile",
 *   session_id: null,
 *   tokens: 5,
 *   created_at: Date.now(),
 *   embedding: { model: "demo", vector: new Float32Array([1, 0]) },
 * }]);
 * const hits = await backend.lexicalCandidates("tabs", 5, {});
 * console.assert(hits[0].id === m.id);
 * await backend.close();
 * ```
 *
 * Permissions: read and write access to the folder of the memory file; the whole `--allow-ffi`
 * (node:sqlite opens a database that may load sqlite-vec only under it).
 *
 * @module
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import * as sqliteVec from "sqlite-vec";
import { GleanerError } from "../../errors.ts";
import { type Env, gleanerDataDir } from "../../config/env.ts";
import { isZeroVector } from "../../embed/vector.ts";
import {
  MEMORY_PATH,
  type MigrationResult,
  openDatabase,
  transaction,
} from "../../store/sqlite.ts";
import { MEMORY_MIGRATIONS } from "./migrations.ts";
import {
  dataVersion,
  NO_SESSION,
  VECTOR_LOG,
  VECTOR_LOG_KEEP,
  VectorIndexLifecycle,
  VECTORS,
} from "./index_lifecycle.ts";
import { ftsListQuery, memoryTextKey, normalizeMemoryText, searchWords } from "../text.ts";
import type { VectorIndex } from "../vector/vector_index.ts";
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

/** Options of {@link openSqliteMemoryBackend}. */
export interface SqliteMemoryOptions {
  /** Busy timeout (ms) for a lock held by another process. */
  busyTimeoutMs?: number;
  /**
   * The user's home directory (`HOME` of the entry point's environment): a
   * memory folder that is the home directory is never tightened.
   */
  home?: string;
  /**
   * Keep the vectors in memory and search them there (default true); false
   * searches the `vec0` table for every query.
   */
  vectorIndex?: boolean;
  /**
   * Vector searches answered from `vec0` before the in-memory index starts
   * loading (default 2: a one-shot process never pays for loading); a
   * duplicate check of 16 or more memories starts it at once. The index
   * loads in slices of a few milliseconds between turns of the event loop
   * (a small store in one); searches answer from `vec0` until it is ready.
   */
  vectorIndexAfter?: number;
  /**
   * Most bytes the in-memory vector index may hold (default 512 MiB, about
   * 850,000 vectors of 100 dimensions at ~600 bytes each); a larger store
   * searches `vec0` instead.
   */
  vectorIndexMaxBytes?: number;
  /**
   * Most vector changes made by other processes that the in-memory index
   * catches up on from the change log; further behind, it reloads (default and
   * most: `VECTOR_LOG_KEEP`, the log every writer keeps). Tests set it small.
   */
  vectorCatchUpMax?: number;
  /** Told what migrating the file did on open (the doctor reports it). */
  onMigrated?: (result: MigrationResult) => void;
}

/** Default {@link SqliteMemoryOptions.vectorIndexMaxBytes}. */
const DEFAULT_VECTOR_INDEX_MAX_BYTES = 512 * 1024 * 1024;

/**
 * The default memory file: `$XDG_DATA_HOME/gleaner/memory.db`, else
 * `$HOME/.local/share/gleaner/memory.db`.
 *
 * @example
 * ```ts
 * import { defaultMemoryPath } from "./backend.ts";
 * console.assert(defaultMemoryPath({ XDG_DATA_HOME: "/d" }) === "/d/gleaner/memory.db");
 * ```
 */
export function defaultMemoryPath(env: Env): string {
  const dir = gleanerDataDir(env);
  if (!dir) {
    throw new GleanerError(
      "invalid_arguments",
      "memory.path: neither XDG_DATA_HOME nor HOME is set; set memory.path",
      { details: { field: "memory.path" } },
    );
  }
  return `${dir}/memory.db`;
}

/**
 * Opens (creating 0600 in a 0700 folder, migrating in place) the memory file
 * at `path`; `:memory:` keeps it in memory.
 */
export function openSqliteMemoryBackend(
  path: string,
  options: SqliteMemoryOptions = {},
): SqliteMemoryBackend {
  const db = openDatabase(path, {
    migrations: MEMORY_MIGRATIONS,
    busyTimeoutMs: options.busyTimeoutMs,
    home: options.home,
    extensions: [(db) => sqliteVec.load(db)],
    onMigrated: options.onMigrated,
  });
  if (path !== MEMORY_PATH) {
    // Vector search reads every vector: map the file instead of copying pages
    // through a small page cache (measured about twice as fast at 20,000).
    db.exec(`PRAGMA mmap_size = ${MMAP_BYTES}`);
  }
  return new SqliteMemoryBackend(db, path, options);
}

/** Bytes of the memory file mapped into memory (address space, not resident memory). */
const MMAP_BYTES = 256 * 1024 * 1024;

interface Row {
  id: number;
  ref: string;
  content: string;
  kind: MemoryKind;
  session_id: string | null;
  created_at: number;
  updated_at: number;
  recall_count: number;
  last_recalled_at: number | null;
  superseded_by: number | null;
  tokens: number;
  embedding_model: string | null;
  occurred_at: number | null;
  author: string | null;
}

const COLUMNS =
  "m.id, m.ref, m.content, m.kind, m.session_id, m.created_at, m.updated_at, m.recall_count, " +
  "m.last_recalled_at, m.superseded_by, m.tokens, m.embedding_model, m.occurred_at, m.author";

/** Vector changes kept in the log; a process further behind reloads its index. */
export { VECTOR_LOG_KEEP };
/**
 * A word found in at least this many rows is "common" for recall (see `#recallMatch`).
 *
 * @internal exported for tests only
 */
export const COMMON_WORD_ROWS = 1_000;
/** Most matching rows BM25 scores for one recall (the newest ones). */
const MAX_SCORED_ROWS = 2_000;
/** The newest matching rows (at most the second parameter) and their BM25 scores. */
const BM25_NEWEST = "SELECT rowid AS rid, -bm25(memories_fts) AS score FROM memories_fts " +
  "WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?";
/**
 * Best-scored matches read beyond `k` for a recall without a session, so
 * that old versions and memories of the other kind among them still leave `k`.
 */
const SCOPE_SLACK = 16;

function toMemory(row: Row): Memory {
  return {
    id: Number(row.id),
    ref: row.ref,
    content: row.content,
    kind: row.kind,
    session_id: row.session_id,
    created_at: isoTime(Number(row.created_at)),
    updated_at: isoTime(Number(row.updated_at)),
    recall_count: Number(row.recall_count),
    last_recalled_at: row.last_recalled_at === null ? null : isoTime(Number(row.last_recalled_at)),
    superseded_by: row.superseded_by === null ? null : Number(row.superseded_by),
    tokens: Number(row.tokens),
    embedding_model: row.embedding_model,
    occurred_at: row.occurred_at === null ? null : isoTime(Number(row.occurred_at)),
    author: row.author,
  };
}

/** WHERE fragments of a scope over `memories m` (live rows only). */
function scopeWhere(scope: MemoryScope, where: string[], params: SQLInputValue[]): void {
  where.push("m.superseded_by IS NULL");
  if (scope.kind) {
    where.push("m.kind = ?");
    params.push(scope.kind);
  }
  if (scope.session_id === null) where.push("m.session_id IS NULL");
  else if (scope.session_id !== undefined) {
    where.push("m.session_id = ?");
    params.push(scope.session_id);
  }
}

/** The SQLite {@link MemoryBackend}. Synchronous inside; every write is one transaction. */
export class SqliteMemoryBackend implements MemoryBackend {
  /** Engine name. */
  readonly engine = "sqlite";
  /** The connection (tests and benchmarks read it). */
  readonly db: DatabaseSync;
  /** The file path, or `:memory:`. */
  readonly path: string;
  #model: { model: string; dimensions: number } | null;
  #statements = new Map<string, StatementSync>();
  /** The vector writes and the in-memory index over them. */
  #vectors: VectorIndexLifecycle;
  /** Content writes of this connection (with `data_version`, the generation of the caches below). */
  #writes = 0;
  /** The newest profile memories as last read, while nothing changed. */
  #profileCache: { generation: string; limit: number; rows: Memory[] } | undefined;
  /** Totals of list filters, while nothing changed. */
  #totals = { generation: "", counts: new Map<string, number>() };
  /** The distinct authors as last read, while nothing changed. */
  #authors: { generation: string; limit: number; authors: string[] } | undefined;
  /** Bounded matching-row counts of recall words, while nothing changed. */
  #wordCounts = { generation: "", counts: new Map<string, number>() };

  /** Wraps an open, migrated connection (see {@link openSqliteMemoryBackend}). */
  constructor(db: DatabaseSync, path: string = MEMORY_PATH, options: SqliteMemoryOptions = {}) {
    this.db = db;
    this.path = path;
    this.#model = this.#readModel();
    this.#vectors = new VectorIndexLifecycle({
      db,
      stmt: (sql) => this.#stmt(sql),
      currentModel: () => this.#currentModel(),
    }, {
      enabled: options.vectorIndex ?? true,
      maxBytes: options.vectorIndexMaxBytes ?? DEFAULT_VECTOR_INDEX_MAX_BYTES,
      after: options.vectorIndexAfter ?? 2,
      catchUpMax: options.vectorCatchUpMax,
    });
  }

  /** The in-memory vector index, when one is loaded (tests and benchmarks). */
  get vectorIndex(): VectorIndex | undefined {
    return this.#vectors.index;
  }

  /** True while the in-memory vector index loads in the background. */
  get vectorIndexLoading(): boolean {
    return this.#vectors.loading;
  }

  /**
   * Settles when the index load in progress (if any) ends, with the index
   * then in use (`undefined` when the load gave up or was stopped); searches
   * meanwhile answer from `vec0` (tests and benchmarks).
   */
  vectorIndexLoaded(): Promise<VectorIndex | undefined> {
    return this.#vectors.loaded();
  }

  #stmt(sql: string): StatementSync {
    let s = this.#statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  #readModel(): { model: string; dimensions: number } | null {
    const rows = this.#stmt(
      "SELECT key, value FROM memory_meta WHERE key IN ('embedding_model', 'dimensions')",
    ).all() as { key: string; value: string }[];
    const map = new Map(rows.map((r) => [r.key, r.value]));
    const model = map.get("embedding_model");
    const dimensions = Number(map.get("dimensions"));
    if (!model || !Number.isInteger(dimensions) || dimensions <= 0) return null;
    const table = this.#stmt("SELECT 1 FROM sqlite_master WHERE name = ?").get(VECTORS);
    return table ? { model, dimensions } : null;
  }

  /** Re-reads the current model (another process may have changed it). */
  #currentModel(): { model: string; dimensions: number } | null {
    this.#model = this.#readModel();
    return this.#model;
  }

  useEmbeddingModel(model: string, dimensions: number): Promise<boolean> {
    if (!Number.isInteger(dimensions) || dimensions <= 0) {
      return Promise.reject(
        new GleanerError("invalid_arguments", `embedding dimensions ${dimensions} is not usable`),
      );
    }
    return Promise.resolve(transaction(this.db, () => {
      const current = this.#currentModel();
      if (current && current.model === model && current.dimensions === dimensions) return false;
      this.db.exec(`DROP TABLE IF EXISTS ${VECTORS}`);
      this.db.exec(
        `CREATE VIRTUAL TABLE ${VECTORS} USING vec0(` +
          `memory_id INTEGER PRIMARY KEY, embedding float[${dimensions}] distance_metric=cosine, ` +
          `kind TEXT, session TEXT)`,
      );
      this.db.exec("UPDATE memories SET embedding_model = NULL WHERE embedding_model IS NOT NULL");
      this.db.exec(`DELETE FROM ${VECTOR_LOG}`);
      const put = this.#stmt("INSERT OR REPLACE INTO memory_meta (key, value) VALUES (?, ?)");
      put.run("embedding_model", model);
      put.run("dimensions", String(dimensions));
      put.run("vector_epoch", crypto.randomUUID());
      this.#statements.clear();
      this.#model = { model, dimensions };
      this.#writes++;
      this.#vectors.reset();
      return current !== null;
    }));
  }

  embeddingModel(): Promise<{ model: string; dimensions: number } | null> {
    const current = this.#currentModel();
    return Promise.resolve(current ? { ...current } : null);
  }

  /**
   * Runs a write in one transaction; once it commits, its vector changes go
   * to the in-memory index (a rolled-back write changes nothing there).
   */
  #write<T>(fn: () => T): T {
    return this.#vectors.write(fn, () => this.#writes++);
  }

  /** Changes whenever any connection may have changed the memories (cache key). */
  #generation(): string {
    return `${dataVersion({ stmt: (sql) => this.#stmt(sql) })}:${this.#writes}`;
  }

  #freshRef(taken: Set<string>): string {
    const exists = this.#stmt("SELECT 1 FROM memories WHERE ref = ?");
    for (;;) {
      const ref = newRef();
      if (!taken.has(ref) && !exists.get(ref)) {
        taken.add(ref);
        return ref;
      }
    }
  }

  /** Inserts one row (inside a write transaction); `taken` holds the refs drawn by this transaction. */
  #insertRow(row: NewMemoryRow, key: string, taken: Set<string>): Memory {
    const current = this.#currentModel();
    const ref = this.#freshRef(taken);
    const embedded = row.embedding && current && row.embedding.model === current.model
      ? row.embedding
      : undefined;
    const created = Math.trunc(row.created_at);
    const occurred = row.occurred_at == null ? null : Math.trunc(row.occurred_at);
    const author = row.author ?? null;
    const { lastInsertRowid } = this.#stmt(
      "INSERT INTO memories (ref, content, kind, session_id, created_at, updated_at, " +
        "superseded_by, tokens, embedding_model, recall_count, last_recalled_at, content_key, " +
        "occurred_at, author) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, 0, NULL, ?, ?, ?)",
    ).run(
      ref,
      row.content,
      row.kind,
      row.session_id,
      created,
      created,
      row.tokens,
      embedded ? embedded.model : null,
      key,
      occurred,
      author,
    );
    const id = Number(lastInsertRowid);
    if (embedded) this.#vectors.putVector(id, row.kind, row.session_id, embedded.vector);
    return toMemory({
      id,
      ref,
      content: row.content,
      kind: row.kind,
      session_id: row.session_id,
      created_at: created,
      updated_at: created,
      recall_count: 0,
      last_recalled_at: null,
      superseded_by: null,
      tokens: row.tokens,
      embedding_model: embedded ? embedded.model : null,
      occurred_at: occurred,
      author,
    });
  }

  insert(rows: NewMemoryRow[]): Promise<Memory[]> {
    if (rows.length === 0) return Promise.resolve([]);
    try {
      const keys = rows.map((row) => memoryTextKey(row.content));
      return Promise.resolve(this.#write(() => {
        const taken = new Set<string>();
        return rows.map((row, i) => this.#insertRow(row, keys[i], taken));
      }));
    } catch (error) {
      return Promise.reject(writeError("save", error));
    }
  }

  /**
   * {@link MemoryBackend.insertDistinct}: the lookup and the inserts share
   * one `BEGIN IMMEDIATE` transaction, which holds the file's write lock, so
   * no other connection or process can insert the same text in between.
   */
  insertDistinct(rows: NewMemoryRow[]): Promise<InsertedMemory[]> {
    if (rows.length === 0) return Promise.resolve([]);
    try {
      const texts = rows.map((row) => normalizeMemoryText(row.content));
      const keys = rows.map((row, i) => memoryTextKey(row.content, texts[i]));
      return Promise.resolve(this.#write(() => {
        const same = this.#stmt(
          `SELECT ${COLUMNS} FROM memories m WHERE m.content_key = ? AND m.session_id IS ? ` +
            "AND m.superseded_by IS NULL ORDER BY m.id",
        );
        const taken = new Set<string>();
        return rows.map((row, i): InsertedMemory => {
          // Rows inserted earlier in this transaction are found here too.
          const found = (same.all(keys[i], row.session_id) as unknown as Row[])
            .find((r) => normalizeMemoryText(r.content) === texts[i]);
          if (found) return { memory: toMemory(found), duplicate: true };
          return { memory: this.#insertRow(row, keys[i], taken), duplicate: false };
        });
      }));
    } catch (error) {
      return Promise.reject(writeError("save", error));
    }
  }

  #live(id: number): Row | undefined {
    return this.#stmt(
      `SELECT ${COLUMNS} FROM memories m WHERE m.id = ? AND m.superseded_by IS NULL`,
    ).get(id) as Row | undefined;
  }

  update(id: number, change: MemoryUpdate): Promise<MemoryUpdateResult> {
    try {
      return Promise.resolve(this.#write(() => {
        const old = this.#live(id);
        if (!old) throw new GleanerError("not_found", `memory ${id} not found`);
        const current = this.#currentModel();
        const ref = this.#freshRef(new Set());
        const { lastInsertRowid } = this.#stmt(
          "INSERT INTO memories (ref, content, kind, session_id, created_at, updated_at, " +
            "superseded_by, tokens, embedding_model, recall_count, last_recalled_at, content_key, " +
            "occurred_at, author) " +
            "SELECT ?, content, kind, session_id, created_at, updated_at, id, tokens, NULL, " +
            "recall_count, last_recalled_at, content_key, occurred_at, author " +
            "FROM memories WHERE id = ?",
        ).run(ref, id);
        const embedded = change.embedding && current && change.embedding.model === current.model
          ? change.embedding
          : undefined;
        const updated = Math.trunc(change.updated_at);
        const occurred = change.occurred_at === undefined
          ? old.occurred_at
          : change.occurred_at === null
          ? null
          : Math.trunc(change.occurred_at);
        const author = change.author === undefined ? old.author : change.author;
        this.#stmt(
          "UPDATE memories SET content = ?, tokens = ?, updated_at = ?, embedding_model = ?, " +
            "content_key = ?, occurred_at = ?, author = ? WHERE id = ?",
        ).run(
          change.content,
          change.tokens,
          updated,
          embedded ? embedded.model : null,
          memoryTextKey(change.content),
          occurred,
          author,
          id,
        );
        if (embedded) this.#vectors.putVector(id, old.kind, old.session_id, embedded.vector);
        else if (current) this.#vectors.dropVector(id);
        const previous = toMemory({
          ...old,
          id: Number(lastInsertRowid),
          ref,
          superseded_by: id,
          embedding_model: null,
        });
        const memory = toMemory({
          ...old,
          content: change.content,
          tokens: change.tokens,
          updated_at: updated,
          embedding_model: embedded ? embedded.model : null,
          occurred_at: occurred,
          author,
        });
        return { memory, previous };
      }));
    } catch (error) {
      return Promise.reject(writeError("update", error));
    }
  }

  delete(id: number): Promise<boolean> {
    try {
      return Promise.resolve(this.#write(() => {
        if (!this.#live(id)) return false;
        this.#stmt("DELETE FROM memories WHERE superseded_by = ?").run(id);
        this.#stmt("DELETE FROM memories WHERE id = ?").run(id);
        if (this.#currentModel()) this.#vectors.dropVector(id);
        return true;
      }));
    } catch (error) {
      return Promise.reject(writeError("delete", error));
    }
  }

  get(key: { id: number } | { ref: string }): Promise<Memory | undefined> {
    const row = "id" in key
      ? this.#stmt(`SELECT ${COLUMNS} FROM memories m WHERE m.id = ?`).get(key.id)
      : this.#stmt(`SELECT ${COLUMNS} FROM memories m WHERE m.ref = ?`).get(key.ref);
    return Promise.resolve(row ? toMemory(row as unknown as Row) : undefined);
  }

  getMany(ids: readonly number[]): Promise<Memory[]> {
    if (ids.length === 0) return Promise.resolve([]);
    const unique = [...new Set(ids)];
    const found = new Map<number, Memory>();
    for (let i = 0; i < unique.length; i += 500) {
      const chunk = unique.slice(i, i + 500);
      const rows = this.db.prepare(
        `SELECT ${COLUMNS} FROM memories m WHERE m.id IN (${chunk.map(() => "?").join(",")})`,
      ).all(...chunk) as unknown as Row[];
      for (const row of rows) found.set(Number(row.id), toMemory(row));
    }
    return Promise.resolve(ids.map((id) => found.get(id)).filter((m): m is Memory => !!m));
  }

  history(id: number): Promise<Memory[]> {
    const rows = this.#stmt(
      `SELECT ${COLUMNS} FROM memories m WHERE m.superseded_by = ? ORDER BY m.id DESC`,
    ).all(id) as unknown as Row[];
    return Promise.resolve(rows.map(toMemory));
  }

  list(query: MemoryListQuery): Promise<MemoryListPage> {
    const where: string[] = [];
    const params: SQLInputValue[] = [];
    scopeWhere(query, where, params);
    if (query.since !== undefined) {
      where.push("m.created_at >= ?");
      params.push(Math.trunc(query.since));
    }
    if (query.until !== undefined) {
      where.push("m.created_at < ?");
      params.push(Math.trunc(query.until));
    }
    let from = "memories m";
    // Every word must appear; the last may be the start of a word.
    const search = query.search?.trim() ? ftsListQuery(query.search) : undefined;
    if (query.search?.trim() && !search) return Promise.resolve({ items: [], total: 0 });
    if (search) {
      from = "memories_fts f JOIN memories m ON m.id = f.rowid";
      where.unshift("memories_fts MATCH ?");
      params.unshift(search);
    }
    const order = query.sort === "stale"
      ? "m.last_recalled_at IS NOT NULL, m.last_recalled_at ASC, m.created_at ASC, m.id ASC"
      : query.sort === "relevance" && search
      ? "bm25(memories_fts) ASC, m.created_at DESC, m.id DESC"
      : "m.created_at DESC, m.id DESC";
    const clause = where.join(" AND ");
    const items = this.#stmt(
      `SELECT ${COLUMNS} FROM ${from} WHERE ${clause} ORDER BY ${order} LIMIT ? OFFSET ?`,
    ).all(...params, Math.max(1, query.limit), Math.max(0, query.offset)) as unknown as Row[];
    // Totals hold until a write (recent-mode recalls count every live memory).
    const generation = this.#generation();
    if (this.#totals.generation !== generation || this.#totals.counts.size > 1_000) {
      this.#totals = { generation, counts: new Map() };
    }
    const key = `${from} WHERE ${clause} ${JSON.stringify(params)}`;
    let total = this.#totals.counts.get(key);
    if (total === undefined) {
      const { n } = this.#stmt(`SELECT count(*) AS n FROM ${from} WHERE ${clause}`)
        .get(...params) as { n: number };
      total = Number(n);
      this.#totals.counts.set(key, total);
    }
    return Promise.resolve({ items: items.map(toMemory), total });
  }

  /**
   * The MATCH expression of a recall query. Scoring every row that holds a
   * common word costs time in proportion to the table, so words found in at
   * least {@link COMMON_WORD_ROWS} rows (counted with a bounded scan) are
   * left out when rarer ones remain: the rare words pick the candidates and
   * rank them. Words absent from the store are dropped.
   */
  #recallMatch(query: string): string | undefined {
    const words = searchWords(query);
    if (words.length <= 1) return words.length ? `"${words[0]}"` : undefined;
    const count = this.#stmt(
      "SELECT count(*) AS n FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)",
    );
    // Counts hold until a write: recalls asking about the same things skip them.
    const generation = this.#generation();
    if (this.#wordCounts.generation !== generation || this.#wordCounts.counts.size > 10_000) {
      this.#wordCounts = { generation, counts: new Map() };
    }
    const cache = this.#wordCounts.counts;
    const present = words
      .map((w) => {
        let n = cache.get(w);
        if (n === undefined) {
          n = Number((count.get(`"${w}"`, COMMON_WORD_ROWS) as { n: number }).n);
          cache.set(w, n);
        }
        return { w, n };
      })
      .filter((c) => c.n > 0);
    if (present.length === 0) return undefined;
    const rare = present.filter((c) => c.n < COMMON_WORD_ROWS);
    return (rare.length ? rare : present).map((c) => `"${c.w}"`).join(" OR ");
  }

  lexicalCandidates(query: string, k: number, scope: MemoryScope): Promise<MemoryCandidate[]> {
    const match = this.#recallMatch(query);
    const limit = Math.trunc(k);
    if (!match || !(limit > 0)) return Promise.resolve([]);
    const where: string[] = [];
    const params: SQLInputValue[] = [];
    scopeWhere(scope, where, params);
    // Without a session the scope passes nearly every match (it drops old
    // versions and the other kind): the best rows by score are checked
    // against it, not every match joined with its row first (the join was
    // half the time at 200,000). The same rows in the same order as the
    // join below; when too few of them pass, the join answers.
    if (scope.session_id === undefined) {
      const best = this.#stmt(
        `SELECT rid, score FROM (${BM25_NEWEST}) ORDER BY score DESC, rid DESC LIMIT ?`,
      ).all(match, MAX_SCORED_ROWS, limit + SCOPE_SLACK) as { rid: number; score: number }[];
      const passing = new Set(
        (this.#stmt(
          `SELECT m.id AS id FROM json_each(?) j CROSS JOIN memories m ON m.id = j.value ` +
            `WHERE ${where.join(" AND ")}`,
        ).all(JSON.stringify(best.map((b) => b.rid)), ...params) as { id: number }[])
          .map((r) => Number(r.id)),
      );
      const kept = best.filter((b) => passing.has(Number(b.rid)));
      if (kept.length >= limit || best.length < limit + SCOPE_SLACK) {
        return Promise.resolve(
          kept.slice(0, limit).map((r) => ({ id: Number(r.rid), score: Number(r.score) })),
        );
      }
    }
    // BM25 scores at most the newest MAX_SCORED_ROWS matching rows, so a query
    // made only of common words costs the same in any store size. CROSS JOIN
    // keeps those rows the outer loop: left to itself the planner walks every
    // live memory of the kind and probes the matches (ten times slower at 100,000).
    const rows = this.#stmt(
      `SELECT m.id AS id, f.score AS score FROM (${BM25_NEWEST}) f ` +
        `CROSS JOIN memories m ON m.id = f.rid WHERE ${where.join(" AND ")} ` +
        `ORDER BY f.score DESC, m.id DESC LIMIT ?`,
    ).all(match, MAX_SCORED_ROWS, ...params, limit) as { id: number; score: number }[];
    return Promise.resolve(rows.map((r) => ({ id: Number(r.id), score: Number(r.score) })));
  }

  vectorCandidates(
    vector: Float32Array,
    k: number,
    scope: MemoryScope,
  ): Promise<MemoryCandidate[]> {
    const current = this.#model;
    if (!current || k <= 0 || vector.length !== current.dimensions) return Promise.resolve([]);
    const index = this.#vectors.forSearch();
    if (index) {
      return Promise.resolve(
        index.dimensions === vector.length ? index.search(vector, k, scope) : [],
      );
    }
    const where = ["embedding MATCH ?", "k = ?"];
    const params: SQLInputValue[] = [vector, Math.min(4096, Math.trunc(k))];
    if (scope.kind) {
      where.push("kind = ?");
      params.push(scope.kind);
    }
    if (scope.session_id !== undefined) {
      where.push("session = ?");
      params.push(scope.session_id ?? NO_SESSION);
    }
    let rows: { id: number; distance: number }[];
    try {
      rows = this.#stmt(
        `SELECT memory_id AS id, distance FROM ${VECTORS} WHERE ${where.join(" AND ")} ` +
          `ORDER BY distance`,
      ).all(...params) as { id: number; distance: number }[];
    } catch (error) {
      // Another process switched the model (table rebuilt): re-read and retry once.
      if (this.#currentModel()?.dimensions === current.dimensions) throw error;
      this.#statements.clear();
      return Promise.resolve([]);
    }
    return Promise.resolve(rows.map((r) => ({ id: Number(r.id), score: 1 - Number(r.distance) })));
  }

  nearestMany(
    vectors: readonly Float32Array[],
    scopes: readonly MemoryScope[],
    minScore: number,
  ): Promise<(MemoryCandidate | undefined)[]> {
    const index = this.#model ? this.#vectors.forSearch(vectors.length) : undefined;
    if (index) {
      const usable = vectors.map((v) => v.length === index.dimensions ? v : new Float32Array(0));
      return Promise.resolve(index.nearest(usable, scopes, minScore));
    }
    return (async () => {
      const out: (MemoryCandidate | undefined)[] = [];
      for (let i = 0; i < vectors.length; i++) {
        const [top] = isZeroVector(vectors[i])
          ? []
          : await this.vectorCandidates(vectors[i], 1, scopes[i] ?? {});
        out.push(top && top.score >= minScore ? top : undefined);
      }
      return out;
    })();
  }

  profilePool(limit: number): Promise<Memory[]> {
    limit = Math.max(0, Math.trunc(limit));
    // Every recall attaches the profile: kept until a write changes the memories.
    const generation = this.#generation();
    const cached = this.#profileCache;
    if (
      cached && cached.generation === generation &&
      (cached.limit >= limit || cached.rows.length < cached.limit)
    ) {
      return Promise.resolve(cached.rows.slice(0, limit).map((m) => ({ ...m })));
    }
    const rows = (this.#stmt(
      `SELECT ${COLUMNS} FROM memories m WHERE m.superseded_by IS NULL AND m.kind = 'profile' ` +
        `ORDER BY m.created_at DESC, m.id DESC LIMIT ?`,
    ).all(limit) as unknown as Row[]).map(toMemory);
    this.#profileCache = { generation, limit, rows };
    return Promise.resolve(rows.map((m) => ({ ...m })));
  }

  authors(limit: number): Promise<string[]> {
    const n = Math.max(0, Math.trunc(limit));
    // Kept until a write changes the memories (every recall asks).
    const generation = this.#generation();
    const cached = this.#authors;
    if (cached && cached.generation === generation && cached.limit >= n) {
      return Promise.resolve(cached.authors.slice(0, n));
    }
    // One index probe per distinct author (a skip scan), not one per memory.
    const rows = n === 0 ? [] : this.#stmt(
      `WITH RECURSIVE a(author) AS (
         SELECT min(author) FROM memories WHERE superseded_by IS NULL AND author IS NOT NULL
         UNION ALL
         SELECT (SELECT min(m.author) FROM memories m
                 WHERE m.superseded_by IS NULL AND m.author IS NOT NULL AND m.author > a.author)
         FROM a WHERE a.author IS NOT NULL
       ) SELECT author FROM a WHERE author IS NOT NULL LIMIT ?`,
    ).all(n) as { author: string }[];
    const authors = rows.map((r) => r.author);
    this.#authors = { generation, limit: n, authors };
    return Promise.resolve([...authors]);
  }

  sessionNeighbours(
    ids: readonly number[],
    before: number,
    after: number,
  ): Promise<Map<number, SessionNeighbours>> {
    const out = new Map<number, SessionNeighbours>();
    const take = (n: number) => Math.max(0, Math.trunc(n));
    const near = (op: "<" | ">") =>
      this.#stmt(
        `SELECT ${COLUMNS} FROM memories m WHERE m.session_id = ? AND m.kind = ? ` +
          `AND m.superseded_by IS NULL AND m.id ${op} ? ORDER BY m.id ${
            op === "<" ? "DESC" : "ASC"
          } LIMIT ?`,
      );
    for (const id of new Set(ids)) {
      const self = this.#live(id);
      if (!self || self.session_id === null) continue;
      const read = (op: "<" | ">", n: number) =>
        n > 0
          ? (near(op).all(self.session_id, self.kind, id, n) as unknown as Row[]).map(toMemory)
          : [];
      out.set(id, { before: read("<", take(before)), after: read(">", take(after)) });
    }
    return Promise.resolve(out);
  }

  markRecalled(ids: readonly number[], at: number): Promise<void> {
    if (ids.length === 0) return Promise.resolve();
    const pool = this.#profileCache?.rows;
    if (pool?.length) {
      const marked = new Set(ids);
      if (pool.some((m) => marked.has(m.id))) this.#profileCache = undefined;
    }
    try {
      transaction(this.db, () => {
        const mark = this.#stmt(
          "UPDATE memories SET recall_count = recall_count + 1, last_recalled_at = ? WHERE id = ?",
        );
        for (const id of new Set(ids)) mark.run(Math.trunc(at), id);
      });
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(writeError("recall bookkeeping", error));
    }
  }

  pendingEmbeddings(limit: number): Promise<PendingEmbedding[]> {
    const rows = this.#stmt(
      "SELECT id, content FROM memories WHERE superseded_by IS NULL AND embedding_model IS NULL " +
        "ORDER BY id LIMIT ?",
    ).all(Math.max(0, Math.trunc(limit))) as { id: number; content: string }[];
    return Promise.resolve(rows.map((r) => ({ id: Number(r.id), content: r.content })));
  }

  setEmbeddings(
    model: string,
    items: readonly { id: number; vector: Float32Array; content?: string }[],
  ): Promise<number> {
    if (items.length === 0) return Promise.resolve(0);
    try {
      return Promise.resolve(this.#write(() => {
        const current = this.#currentModel();
        if (!current || current.model !== model) return 0;
        const read = this.#stmt(
          "SELECT kind, session_id, content FROM memories " +
            "WHERE id = ? AND superseded_by IS NULL AND embedding_model IS NULL",
        );
        const mark = this.#stmt("UPDATE memories SET embedding_model = ? WHERE id = ?");
        let stored = 0;
        for (const item of items) {
          const row = read.get(item.id) as
            | { kind: MemoryKind; session_id: string | null; content: string }
            | undefined;
          if (!row || (item.content !== undefined && item.content !== row.content)) continue;
          this.#vectors.putVector(item.id, row.kind, row.session_id, item.vector);
          mark.run(model, item.id);
          stored++;
        }
        return stored;
      }));
    } catch (error) {
      return Promise.reject(writeError("re-embed", error));
    }
  }

  counts(): Promise<MemoryCounts> {
    const row = this.#stmt(
      "SELECT " +
        "coalesce(sum(superseded_by IS NULL), 0) AS live, " +
        "coalesce(sum(superseded_by IS NULL AND kind = 'episodic'), 0) AS episodic, " +
        "coalesce(sum(superseded_by IS NULL AND kind = 'profile'), 0) AS profile, " +
        "coalesce(sum(superseded_by IS NOT NULL), 0) AS history, " +
        "coalesce(sum(superseded_by IS NULL AND embedding_model IS NOT NULL), 0) AS embedded " +
        "FROM memories",
    ).get() as Record<string, number>;
    const live = Number(row.live);
    const embedded = Number(row.embedded);
    return Promise.resolve({
      live,
      episodic: Number(row.episodic),
      profile: Number(row.profile),
      history: Number(row.history),
      embedded,
      pending: live - embedded,
    });
  }

  close(): Promise<void> {
    this.#vectors.close();
    this.#statements.clear();
    if (this.db.isOpen) this.db.close();
    return Promise.resolve();
  }
}

function writeError(what: string, error: unknown): GleanerError {
  if (error instanceof GleanerError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/Dimension mismatch/i.test(message)) {
    return new GleanerError("invalid_arguments", `memory ${what}: vector has the wrong length`, {
      cause: error,
    });
  }
  if (/database is locked|SQLITE_BUSY/i.test(message)) {
    return new GleanerError("timeout", `memory ${what}: the store is locked by another process`, {
      cause: error,
    });
  }
  return new GleanerError("internal", `memory ${what} failed`, { cause: error });
}
