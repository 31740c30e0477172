/**
 * The versioned snapshot of domain memory (`gleaner domains export` /
 * `gleaner domains import`): one entry per origin with its daily counters per
 * tier, the probation of each tier, the last failure, the robots.txt and
 * llms.txt states, how often it was seen in search results and its capabilities
 * (the stored `cap_*` fields of `capabilities.ts`), times in ms since the epoch. The same JSON is written and
 * read by the SQLite and the Valkey backends.
 *
 * ```json
 * { "format": "gleaner-domain-memory", "version": 1, "exported_at": "2026-12-01T16:00:00.000Z",
 *   "origins": [{ "origin": "https://example.com",
 *     "days": [{ "day": 20423, "tier": "http", "attempts": 3, "successes": 1, "failures": 2 }],
 *     "probation": [{ "tier": "http", "consecutive_failures": 2, "retry_at": null, "policy": null }],
 *     "last_failure": { "tier": "http", "reason": "timeout", "at": 1764604800000 },
 *     "robots": { "state": "allowed", "checked_at": 1764604800000 },
 *     "llms_txt": { "exists": false, "checked_at": 1764604800000 },
 *     "seen_in_search": { "count": 4, "last_at": 1764604800000 },
 *     "capabilities": { "cap_sampled": 2, "cap_json_ld": 1, "cap_og_title": 2,
 *       "cap_strategy": "http", "cap_strategy_at": 1764604800000 } }] }
 * ```
 *
 * @module
 */
import { z } from "zod";
import { GleanerError } from "../errors.ts";
import { ROBOTS_STATES } from "../net/robots_state.ts";
import { type DomainSnapshotEntry, normalizeOrigin, type RobotsState } from "./types.ts";
import { CapabilityFieldsSchema } from "./capabilities.ts";

export type { DomainSnapshotEntry };

/** The `format` field of a snapshot. */
const DOMAIN_SNAPSHOT_FORMAT = "gleaner-domain-memory";
/** The snapshot version this code writes and reads. */
const DOMAIN_SNAPSHOT_VERSION = 1;

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const time = z.number().int().min(0).max(8.64e15);
const tier = z.string().regex(/^[a-z0-9_-]{1,32}$/, {
  message: "must be 1-32 characters of a-z 0-9 _ -",
});

const EntrySchema = z.strictObject({
  origin: z.string().min(1).max(2048),
  days: z.array(z.strictObject({
    day: z.number().int().min(0).max(1e8),
    tier,
    attempts: count,
    successes: count,
    failures: count,
  })).max(100_000).default([]),
  probation: z.array(z.strictObject({
    tier,
    consecutive_failures: count,
    retry_at: time.nullable(),
    policy: z.string().regex(/^\S{1,64}$/).nullable(),
  })).max(1_000).default([]),
  last_failure: z.strictObject({
    tier,
    reason: z.string().max(200),
    at: time,
  }).optional(),
  robots: z.strictObject({
    state: z.enum(ROBOTS_STATES as unknown as [RobotsState, ...RobotsState[]]),
    checked_at: time,
  }).optional(),
  llms_txt: z.strictObject({ exists: z.boolean(), checked_at: time }).optional(),
  seen_in_search: z.strictObject({ count, last_at: time }).optional(),
  capabilities: CapabilityFieldsSchema.optional(),
});

/** A whole snapshot file. */
export interface DomainSnapshot {
  /** Always {@link DOMAIN_SNAPSHOT_FORMAT}. */
  format: "gleaner-domain-memory";
  /** {@link DOMAIN_SNAPSHOT_VERSION}. */
  version: number;
  /** When it was written. */
  exported_at: string;
  /** The origins. */
  origins: DomainSnapshotEntry[];
}

/**
 * Validates one entry of a snapshot (unknown keys refused), with its origin
 * normalised; throws `invalid_arguments` naming the field.
 *
 * @example
 * ```ts
 * import { parseSnapshotEntry } from "./domain_snapshot.ts";
 * const entry = parseSnapshotEntry({ origin: "HTTPS://Example.com/", days: [] });
 * console.assert(entry.origin === "https://example.com" && entry.probation.length === 0);
 * ```
 */
export function parseSnapshotEntry(raw: unknown): DomainSnapshotEntry {
  const parsed = EntrySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.join(".") || "entry";
    throw new GleanerError("invalid_arguments", `${field}: ${issue.message}`, {
      details: { field },
    });
  }
  return { ...parsed.data, origin: normalizeOrigin(parsed.data.origin) } as DomainSnapshotEntry;
}

/**
 * The entries of a snapshot file, unvalidated (each is checked when
 * restored); throws `invalid_arguments` when the file is not a snapshot of a
 * version this code reads.
 */
export function snapshotEntries(raw: unknown): unknown[] {
  const file = raw as Partial<DomainSnapshot> | null;
  if (!file || typeof file !== "object" || file.format !== DOMAIN_SNAPSHOT_FORMAT) {
    throw new GleanerError(
      "invalid_arguments",
      `not a domain-memory snapshot (format must be "${DOMAIN_SNAPSHOT_FORMAT}")`,
      { details: { field: "format" } },
    );
  }
  if (file.version !== DOMAIN_SNAPSHOT_VERSION) {
    throw new GleanerError(
      "invalid_arguments",
      `snapshot version ${
        JSON.stringify(file.version)
      } is not supported (this Gleaner reads ${DOMAIN_SNAPSHOT_VERSION})`,
      { details: { field: "version" } },
    );
  }
  if (!Array.isArray(file.origins)) {
    throw new GleanerError("invalid_arguments", "origins must be an array", {
      details: { field: "origins" },
    });
  }
  return file.origins;
}

/** A snapshot of `entries`, dated now. */
export function buildSnapshot(entries: DomainSnapshotEntry[]): DomainSnapshot {
  return {
    format: DOMAIN_SNAPSHOT_FORMAT,
    version: DOMAIN_SNAPSHOT_VERSION,
    exported_at: new Date().toISOString(),
    origins: entries,
  };
}
