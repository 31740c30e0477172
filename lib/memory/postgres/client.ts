/**
 * The PostgreSQL client of the memory store: `npm:pg` loaded lazily (only
 * when `memory.backend` is `postgres`, so SQLite users never load it), a
 * connection pool whose sessions turn on pgvector's iterative HNSW scans,
 * and the mapping of driver failures to {@link GleanerError}s that never
 * echo the connection URL or row data.
 *
 * @module
 */
import { GleanerError, permissionError } from "../../errors.ts";

/** Result of one query (the subset of `pg`'s result this store uses). */
export interface PgResult<R> {
  /** Rows as objects keyed by column name. */
  rows: R[];
  /** Rows affected or returned. */
  rowCount: number | null;
}

/** Something that runs parameterised SQL: the pool or one checked-out client. */
export interface PgQueryable {
  /** Runs `text` with `$1…` bound to `values`. */
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PgResult<R>>;
}

/** A client checked out of the pool (one session: transactions live here). */
export interface PgClient extends PgQueryable {
  /** Returns the client to the pool; a truthy argument destroys it instead. */
  release(destroy?: boolean | Error): void;
}

/** The pool (subset of `pg.Pool`). */
export interface PgPool extends PgQueryable {
  /** Checks out a client. */
  connect(): Promise<PgClient>;
  /** Closes every connection. */
  end(): Promise<void>;
  /** Pool events: `connect` for each new session, `error` for idle-client failures. */
  on(event: "connect" | "error", listener: (arg: never) => void): unknown;
}

/** Options of {@link openPgPool}. */
export interface PgPoolOptions {
  /** `postgres://user:pass@host:port/db` (a secret: never logged or echoed). */
  url: string;
  /** Most connections (default 10). */
  max?: number;
  /** HNSW candidate list size per session (`hnsw.ef_search`, default 100). */
  efSearch?: number;
}

/** SQLSTATEs that mean "the server is not reachable or not usable now" (not 08P01, a bug). */
const UNAVAILABLE = /^(0800[0-6]|57P0[1-5]|53\d{3})$/;
/** Socket errors of an unreachable server. */
const NET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "ETIMEDOUT", "EPIPE"]);
/** Name-resolution failures: the host of memory.postgres_url did not resolve. */
const RESOLVE_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_FAIL"]);

/**
 * Maps a driver error to a {@link GleanerError}: `provider_unavailable` when
 * the server cannot be reached, `internal` otherwise. The message names the
 * operation and the SQLSTATE only (no URL, no row data); a Deno permission
 * the process lacks (the driver reads `PG*` variables and the password file
 * for what the URL leaves out) is named with its flag and value.
 *
 * @example
 * ```ts
 * import { pgError } from "./client.ts";
 * const e = pgError(Object.assign(new Error("x"), { code: "ECONNREFUSED" }), "recall");
 * console.assert(e.code === "provider_unavailable");
 * const denied = new Deno.errors.NotCapable(
 *   'Requires env access to "PGPASSWORD", run again with the --allow-env flag',
 * );
 * console.assert(pgError(denied, "connect").message.includes("lacks --allow-env=PGPASSWORD"));
 * ```
 */
export function pgError(err: unknown, operation: string): GleanerError {
  if (err instanceof GleanerError) return err;
  const permission = permissionError(err, operation);
  if (permission) {
    const { flag, value } = permission.details as { flag: string; value?: string };
    const grant = value && !value.includes(",") ? `${flag}=${value}` : flag;
    return new GleanerError(
      "internal",
      `memory store (postgres): ${operation}: the process lacks ${grant} ` +
        "(the PostgreSQL driver reads it for what memory.postgres_url leaves out); " +
        "deno task start and deno task mcp grant it, or add it to the scoped grant",
      { cause: err, details: { ...permission.details, setting: "memory.postgres_url" } },
    );
  }
  const code = typeof (err as { code?: unknown })?.code === "string"
    ? (err as { code: string }).code
    : "";
  const host = (err as { hostname?: unknown })?.hostname;
  if (RESOLVE_CODES.has(code) && typeof host === "string" && host !== "") {
    return new GleanerError(
      "provider_unavailable",
      `memory store (postgres): ${operation}: could not resolve ${host} (${code}); ` +
        "check memory.postgres_url",
      { cause: err, details: { cause: code, host, setting: "memory.postgres_url" } },
    );
  }
  if (NET_CODES.has(code) || UNAVAILABLE.test(code) || /Connection terminated/i.test(String(err))) {
    return new GleanerError(
      "provider_unavailable",
      `memory store (postgres): ${operation}: the PostgreSQL server at memory.postgres_url ` +
        `is unavailable${code ? ` (${code})` : ""}`,
      { cause: err },
    );
  }
  return new GleanerError(
    "internal",
    `memory store (postgres): ${operation} failed${code ? ` (SQLSTATE ${code})` : ""}`,
    { cause: err },
  );
}

/**
 * Opens a connection pool to `url`, loading `npm:pg` on first use. Each new
 * session sets `hnsw.iterative_scan = relaxed_order` (filtered vector
 * searches keep scanning until they have `k` rows), `hnsw.ef_search` and
 * `jit = off` (no query of this store is long enough to repay compiling it).
 * Connecting happens lazily; the first query reports an unreachable server.
 *
 * @example
 * ```ts ignore
 * const pool = await openPgPool({ url: "postgres://gleaner@127.0.0.1:5432/gleaner" });
 * await pool.query("SELECT 1");
 * await pool.end();
 * ```
 */
export async function openPgPool(opts: PgPoolOptions): Promise<PgPool> {
  let Pool: new (config: Record<string, unknown>) => PgPool;
  try {
    const mod = await import("pg");
    Pool = (mod.default ?? mod).Pool;
  } catch (err) {
    throw new GleanerError(
      "internal",
      "memory.backend is postgres but the `pg` client could not be loaded",
      { cause: err },
    );
  }
  const ef = Math.max(10, Math.min(1000, Math.trunc(opts.efSearch ?? 100)));
  const max = opts.max ?? 10;
  const pool = new Pool({
    connectionString: opts.url,
    max,
    // Two sessions (a recall's two chains of reads) stay open while idle: a
    // new session's first HNSW search at 200,000 memories took 102 ms
    // instead of 3 (EXPLAIN ANALYZE, the same buffers hit: most likely the
    // shared pages it touches mapped into the new process), so after 30 s
    // without traffic the next recall paid it. Idle sessions never keep the
    // process alive.
    min: Math.min(2, max),
    allowExitOnIdle: true,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    application_name: "gleaner",
    // Applied by the server at session start: no extra round trip per query.
    // JIT off: the store's statements are short, but the planner prices some
    // far above jit_above_cost (a recursive CTE, BM25 over a large table) and
    // compiling them took 60 ms for 0.2 ms of work (EXPLAIN ANALYZE, 200,000
    // memories), hundreds of ms on a busy machine: the tail of recall.
    options: `-c hnsw.iterative_scan=relaxed_order -c hnsw.ef_search=${ef} -c jit=off`,
  });
  // An idle client losing its connection must not crash the process; the
  // next query reports the failure.
  pool.on("error", () => {});
  return pool;
}

/**
 * Runs `fn` in one transaction on one client: COMMIT on success, ROLLBACK on
 * any error (rethrown as is).
 */
export async function inTransaction<T>(
  pool: PgPool,
  fn: (client: PgClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query("BEGIN");
    const out = await fn(client);
    await client.query("COMMIT");
    return out;
  } catch (err) {
    try {
      await client.query("ROLLBACK");
    } catch {
      broken = true;
    }
    throw err;
  } finally {
    client.release(broken);
  }
}
