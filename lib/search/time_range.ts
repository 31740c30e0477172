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
