/**
 * One logger for the whole library, on LogTape. Library code never writes to
 * the console directly; entry points decide where records go (stderr by
 * default, so stdio MCP stays clean).
 *
 * @module
 */
import { configure, getLogger, getStreamSink, type Logger, type LogLevel } from "@logtape/logtape";

/** Gleaner's root logger category. */
export const LOG_CATEGORY = "gleaner";

/**
 * Returns the logger for a sub-category, e.g. `getGleanerLogger("net")`.
 *
 * @example
 * ```ts
 * import { getGleanerLogger } from "./log.ts";
 * getGleanerLogger("net").debug("fetching {url}", { url: "https://example.com/" });
 * ```
 */
export function getGleanerLogger(...category: string[]): Logger {
  return getLogger([LOG_CATEGORY, ...category]);
}

let configured = false;

/**
 * Sends Gleaner's log records to stderr at the given level. Called by entry
 * points (CLI, servers), never by library modules. Safe to call twice.
 */
export async function setupLogging(level: LogLevel = "info"): Promise<void> {
  if (configured) return;
  configured = true;
  await configure({
    reset: true,
    sinks: {
      stderr: getStreamSink(Deno.stderr.writable),
    },
    loggers: [
      { category: [LOG_CATEGORY], lowestLevel: level, sinks: ["stderr"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: ["stderr"] },
    ],
  });
}
