/**
 * The ordered list of schema migrations of Gleaner's SQLite store. Each entry
 * moves the schema from `version - 1` to `version`; {@link migrate} in
 * `sqlite.ts` applies each one inside its own transaction together with the
 * new `PRAGMA user_version`, so a crash never leaves a half-migrated file.
 *
 * Append new migrations at the end with the next version number; never edit
 * one that has shipped.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

/** One schema step. */
export interface Migration {
  /** Schema version after this step (1, 2, 3, … without gaps). */
  readonly version: number;
  /** Short description, for logs. */
  readonly name: string;
  /** SQL script, or a function run on the open connection (inside the transaction). */
  readonly up: string | ((db: DatabaseSync) => void);
}

/**
 * Every migration of the store, in order.
 *
 * @example
 * ```ts
 * import { MIGRATIONS } from "./migrations.ts";
 * console.assert(MIGRATIONS.every((m, i) => m.version === i + 1));
 * ```
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "cache, domain stats, embeddings",
    up: `
      CREATE TABLE cache_entries (
        ns          TEXT    NOT NULL,
        key         TEXT    NOT NULL,
        value       TEXT    NOT NULL,
        bytes       INTEGER NOT NULL,
        created_at  INTEGER NOT NULL,
        last_access INTEGER NOT NULL,
        PRIMARY KEY (ns, key)
      ) WITHOUT ROWID;
      CREATE INDEX cache_entries_by_access ON cache_entries (last_access);
      CREATE INDEX cache_entries_by_age ON cache_entries (ns, created_at);

      CREATE TABLE cache_totals (
        id    INTEGER PRIMARY KEY CHECK (id = 1),
        bytes INTEGER NOT NULL
      );
      INSERT INTO cache_totals (id, bytes) VALUES (1, 0);
      CREATE TRIGGER cache_entries_ai AFTER INSERT ON cache_entries BEGIN
        UPDATE cache_totals SET bytes = bytes + NEW.bytes WHERE id = 1;
      END;
      CREATE TRIGGER cache_entries_ad AFTER DELETE ON cache_entries BEGIN
        UPDATE cache_totals SET bytes = bytes - OLD.bytes WHERE id = 1;
      END;
      CREATE TRIGGER cache_entries_au AFTER UPDATE OF bytes ON cache_entries BEGIN
        UPDATE cache_totals SET bytes = bytes - OLD.bytes + NEW.bytes WHERE id = 1;
      END;

      CREATE TABLE domain_daily (
        domain    TEXT    NOT NULL,
        tier      TEXT    NOT NULL,
        day       INTEGER NOT NULL,
        attempts  INTEGER NOT NULL DEFAULT 0,
        successes INTEGER NOT NULL DEFAULT 0,
        failures  INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (domain, tier, day)
      ) WITHOUT ROWID;
      CREATE INDEX domain_daily_by_day ON domain_daily (day);

      CREATE TABLE domain_info (
        domain              TEXT PRIMARY KEY,
        last_failure_reason TEXT,
        last_failure_tier   TEXT,
        last_failure_at     INTEGER,
        robots_state        TEXT,
        robots_checked_at   INTEGER,
        llms_txt            INTEGER,
        llms_checked_at     INTEGER
      ) WITHOUT ROWID;

      CREATE TABLE embeddings (
        model      TEXT    NOT NULL,
        hash       TEXT    NOT NULL,
        dims       INTEGER NOT NULL,
        vector     BLOB    NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (model, hash)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    name: "domain memory keyed by origin, with probation",
    // The host-keyed tables counted policy refusals (blocked ports, robots)
    // as failures and mixed every port and scheme of a host: their verdicts
    // are not evidence, so they are dropped rather than carried over.
    up: `
      DROP TABLE IF EXISTS domain_daily;
      DROP TABLE IF EXISTS domain_info;

      CREATE TABLE origin_daily (
        origin    TEXT    NOT NULL,
        tier      TEXT    NOT NULL,
        day       INTEGER NOT NULL,
        attempts  INTEGER NOT NULL DEFAULT 0,
        successes INTEGER NOT NULL DEFAULT 0,
        failures  INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (origin, tier, day)
      ) WITHOUT ROWID;
      CREATE INDEX origin_daily_by_day ON origin_daily (day);

      CREATE TABLE origin_tiers (
        origin               TEXT    NOT NULL,
        tier                 TEXT    NOT NULL,
        consecutive_failures INTEGER NOT NULL DEFAULT 0,
        retry_at             INTEGER,
        policy               TEXT,
        updated_at           INTEGER NOT NULL,
        PRIMARY KEY (origin, tier)
      ) WITHOUT ROWID;

      CREATE TABLE origin_info (
        origin              TEXT PRIMARY KEY,
        host                TEXT NOT NULL,
        last_failure_reason TEXT,
        last_failure_tier   TEXT,
        last_failure_at     INTEGER,
        robots_state        TEXT,
        robots_checked_at   INTEGER,
        llms_txt            INTEGER,
        llms_checked_at     INTEGER
      ) WITHOUT ROWID;
      CREATE INDEX origin_info_by_host ON origin_info (host);
    `,
  },
  {
    version: 3,
    name: "embeddings pruned oldest first",
    up: `CREATE INDEX embeddings_by_age ON embeddings (created_at);`,
  },
  {
    version: 4,
    name: "origins seen in search results",
    up: `
      ALTER TABLE origin_info ADD COLUMN seen_in_search INTEGER;
      ALTER TABLE origin_info ADD COLUMN seen_at INTEGER;
    `,
  },
  {
    version: 5,
    name: "domain capabilities",
    up: `
      ALTER TABLE origin_info ADD COLUMN cap_sampled INTEGER;
      ALTER TABLE origin_info ADD COLUMN cap_json_ld INTEGER;
      ALTER TABLE origin_info ADD COLUMN cap_og_title INTEGER;
      ALTER TABLE origin_info ADD COLUMN cap_meta_ok INTEGER;
      ALTER TABLE origin_info ADD COLUMN cap_meta_at INTEGER;
      ALTER TABLE origin_info ADD COLUMN cap_llms_full_bytes INTEGER;
      ALTER TABLE origin_info ADD COLUMN cap_llms_full_at INTEGER;
      ALTER TABLE origin_info ADD COLUMN cap_strategy TEXT;
      ALTER TABLE origin_info ADD COLUMN cap_strategy_at INTEGER;
    `,
  },
];
