/**
 * The `current_datetime` tool: the current date and time in UTC.
 *
 * @module
 */
import { z } from "zod";
import { defineTool, type ToolSpec } from "./spec.ts";

/** Output of `current_datetime`. */
export const CurrentDatetimeOutput: z.ZodObject<{
  iso: z.ZodString;
  date: z.ZodString;
  weekday: z.ZodString;
  unix: z.ZodNumber;
}, z.core.$strip> = z.object({
  iso: z.string().describe("ISO 8601 timestamp in UTC"),
  date: z.string().describe("YYYY-MM-DD"),
  weekday: z.string(),
  unix: z.number().int().describe("Seconds since the Unix epoch"),
});

/**
 * Returns the current UTC date and time.
 *
 * @example
 * ```ts
 * import { currentDatetime } from "./current_datetime.ts";
 * const now = currentDatetime(new Date("2026-01-02T03:04:05Z"));
 * console.assert(now.date === "2026-01-02" && now.weekday === "Friday");
 * ```
 *
 * @internal exported for its documentation example (a doc test)
 */
export function currentDatetime(now: Date = new Date()): z.output<typeof CurrentDatetimeOutput> {
  return {
    iso: now.toISOString(),
    date: now.toISOString().slice(0, 10),
    weekday: now.toLocaleDateString("en-US", { weekday: "long", timeZone: "UTC" }),
    unix: Math.floor(now.getTime() / 1000),
  };
}

/** The tool definition. */
export const currentDatetimeTool: ToolSpec<
  // deno-lint-ignore ban-types
  z.ZodObject<{}, z.core.$strict>,
  typeof CurrentDatetimeOutput
> = defineTool({
  name: "current_datetime",
  scope: "shared",
  title: "Current date and time",
  description: "The current date and time (UTC), for questions that depend on today.",
  input: z.strictObject({}),
  output: CurrentDatetimeOutput,
  http: { path: "/v1/datetime" },
  readOnly: true,
  openWorld: false,
  handler: () => Promise.resolve(currentDatetime()),
  render: (out) => `${out.iso} (${out.weekday}, UTC)`,
});
