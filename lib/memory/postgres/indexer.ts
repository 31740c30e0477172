/**
 * The vector indexer of a PostgreSQL memory database: a save writes its
 * vector to the `staged` column, outside every vector index, and this job
 * moves staged vectors into the HNSW-indexed `embedding` column in batches.
 * So a save never waits for an HNSW insert (at 1,000,000 memories that
 * insert is about 90% of a save's cost); recall reads the staged vectors
 * exactly beside the HNSW result, so a saved memory is found at once.
 *
 * Each Gleaner instance runs one indexer for every tenant of its database.
 * Instances share the work: a batch locks its rows with
 * `FOR UPDATE SKIP LOCKED`, so two indexers never take the same row and
 * never wait for each other or for a save. A batch is one transaction:
 * a crash leaves its rows staged (and found by recall), and the next
 * indexer to run takes them; every database starts with one run. Batches
 * go in key order (tenant, then id): behind one tenant's large backlog the
 * other tenants' vectors wait their turn, found meanwhile as staged.
 *
 * @module
 */
import { getGleanerLogger } from "../../log.ts";
import { delay } from "../../async/delay.ts";
import { pgError, type PgPool } from "./client.ts";

const log = getGleanerLogger("memory");

/** Staged rows moved per transaction (each one HNSW insert, ~4 ms at 1,000,000 rows). */
export const INDEX_BATCH = 100;
/** Wait after a failed batch before the next try (ms). */
const RETRY_MS = 5_000;

/** Options of a {@link VectorIndexer}. */
export interface VectorIndexerOptions {
  /** Staged rows moved per transaction (default {@link INDEX_BATCH}). */
  batch?: number;
}

/**
 * Moves staged vectors into the vector index, in the background.
 *
 * @example
 * ```ts ignore
 * const indexer = new VectorIndexer(pool);
 * indexer.kick(); // after a save commits
 * await indexer.drain(); // nothing staged is left
 * await indexer.close();
 * ```
 */
export class VectorIndexer {
  #pool: PgPool;
  #batch: number;
  #job?: Promise<void>;
  #again = false;
  #closed = false;
  #stop = new AbortController();
  #failing = false;

  /** An indexer on `pool`; nothing runs until {@link kick}. */
  constructor(pool: PgPool, options: VectorIndexerOptions = {}) {
    this.#pool = pool;
    this.#batch = Math.max(1, Math.trunc(options.batch ?? INDEX_BATCH));
  }

  /**
   * Starts moving staged rows unless a run is going (then that run goes on
   * until nothing is left, counting what was committed before this call).
   */
  kick(): void {
    if (this.#closed) return;
    this.#again = true;
    if (this.#job) return;
    const job = this.#run().finally(() => {
      if (this.#job === job) this.#job = undefined;
    });
    this.#job = job;
  }

  async #run(): Promise<void> {
    while (this.#again && !this.#closed) {
      this.#again = false;
      try {
        while (!this.#closed && await this.indexBatch() > 0) {
          // A save committed during the batch is in the next one.
        }
        this.#failing = false;
      } catch (error) {
        if (this.#closed) return;
        // One warning per outage; the next run tries again after a pause.
        if (!this.#failing) {
          log.warn("memory: vector indexing failed, retrying: {error}", {
            error: String(error),
          });
        }
        this.#failing = true;
        this.#again = true;
        await delay(RETRY_MS, this.#stop.signal);
      }
    }
  }

  /**
   * Moves up to `limit` staged rows of any tenant into the vector index, in
   * one transaction; rows another indexer holds are skipped. Returns the
   * rows moved.
   */
  async indexBatch(limit = this.#batch): Promise<number> {
    try {
      const res = await this.#pool.query(
        `WITH s AS (
           SELECT tenant, id FROM gleaner_memory WHERE staged IS NOT NULL
           ORDER BY tenant, id LIMIT $1 FOR UPDATE SKIP LOCKED
         )
         UPDATE gleaner_memory g
         SET embedding = g.staged, embedding_dims = vector_dims(g.staged), staged = NULL
         FROM s WHERE g.tenant = s.tenant AND g.id = s.id`,
        [Math.max(1, Math.trunc(limit))],
      );
      return res.rowCount ?? 0;
    } catch (err) {
      throw pgError(err, "index vectors");
    }
  }

  /** Staged rows of every tenant right now, counted up to `limit`. */
  async backlog(limit = 1_000_000): Promise<number> {
    try {
      const { rows } = await this.#pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM (
           SELECT 1 FROM gleaner_memory WHERE staged IS NOT NULL LIMIT $1
         ) s`,
        [Math.max(0, Math.trunc(limit))],
      );
      return Number(rows[0].n);
    } catch (err) {
      throw pgError(err, "count staged vectors");
    }
  }

  /**
   * Moves staged rows until none that this indexer may take is left (rows
   * another indexer holds are that one's), then waits for a run in flight.
   */
  async drain(): Promise<void> {
    while (!this.#closed && await this.indexBatch() > 0) {
      // until nothing is left
    }
    await this.#job;
  }

  /** Stops after the batch in flight and waits for it. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stop.abort();
    await this.#job;
  }
}
