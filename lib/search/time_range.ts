/**
 * The one `time_range` vocabulary of web search: the values, their type, the
 * zod schema every tool and provider input uses, and the check for requests
 * that did not come through a schema.
 *
 * @module
 */
import { z } from "zod";

/** How recent results must be, shortest first. */
export const TIME_RANGES: readonly ["day", "week", "month", "year"] = [
  "day",
  "week",
  "month",
  "year",
] as const;

/** How recent results must be. */
export type TimeRange = typeof TIME_RANGES[number];

/** The zod schema of a {@link TimeRange}. */
export type TimeRangeSchema = z.ZodEnum<{ [K in TimeRange]: K }>;

/**
 * A zod schema accepting exactly the {@link TIME_RANGES}; each input adds its
 * own `.optional().describe(…)`.
 *
 * @example
 * ```ts
 * import { timeRangeSchema } from "./time_range.ts";
 * console.assert(timeRangeSchema().safeParse("week").success);
 * console.assert(!timeRangeSchema().safeParse("decade").success);
 * ```
 */
export function timeRangeSchema(): TimeRangeSchema {
  return z.enum(TIME_RANGES);
}

/**
 * Whether `value` is one of the {@link TIME_RANGES}.
 *
 * @example
 * ```ts
 * import { isTimeRange } from "./time_range.ts";
 * console.assert(isTimeRange("day") && !isTimeRange("d"));
 * ```
 */
export function isTimeRange(value: unknown): value is TimeRange {
  return (TIME_RANGES as readonly unknown[]).includes(value);
}

/** The values for a message: `day, week, month or year`. */
export const TIME_RANGE_LIST: string = `${TIME_RANGES.slice(0, -1).join(", ")} or ${
  TIME_RANGES.at(-1)
}`;

/** Days each range reaches back (a month 31 days, a year 366: never shorter than asked). */
const RANGE_DAYS: Readonly<Record<TimeRange, number>> = { day: 1, week: 7, month: 31, year: 366 };

/**
 * The first day (`YYYY-MM-DD`, UTC) a range covers, for providers whose
 * filter is a start date (Seltz's `from_date`, Parallel's `after_date`,
 * Keenable's `published_after`): today minus 1, 7, 31 or 366 days.
 *
 * @example
 * ```ts
 * import { timeRangeStart } from "./time_range.ts";
 * const now = Date.parse("2026-03-10T12:00:00Z");
 * console.assert(timeRangeStart("week", now) === "2026-03-03");
 * console.assert(timeRangeStart("day", now) === "2026-03-09");
 * ```
 */
export function timeRangeStart(range: TimeRange, now: number = Date.now()): string {
  return new Date(now - RANGE_DAYS[range] * 86_400_000).toISOString().slice(0, 10);
}
