/**
 * The shapes of Gleaner's instruments, shared by the no-op telemetry
 * (`mod.ts`) and the OTLP exporter (`otlp.ts`).
 *
 * @module
 */

/** Attribute values Gleaner attaches (names and codes only, never user text). */
export type TelemetryAttributes = Record<string, string | number | boolean>;

/** What instrumented code sees of the current span. */
export interface SpanHandle {
  /** Adds attributes to the span (and to its duration measurement). */
  set(attributes: TelemetryAttributes): void;
  /** The span's trace id (32 hex digits) when an exporter is running. */
  readonly traceId?: string;
}

/** How a span is exported besides its name and attributes. */
export interface SpanOptions {
  /**
   * OTLP span kind: `internal` (default), or `client` for a call to a
   * database or a model service (as the semantic conventions ask).
   */
  kind?: "internal" | "client";
}

/**
 * Gleaner's counters besides `gleaner.failures` and `gleaner.tokens.saved`, exported as
 * `gleaner.<name>`: cache lookups that found an entry (`cache.hits`) or none (`cache.misses`),
 * with the cache namespace in `gleaner.cache.namespace`; and each reading tier's outcome
 * (`read.tier.outcomes`) with `gleaner.tier` and `gleaner.read.result` (`page`, `thin`,
 * `passed`, or the error code).
 */
export type TelemetryCounter = "cache.hits" | "cache.misses" | "read.tier.outcomes";

/** Gleaner's instruments; {@link NOOP_TELEMETRY} when telemetry is off. */
export interface Telemetry {
  /** True when an exporter is running. */
  readonly enabled: boolean;
  /**
   * Runs `fn` inside a span named `gleaner.<name>` (a child of the current
   * one), records its duration in the `gleaner.<metric>.duration` histogram
   * (ms) and, when it throws, counts the failure by code in `gleaner.failures`.
   */
  span<T>(
    name: string,
    metric: string,
    attributes: TelemetryAttributes,
    fn: (span: SpanHandle) => Promise<T>,
    options?: SpanOptions,
  ): Promise<T>;
  /** Adds to the `gleaner.tokens.saved` counter. */
  tokensSaved(tokens: number, attributes: TelemetryAttributes): void;
  /** Adds one to the `gleaner.<counter>` counter (see {@link TelemetryCounter}). */
  count(counter: TelemetryCounter, attributes: TelemetryAttributes): void;
  /** Sends what is buffered and stops the export timers. */
  shutdown(): Promise<void>;
}
