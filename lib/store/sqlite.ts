/**
 * Opens Gleaner's SQLite file (through `node:sqlite`): creates it with mode
 * 0600 in a 0700 directory, turns on WAL and a busy timeout, and brings the
 * schema up to date with versioned migrations (`PRAGMA user_version`), each in
 * its own transaction.
 *
 * Permissions: read and write access to the folder of the database file (SQLite writes `-wal` and
 * `-shm` beside it); none for `:memory:`.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { GleanerError } from "../errors.ts";
import { type Env, gleanerDataDir } from "../config/env.ts";
import { getGleanerLogger } from "../log.ts";
import { type Migration, MIGRATIONS } from "./migrations.ts";
import { storeFolder, storeModes } from "./file_mode.ts";

const log = getGleanerLogger("store");

/** The special path that keeps the whole store in memory. */
export const MEMORY_PATH = ":memory:";

/** Default busy timeout (ms): how long a writer waits for another process's lock. */
export const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** How long to wait for a lock held by another connection (ms). */
  busyTimeoutMs?: number;
  /** Migrations to apply (default: {@link MIGRATIONS}). */
  migrations?: readonly Migration[];
  /**
   * SQLite extensions to load before migrating (e.g. `sqliteVec.load`); when
   * given, the connection is opened with `allowExtension: true`.
   */
  extensions?: readonly ((db: DatabaseSync) => void)[];
  /** Told what migrating did (the doctor reports it). */
  onMigrated?: (result: MigrationResult) => void;
  /**
   * The user's home directory (`HOME` of the entry point's environment): a
   * store folder that is the home directory is never tightened.
   */
  home?: string;
}

/** Outcome of {@link migrate}. */
export interface MigrationResult {
  /** Schema version found when opening. */
  from: number;
  /** Schema version after migrating. */
  to: number;
  /** Versions applied by this call (empty when already current). */
  applied: number[];
}

/**
 * The default location of the database file:
 * `$XDG_DATA_HOME/gleaner/gleaner.db`, else `$HOME/.local/share/gleaner/gleaner.db`.
 *
 * @example
 * ```ts
 * import { defaultDatabasePath } from "./sqlite.ts";
 * const path = defaultDatabasePath({ XDG_DATA_HOME: "/data" });
 * console.assert(path === "/data/gleaner/gleaner.db");
 * ```
 */
export function defaultDatabasePath(env: Env): string {
  const dir = gleanerDataDir(env);
  if (!dir) {
    throw new GleanerError(
      "invalid_arguments",
      "store.path: neither XDG_DATA_HOME nor HOME is set; set store.path",
      { details: { field: "store.path" } },
    );
  }
  return `${dir}/gleaner.db`;
}

/**
 * Opens (creating if needed) the SQLite store at `path` and migrates it.
 * A new file is created with mode 0600 (its directory 0700), and an existing
 * one that group or others can reach is tightened with a warning; WAL journal mode
 * and `busy_timeout` are set so several processes can share the file.
 * `":memory:"` opens a private in-memory store.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./sqlite.ts";
 * const db = openDatabase(":memory:");
 * const row = db.prepare("PRAGMA user_version").get() as { user_version: number };
 * console.assert(row.user_version >= 1);
 * db.close();
 * ```
 */
export function openDatabase(
  path: string,
  options: OpenDatabaseOptions = {},
): DatabaseSync {
  const busy = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const inMemory = path === MEMORY_PATH;
  let db: DatabaseSync;
  try {
    if (!inMemory) prepareFile(path, options.home);
    db = options.extensions?.length
      ? new DatabaseSync(path, { allowExtension: true })
      : new DatabaseSync(path);
  } catch (error) {
    throw openError(path, error);
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(busy))}`);
    if (!inMemory) {
      const row = db.prepare("PRAGMA journal_mode = WAL").get() as { journal_mode?: string };
      if (row?.journal_mode !== "wal") {
        log.warn("store {path}: WAL mode unavailable (journal_mode={mode})", {
          path,
          mode: row?.journal_mode,
        });
      }
      db.exec("PRAGMA synchronous = NORMAL");
    }
    db.exec("PRAGMA foreign_keys = ON");
    for (const load of options.extensions ?? []) load(db);
    const migrated = migrate(db, options.migrations ?? MIGRATIONS);
    options.onMigrated?.(migrated);
  } catch (error) {
    db.close();
    if (error instanceof GleanerError) throw error;
    throw openError(path, error);
  }
  return db;
}

/**
 * Applies the pending migrations, each with its `user_version` bump inside one
 * `BEGIN IMMEDIATE` transaction. Safe to call again (does nothing when
 * current) and safe against another process migrating at the same time.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { migrate } from "./sqlite.ts";
 * const db = new DatabaseSync(":memory:");
 * const first = migrate(db);
 * const again = migrate(db);
 * console.assert(first.applied.length > 0 && again.applied.length === 0);
 * db.close();
 * ```
 */
export function migrate(
  db: DatabaseSync,
  migrations: readonly Migration[] = MIGRATIONS,
): MigrationResult {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new GleanerError("internal", `store migration ${m.name} has version ${m.version}`);
    }
  });
  const latest = migrations.length;
  const from = userVersion(db);
  if (from > latest) {
    throw new GleanerError(
      "internal",
      `store schema version ${from} is newer than this Gleaner knows (${latest})`,
    );
  }
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= from) continue;
    db.exec("BEGIN IMMEDIATE");
    try {
      // Another process may have migrated while we waited for the lock.
      if (userVersion(db) < migration.version) {
        if (typeof migration.up === "string") db.exec(migration.up);
        else migration.up(db);
        db.exec(`PRAGMA user_version = ${migration.version}`);
        applied.push(migration.version);
      }
      db.exec("COMMIT");
    } catch (error) {
      if (db.isTransaction) db.exec("ROLLBACK");
      throw new GleanerError(
        "internal",
        `store migration ${migration.version} (${migration.name}) failed`,
        { cause: error },
      );
    }
    if (applied.includes(migration.version)) {
      log.info("store migrated to schema {version} ({name})", {
        version: migration.version,
        name: migration.name,
      });
    }
  }
  return { from, to: userVersion(db), applied };
}

/**
 * Runs `fn` inside one transaction (`BEGIN IMMEDIATE`, so the write lock is
 * taken up front and waits `busy_timeout` for other processes), committing on
 * return and rolling back on throw. Inside an open transaction it just runs `fn`.
 *
 * @example
 * ```ts
 * import { openDatabase, transaction } from "./sqlite.ts";
 * const db = openDatabase(":memory:");
 * const n = transaction(db, () => 41 + 1);
 * console.assert(n === 42);
 * db.close();
 * ```
 */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  if (db.isTransaction) return fn();
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = fn();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/** The schema version recorded in the file (`PRAGMA user_version`). */
export function userVersion(db: DatabaseSync): number {
  const row = db.prepare("PRAGMA user_version").get() as { user_version: number };
  return Number(row.user_version);
}

/**
 * Creates the parent directory (0700) and an empty file (0600) when absent,
 * and tightens an existing file or folder that others can reach (see
 * `file_mode.ts`), with a warning.
 */
function prepareFile(path: string, home: string | undefined): void {
  const dir = storeFolder(path);
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    const file = Deno.openSync(path, { createNew: true, write: true, mode: 0o600 });
    file.close();
    Deno.chmodSync(path, 0o600);
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  storeModes(path, { tighten: true, home });
}

function openError(path: string, error: unknown): GleanerError {
  if (error instanceof GleanerError) return error;
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    // The folder, as a scoped grant names it: SQLite also writes `-wal` and `-shm` beside the file.
    const dir = storeFolder(path);
    // Deno names the missing flag (--allow-ffi when an extension cannot load).
    const named = error instanceof Deno.errors.NotCapable
      ? /--allow-ffi/.exec(error.message)?.[0]
      : undefined;
    const flag = error instanceof Deno.errors.NotCapable
      ? named
        ? ` (run with ${named} for it)`
        : ` (run with --allow-read and --allow-write, or add its folder to scoped grants: --allow-read=${dir} --allow-write=${dir})`
      : "";
    return new GleanerError("invalid_arguments", `store.path ${path} is not accessible${flag}`, {
      cause: error,
      details: { field: "store.path" },
    });
  }
  return new GleanerError("invalid_arguments", `store.path ${path} could not be opened`, {
    cause: error,
    details: { field: "store.path" },
  });
}
