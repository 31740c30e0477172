/**
 * One logger for the whole library, on LogTape. Library code never writes to
 * the console directly; entry points decide where records go (stderr by
 * default, so stdio MCP stays clean).
 *
 * @module
 */
import {
  configure,
  drain,
  type Drainable,
  getLogger,
  getStreamSink,
  type Logger,
  type LogLevel,
  type LogRecord,
  type Sink,
} from "@logtape/logtape";

/**
 * Gleaner's root logger category.
 *
 * @internal exported for tests only
 */
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
      stderr: withoutQueryStrings(getStreamSink(Deno.stderr.writable)),
    },
    loggers: [
      { category: [LOG_CATEGORY], lowestLevel: level, sinks: ["stderr"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: ["stderr"] },
    ],
  });
}

const URL_WITH_QUERY = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s?#"'<>]*)\?[^\s#"'<>]*/gi;

/**
 * Removes the query string of every URL in a text (`https://x/p?key=1` →
 * `https://x/p`): query strings often carry tokens.
 *
 * @example
 * ```ts
 * import { stripQueryStrings } from "./log.ts";
 * console.assert(
 *   stripQueryStrings("GET https://a.example/s?q=1&key=k failed") ===
 *     "GET https://a.example/s failed",
 * );
 * ```
 *
 * @internal exported for tests only
 */
export function stripQueryStrings(text: string): string {
  return text.replace(URL_WITH_QUERY, "$1");
}

function strip(value: unknown): unknown {
  if (typeof value === "string") return stripQueryStrings(value);
  if (value instanceof Error) {
    const text = value.stack ?? `${value.name}: ${value.message}`;
    const stripped = stripQueryStrings(text);
    return stripped === text ? value : stripped;
  }
  return value;
}

const LOUD: ReadonlySet<LogLevel> = new Set<LogLevel>(["warning", "error", "fatal"]);

/**
 * Wraps a sink so that records at WARN and above never carry a URL's query
 * string (in the message or its values); quieter records pass unchanged.
 *
 * @example
 * ```ts
 * import type { LogRecord } from "@logtape/logtape";
 * import { withoutQueryStrings } from "./log.ts";
 * const seen: LogRecord[] = [];
 * withoutQueryStrings((r) => void seen.push(r))({
 *   category: ["gleaner"],
 *   level: "warning",
 *   message: ["failed: ", "https://a.example/?token=t", ""],
 *   rawMessage: "failed: {url}",
 *   timestamp: 0,
 *   properties: { url: "https://a.example/?token=t" },
 * });
 * console.assert(seen[0].message[1] === "https://a.example/");
 * ```
 *
 * @internal exported for tests only
 */
export function withoutQueryStrings(sink: Sink): Sink {
  const wrapped: Sink = (record: LogRecord) => {
    if (!LOUD.has(record.level)) return sink(record);
    sink({
      ...record,
      message: record.message.map(strip),
      properties: Object.fromEntries(
        Object.entries(record.properties).map(([key, value]) => [key, strip(value)]),
      ),
    });
  };
  // What the wrapped sink can do beyond writing (wait for its writes, close) stays reachable,
  // so LogTape's drain() and dispose() still reach a stream sink's pending records.
  const own = sink as Sink & Partial<Drainable & AsyncDisposable>;
  return Object.assign(
    wrapped,
    own.drain ? { drain: () => own.drain!() } : {},
    own[Symbol.asyncDispose] ? { [Symbol.asyncDispose]: () => own[Symbol.asyncDispose]!() } : {},
  );
}

/**
 * Waits until every log record written so far has reached stderr: a command that exits right
 * after its work (`Deno.exit`) calls it first, or its last lines may be lost. Never throws.
 *
 * @example
 * ```ts
 * import { flushLogs } from "./log.ts";
 * await flushLogs();
 * ```
 */
export async function flushLogs(): Promise<void> {
  if (!configured) return;
  try {
    await drain();
  } catch {
    // Nothing more can be done for a sink that failed: the process is ending.
  }
}

/**
 * The exit code of a process ended by {@link exitOnUncaught} (`EX_SOFTWARE` of sysexits).
 *
 * @internal exported for tests only
 */
export const UNCAUGHT_EXIT_CODE = 70;

function exitProcess(code: number): void {
  const deno = (globalThis as { Deno?: { exit(code: number): never } }).Deno;
  if (deno) deno.exit(code);
  (globalThis as unknown as { process?: { exit(code: number): never } }).process?.exit(code);
}

/** How long {@link exitOnUncaught} waits for the logs to flush before exiting anyway. */
const FLUSH_BEFORE_EXIT_MS = 2_000;

/**
 * Ends a server process that some code path left in an unknown state: an unhandled promise
 * rejection or an error thrown from a callback (`unhandledrejection` and `error` on
 * `globalThis`; `unhandledRejection` and `uncaughtException` on Node's `process`) is logged at
 * level fatal (category `gleaner.process`), the logs are flushed ({@link flushLogs}, at most
 * 2 s), and the process exits with {@link UNCAUGHT_EXIT_CODE}, so a supervisor (systemd,
 * Docker's restart policy, Kubernetes) starts a clean one. `gleaner serve` and `gleaner mcp`
 * install it; libraries and tests should not. `exit` ends the process (`Deno.exit`, or
 * `process.exit` on Node, by default). Returns a function that removes the listeners.
 *
 * @example
 * ```ts
 * import { exitOnUncaught } from "./log.ts";
 * const remove = exitOnUncaught();
 * remove();
 * ```
 */
export function exitOnUncaught(exit: (code: number) => void = exitProcess): () => void {
  const log = getGleanerLogger("process");
  let ending = false;
  const end = (what: string, error: unknown) => {
    if (ending) return;
    ending = true;
    log.fatal(`${what}: exiting with code {code} so a supervisor restarts the process: {error}`, {
      code: UNCAUGHT_EXIT_CODE,
      error,
    });
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, FLUSH_BEFORE_EXIT_MS));
    Promise.race([flushLogs(), deadline]).finally(() => exit(UNCAUGHT_EXIT_CODE));
  };
  const onRejection = (event: PromiseRejectionEvent) => {
    event.preventDefault();
    end("unhandled promise rejection", event.reason);
  };
  const onError = (event: ErrorEvent) => {
    event.preventDefault();
    end("uncaught error", event.error ?? event.message);
  };
  if (typeof globalThis.addEventListener !== "function") {
    // Node (the npm build) has no global events: its process events do the same.
    const node = (globalThis as unknown as {
      process?: {
        on(event: string, listener: (error: unknown) => void): void;
        off(event: string, listener: (error: unknown) => void): void;
      };
    }).process;
    const rejected = (reason: unknown) => end("unhandled promise rejection", reason);
    const thrown = (error: unknown) => end("uncaught error", error);
    node?.on("unhandledRejection", rejected);
    node?.on("uncaughtException", thrown);
    return () => {
      node?.off("unhandledRejection", rejected);
      node?.off("uncaughtException", thrown);
    };
  }
  globalThis.addEventListener("unhandledrejection", onRejection);
  globalThis.addEventListener("error", onError);
  return () => {
    globalThis.removeEventListener("unhandledrejection", onRejection);
    globalThis.removeEventListener("error", onError);
  };
}
