/**
 * Parsing the `since` / `until` filters of `list_memories` and the
 * `occurred_at` of a saved memory.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";

const UNITS: Record<string, number> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/**
 * A point in time (ms since the epoch) from an ISO 8601 date (`2026-01-31`,
 * midnight UTC), date-time (`2026-01-31T12:00:00Z`, offset optional: UTC
 * when absent) or a duration ago (`30m`, `12h`, `7d`, `2w`). Anything else is
 * `invalid_arguments` naming `field`.
 *
 * @example
 * ```ts
 * import { parseTimeFilter } from "./time.ts";
 * const now = Date.UTC(2026, 0, 8);
 * console.assert(parseTimeFilter("7d", "since", now) === Date.UTC(2026, 0, 1));
 * console.assert(parseTimeFilter("2026-01-02", "since", now) === Date.UTC(2026, 0, 2));
 * ```
 */
export function parseTimeFilter(value: string, field: string, now: number = Date.now()): number {
  const text = value.trim();
  const ago = /^(\d{1,6})\s*([mhdw])$/i.exec(text);
  if (ago) return now - Number(ago[1]) * UNITS[ago[2].toLowerCase()];
  const ms = parseIsoTime(text);
  if (ms !== undefined) return ms;
  throw new GleanerError(
    "invalid_arguments",
    `${field}: expected an ISO 8601 date or date-time, or a duration ago like 7d, 12h, 30m, 2w`,
    { details: { field } },
  );
}

/**
 * The `occurred_at` of a memory (ms since the epoch) from an ISO 8601 date
 * (`2023-05-08`, midnight UTC) or date-time (`2023-05-08T13:56`, UTC when no
 * offset is given); anything else is `invalid_arguments` naming `field`.
 *
 * @example
 * ```ts
 * import { parseOccurredAt } from "./time.ts";
 * console.assert(parseOccurredAt("2023-05-08T13:56", "occurred_at") === Date.UTC(2023, 4, 8, 13, 56));
 * ```
 */
export function parseOccurredAt(value: unknown, field: string): number {
  const ms = typeof value === "string" ? parseIsoTime(value.trim()) : undefined;
  if (ms !== undefined) return ms;
  throw new GleanerError(
    "invalid_arguments",
    `${field}: expected an ISO 8601 date (2023-05-08) or date-time (2023-05-08T13:56Z)`,
    { details: { field } },
  );
}

/** An ISO 8601 date or date-time (UTC unless an offset is given) as ms, or `undefined`. */
function parseIsoTime(text: string): number | undefined {
  // Date.parse rolls a day past the month's end over (2024-02-30 → 1 March).
  const ymd = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!ymd) return undefined;
  const [year, month, day] = [Number(ymd[1]), Number(ymd[2]), Number(ymd[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) {
    return undefined;
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const ms = Date.parse(`${text}T00:00:00Z`);
    if (Number.isFinite(ms)) return ms;
  }
  const dateTime = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i
    .exec(text);
  if (dateTime) {
    const iso = text.replace(" ", "T");
    const ms = Date.parse(dateTime[3] ? iso : `${iso}Z`);
    if (Number.isFinite(ms)) return ms;
  }
  return undefined;
}
