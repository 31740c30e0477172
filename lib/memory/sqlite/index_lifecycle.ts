/**
 * The lifecycle of the memory store's vector index: writing vectors to the
 * sqlite-vec `vec0` table and its change log, and the in-memory
 * {@link VectorIndex} over them: loaded once searches call for it (at once
 * for a small store, else in slices between turns of the event loop), kept
 * current with this connection's committed writes and, through the change
 * log, with other processes', dropped over its byte cap, and reloaded when
 * the model changes or the log no longer reaches back. Reading the `vec0`
 * table itself is `vectors.ts`.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { clearImmediate, setImmediate } from "node:timers";
import { getGleanerLogger } from "../../log.ts";
import { isZeroVector } from "../../embed/vector.ts";
import { transaction } from "../../store/sqlite.ts";
import { openVectorReader, type VectorReader } from "./vectors.ts";
import { bytesPerVector, VectorIndex } from "../vector/vector_index.ts";
import type { MemoryKind } from "../types.ts";

const log = getGleanerLogger("memory");

/** The `vec0` table of the memory vectors. */
export const VECTORS = "memory_vectors";
/** The log of vector changes (one row per changed memory id), read by other processes. */
export const VECTOR_LOG = "memory_vector_log";
/** The `session` column of a vector without a session. */
export const NO_SESSION = "";

/** A duplicate check of this many vectors loads the index whatever the count of searches. */
const INDEX_BATCH = 16;
/** Vector changes kept in the log; a process further behind reloads its index. */
export const VECTOR_LOG_KEEP = 10_000;
/** Time (ms) one slice of an index load reads before yielding to the event loop. */
const LOAD_SLICE_MS = 6;
/** Vectors (or logged changes) read between two looks at the clock during a load. */
const LOAD_READ_ROWS = 256;
/** A store of at most this many live memories loads at once (a few ms); a larger one in the background. */
const LOAD_AT_ONCE = 1_000;
/** Times a load starts over (model changed, log pruned) before waiting for the next search. */
const LOAD_ATTEMPTS = 3;

/** What an index reflects: model, vector table epoch, last log entry applied, `data_version`. */
interface Synced {
  model: string;
  epoch: string;
  seq: number;
  dataVersion: number;
}

/**
 * A load of the in-memory index in progress: read a slice at a time between
 * turns of the event loop, never inside a transaction left open across one.
 */
interface IndexLoad {
  /** Set once the first slice noted where the vector log stood and opened the reader. */
  run?: {
    index: VectorIndex;
    /** Model, epoch, and the last log entry applied: at first the one before any read. */
    synced: Synced;
    /** Undefined once every vector was read (the logged changes are applied next). */
    reader?: VectorReader;
  };
  attempts: number;
  timer?: ReturnType<typeof setImmediate>;
  /** Settles when the load ends (loaded, given up, or stopped). */
  done: Promise<void>;
  finish: () => void;
}

/** What the index needs of the backend: its connection, statement cache and model. */
export interface IndexHost {
  /** The connection. */
  readonly db: DatabaseSync;
  /** A prepared statement (cached by the backend). */
  stmt(sql: string): StatementSync;
  /** Re-reads the current model (another process may have changed it). */
  currentModel(): { model: string; dimensions: number } | null;
}

/** Settings of the in-memory index (see `SqliteMemoryOptions`). */
export interface IndexSettings {
  /** False keeps every search on `vec0`. */
  enabled: boolean;
  /** Bytes over which the index is dropped (searches go to `vec0`). */
  maxBytes: number;
  /** Vector searches before the index loads. */
  after: number;
  /**
   * Most logged changes this process catches up from; further behind, it reloads
   * (at most, and by default, `VECTOR_LOG_KEEP`: the log every writer keeps).
   */
  catchUpMax?: number;
}

/** `PRAGMA data_version`: changes when another connection commits. */
export function dataVersion(host: Pick<IndexHost, "stmt">): number {
  return Number(
    (host.stmt("PRAGMA data_version").get() as { data_version: number }).data_version,
  );
}

/**
 * The vector writes of one SQLite memory backend and its in-memory index
 * (see the module documentation).
 */
export class VectorIndexLifecycle {
  #host: IndexHost;
  #enabled: boolean;
  #maxBytes: number;
  /** The in-memory vectors, when loaded. */
  #index: VectorIndex | undefined;
  /** What the index reflects: model, vector table epoch, last log entry, `data_version`. */
  #synced: Synced = { model: "", epoch: "", seq: 0, dataVersion: -1 };
  /** Epoch of the vector table when the index was found over its byte cap (or failed to load). */
  #tooBig: string | undefined;
  /** Vector changes of the write transaction in progress (applied to the index on commit). */
  #changes: { id: number; kind?: MemoryKind; session?: string | null; vector?: Float32Array }[] =
    [];
  #lastSeq = 0;
  /** The index load in progress (one at a time). */
  #load: IndexLoad | undefined;
  /** Vector searches before the index loads (see {@link forSearch}), and how many ran. */
  #after: number;
  #searches = 0;
  /** Most logged changes caught up from (see {@link IndexSettings.catchUpMax}). */
  #catchUpMax: number;

  /** Serves the backend `host` with `settings`. */
  constructor(host: IndexHost, settings: IndexSettings) {
    this.#host = host;
    this.#enabled = settings.enabled;
    this.#maxBytes = settings.maxBytes;
    this.#after = settings.after;
    this.#catchUpMax = Math.min(settings.catchUpMax ?? VECTOR_LOG_KEEP, VECTOR_LOG_KEEP);
  }

  /** The in-memory vector index, when one is loaded (tests and benchmarks). */
  get index(): VectorIndex | undefined {
    return this.#index;
  }

  /** True while the in-memory vector index loads in the background. */
  get loading(): boolean {
    return this.#load !== undefined;
  }

  /**
   * Settles when the index load in progress (if any) ends, with the index
   * then in use (`undefined` when the load gave up or was stopped); searches
   * meanwhile answer from `vec0` (tests and benchmarks).
   */
  async loaded(): Promise<VectorIndex | undefined> {
    while (this.#load) await this.#load.done;
    return this.#index;
  }

  /** Writes the vector of `id` and logs the change (inside a write transaction). */
  putVector(id: number, kind: MemoryKind, session: string | null, vector: Float32Array): void {
    this.dropVector(id);
    // An all-zero vector (a text the model maps to nothing) has no direction:
    // the row counts as embedded but never takes part in vector search.
    if (isZeroVector(vector)) return;
    this.#host.stmt(
      `INSERT INTO ${VECTORS} (memory_id, embedding, kind, session) VALUES (?, ?, ?, ?)`,
    ).run(BigInt(id), vector, kind, session ?? NO_SESSION);
    this.#changes.push({ id, kind, session, vector });
  }

  /** Deletes the vector of `id` and logs the change (inside a write transaction). */
  dropVector(id: number): void {
    this.#host.stmt(`DELETE FROM ${VECTORS} WHERE memory_id = ?`).run(BigInt(id));
    const { lastInsertRowid } = this.#host.stmt(`INSERT INTO ${VECTOR_LOG} (memory_id) VALUES (?)`)
      .run(id);
    const seq = Number(lastInsertRowid);
    if (seq % 1024 === 0) {
      this.#host.stmt(`DELETE FROM ${VECTOR_LOG} WHERE seq <= ?`).run(seq - VECTOR_LOG_KEEP);
    }
    this.#lastSeq = seq;
    this.#changes.push({ id });
  }

  /**
   * Runs a write in one transaction; once it commits, its vector changes go
   * to the in-memory index (a rolled-back write changes nothing there).
   * `committed` runs once the transaction commits, before the index changes.
   */
  write<T>(fn: () => T, committed: () => void): T {
    if (this.#host.db.isTransaction) {
      // Someone else's transaction: its fate is unknown here, so reload later.
      this.#index = undefined;
      return fn();
    }
    this.#changes = [];
    try {
      const result = transaction(this.#host.db, fn);
      committed();
      this.#applyChanges();
      return result;
    } finally {
      this.#changes = [];
    }
  }

  /** Drops the index and any load in progress (the model was switched: the vectors are new). */
  reset(): void {
    this.#index = undefined;
    this.#stopLoad();
    this.#tooBig = undefined;
  }

  /** Drops the index and any load in progress (closing). */
  close(): void {
    this.#stopLoad();
    this.#index = undefined;
  }

  #applyChanges(): void {
    const index = this.#index;
    if (!index || this.#changes.length === 0) return;
    for (const change of this.#changes) {
      if (change.vector) index.upsert(change.id, change.kind!, change.session!, change.vector);
      else index.remove(change.id);
    }
    // No other connection committed since the index was synced: it is now
    // current up to this write's last log entry.
    if (dataVersion(this.#host) === this.#synced.dataVersion) this.#synced.seq = this.#lastSeq;
    if (index.bytes() > this.#maxBytes) {
      this.#index = undefined;
      this.#tooBig = this.#synced.epoch;
    }
  }

  #epoch(): string {
    const row = this.#host.stmt("SELECT value FROM memory_meta WHERE key = 'vector_epoch'").get() as
      | { value: string }
      | undefined;
    return row?.value ?? "";
  }

  /**
   * The in-memory index, current with every committed write (this process's
   * and other processes'), or `undefined` when it is disabled, over its cap,
   * loading, or there is no model yet (the caller then searches `vec0`).
   */
  forSearch(queries = 1): VectorIndex | undefined {
    if (!this.#enabled || this.#host.db.isTransaction) return undefined;
    if (!this.#index) {
      if (this.#load) return undefined;
      // Loading costs about a second per 100,000 vectors (in slices, between
      // turns of the event loop): a process that only asks once or twice (a
      // CLI call) searches vec0; a batch or a third search starts the load.
      this.#searches++;
      if (queries < INDEX_BATCH && this.#searches <= this.#after) return undefined;
      return this.#startLoad();
    }
    const version = dataVersion(this.#host);
    if (version === this.#synced.dataVersion) return this.#index;
    const index = this.#index;
    const synced = { ...this.#synced };
    const caught = this.#catchUp(index, synced, version, LOAD_SLICE_MS);
    if (caught === true) {
      this.#synced = synced;
      return index;
    }
    // Many changes to apply (the rest in the background) or a reload: vec0 meanwhile.
    this.#index = undefined;
    return this.#startLoad(
      caught === "more" ? { index, synced } : undefined,
    );
  }

  /**
   * Applies the vector changes logged after `synced.seq` (other processes',
   * or any made while `index` loaded) to `index`, advancing `synced`: true
   * once current, `"more"` when `budgetMs` ran out first, false when a reload
   * is needed (model changed, or the log no longer reaches back).
   */
  #catchUp(
    index: VectorIndex,
    synced: Synced,
    version: number,
    budgetMs = Infinity,
  ): boolean | "more" {
    const started = performance.now();
    const current = this.#host.currentModel();
    if (
      !current || current.model !== synced.model ||
      current.dimensions !== index.dimensions || this.#epoch() !== synced.epoch
    ) {
      return false;
    }
    // Too many changes: reloading is cheaper.
    const { n } = this.#host.stmt(`SELECT count(*) AS n FROM ${VECTOR_LOG} WHERE seq > ?`)
      .get(synced.seq) as { n: number };
    if (Number(n) > this.#catchUpMax) return false;
    const next = this.#host.stmt(
      `SELECT seq, memory_id AS id FROM ${VECTOR_LOG} WHERE seq > ? ORDER BY seq LIMIT ?`,
    );
    const vector = this.#host.stmt(`SELECT embedding FROM ${VECTORS} WHERE memory_id = ?`);
    const row = this.#host.stmt(
      "SELECT kind, session_id FROM memories WHERE id = ? AND superseded_by IS NULL",
    );
    for (;;) {
      const log = next.all(synced.seq, LOAD_READ_ROWS) as { seq: number; id: number }[];
      // A gap means the entries this process missed were pruned.
      if (log.length > 0 && Number(log[0].seq) !== synced.seq + 1) return false;
      for (const id of new Set(log.map((l) => Number(l.id)))) {
        const v = vector.get(BigInt(id)) as { embedding: Uint8Array } | undefined;
        const m = row.get(id) as { kind: MemoryKind; session_id: string | null } | undefined;
        if (!v || !m) {
          index.remove(id);
          continue;
        }
        const bytes = v.embedding.slice(0, index.dimensions * 4);
        index.upsert(id, m.kind, m.session_id, new Float32Array(bytes.buffer));
      }
      if (log.length > 0) synced.seq = Number(log[log.length - 1].seq);
      if (log.length < LOAD_READ_ROWS) break;
      if (performance.now() - started >= budgetMs) return "more";
    }
    synced.dataVersion = version;
    return true;
  }

  /**
   * Starts loading every vector into a new index (or, given `run`, applying
   * the logged changes to one). A small store loads here and then (the
   * index is returned); otherwise the first slice runs on the next turn of
   * the event loop.
   */
  #startLoad(run?: IndexLoad["run"]): VectorIndex | undefined {
    let finish = () => {};
    const done = new Promise<void>((resolve) => finish = resolve);
    const load: IndexLoad = { run, attempts: 0, done, finish };
    this.#load = load;
    if (!run) {
      // Only a load from scratch may run here and then; a catch-up goes on in the background.
      const { n } = this.#host.stmt(
        "SELECT count(*) AS n FROM (SELECT 1 FROM memories WHERE superseded_by IS NULL LIMIT ?)",
      ).get(LOAD_AT_ONCE + 1) as { n: number };
      if (Number(n) <= LOAD_AT_ONCE) return this.#slice(load, Infinity);
    }
    load.timer = setImmediate(() => this.#slice(load));
    return undefined;
  }

  /** Ends `load` (loaded or not) and wakes whoever waits for it. */
  #endLoad(load: IndexLoad): void {
    if (load.timer !== undefined) clearImmediate(load.timer);
    load.timer = undefined;
    if (this.#load === load) this.#load = undefined;
    load.finish();
  }

  /** Stops the load in progress, if any (model switched here, or closing). */
  #stopLoad(): void {
    if (this.#load) this.#endLoad(this.#load);
  }

  /**
   * One slice of `load`, about `sliceMs` long (a small store: all of it), in a short read
   * transaction committed before returning (so this connection's writes
   * never run inside it): the first notes where the vector log stands and
   * opens the reader; the next ones read vectors; the last ones apply every
   * change logged since the first, then put the index in use.
   */
  #slice(load: IndexLoad, sliceMs = LOAD_SLICE_MS): VectorIndex | undefined {
    load.timer = undefined;
    if (this.#load !== load || !this.#host.db.isOpen) return undefined;
    if (this.#host.db.isTransaction) {
      // Someone else's transaction on this connection: try again after it.
      load.timer = setImmediate(() => this.#slice(load));
      return undefined;
    }
    const started = performance.now();
    let outcome: "more" | "loaded" | "again" | "stop" = "more";
    let epoch = "";
    const version = dataVersion(this.#host);
    this.#host.db.exec("BEGIN");
    try {
      const current = this.#host.currentModel();
      epoch = this.#epoch();
      let run = load.run;
      if (!run) {
        run = load.run = this.#beginRun(current, epoch);
        if (!run) outcome = "stop";
      } else if (
        !current || current.model !== run.synced.model ||
        current.dimensions !== run.index.dimensions || epoch !== run.synced.epoch
      ) {
        // The model changed while loading: what was read is of no use.
        outcome = "again";
      }
      // Each phase goes on in this slice while time is left (a small store
      // loads in one).
      if (run && outcome === "more" && run.reader) {
        if (!this.#readSlice(run.reader, run.index, started, sliceMs)) run.reader = undefined;
      }
      if (
        run && outcome === "more" && !run.reader && performance.now() - started < sliceMs
      ) {
        const budget = sliceMs - (performance.now() - started);
        const caught = this.#catchUp(run.index, run.synced, version, budget);
        if (caught === false) outcome = "again";
        else if (caught === true) {
          if (run.index.bytes() > this.#maxBytes) {
            this.#tooBig = run.synced.epoch;
            outcome = "stop";
          } else {
            this.#index = run.index;
            this.#synced = run.synced;
            outcome = "loaded";
          }
        }
      }
    } catch (error) {
      // Searching vec0 still works: stay with it until the vectors change model.
      log.warn("memory: vectors not loaded into memory, searching vec0: {error}", {
        error: String(error),
      });
      this.#tooBig = epoch;
      outcome = "stop";
    } finally {
      this.#host.db.exec("COMMIT");
    }
    if (outcome === "again") {
      load.run = undefined;
      if (++load.attempts >= LOAD_ATTEMPTS) outcome = "stop";
    }
    if (outcome === "loaded" || outcome === "stop") {
      this.#endLoad(load);
      return outcome === "loaded" ? this.#index : undefined;
    }
    load.timer = setImmediate(() => this.#slice(load));
    return undefined;
  }

  /**
   * Reads vectors into `index` until `sliceMs` after `started`; false once
   * every vector was read.
   */
  #readSlice(
    reader: VectorReader,
    index: VectorIndex,
    started: number,
    sliceMs: number,
  ): boolean {
    const meta = this.#host.stmt(
      "SELECT id, kind, session_id FROM memories WHERE id IN (SELECT value FROM json_each(?)) " +
        "AND superseded_by IS NULL AND embedding_model IS NOT NULL",
    );
    const ids: number[] = [];
    const vectors: Float32Array[] = [];
    while (performance.now() - started < sliceMs) {
      ids.length = 0;
      vectors.length = 0;
      const more = reader.read(LOAD_READ_ROWS, (id, vector) => {
        ids.push(id);
        vectors.push(vector);
      });
      if (ids.length > 0) {
        const rows = meta.all(JSON.stringify(ids)) as {
          id: number;
          kind: MemoryKind;
          session_id: string | null;
        }[];
        const found = new Map(rows.map((r) => [Number(r.id), r]));
        // A vector read twice (moved between slices) is stored twice: the log
        // entry of its move puts the right one in place at the end.
        ids.forEach((id, i) => {
          const m = found.get(id);
          if (m) index.upsert(id, m.kind, m.session_id, vectors[i]);
        });
      }
      if (!more) return false;
    }
    return true;
  }

  /**
   * The start of a load (inside the slice's transaction): notes where the
   * vector log stands, checks the byte cap, and opens the reader.
   */
  #beginRun(
    current: { model: string; dimensions: number } | null,
    epoch: string,
  ): IndexLoad["run"] {
    if (!current || this.#tooBig === epoch) return undefined;
    const seq = this.#host.stmt("SELECT seq FROM sqlite_sequence WHERE name = ?").get(VECTOR_LOG) as
      | { seq: number }
      | undefined;
    // Live memories less pending ones (both counted on small partial indexes):
    // at least as many as the vectors stored (all-zero ones are not).
    const { n } = this.#host.stmt(
      "SELECT (SELECT count(*) FROM memories WHERE superseded_by IS NULL) - " +
        "(SELECT count(*) FROM memories WHERE superseded_by IS NULL AND embedding_model IS NULL) " +
        "AS n",
    ).get() as { n: number };
    if (Number(n) * bytesPerVector(current.dimensions) > this.#maxBytes) {
      this.#tooBig = epoch;
      return undefined;
    }
    const ids = this.#host.stmt(
      "SELECT id FROM memories WHERE superseded_by IS NULL AND embedding_model IS NOT NULL " +
        "AND id > ? ORDER BY id LIMIT ?",
    );
    const reader = openVectorReader(
      this.#host.db,
      VECTORS,
      current.dimensions,
      (after, limit) => (ids.all(after, limit) as { id: number }[]).map((r) => Number(r.id)),
    );
    const index = new VectorIndex(current.dimensions);
    index.reserve(Number(n));
    const synced = { model: current.model, epoch, seq: Number(seq?.seq ?? 0), dataVersion: -1 };
    return { index, synced, reader };
  }
}
