/**
 * A small OTLP/HTTP (JSON) exporter for Gleaner's own spans and metrics,
 * loaded only when an endpoint is configured (see `mod.ts`).
 *
 * Honoured variables: `OTEL_EXPORTER_OTLP_ENDPOINT` (base URL; `/v1/traces`
 * and `/v1/metrics` are appended), `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` and
 * `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` (full URLs), `OTEL_EXPORTER_OTLP_HEADERS`
 * (and the per-signal `…_TRACES_HEADERS` / `…_METRICS_HEADERS`),
 * `OTEL_EXPORTER_OTLP_TIMEOUT`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
 * `OTEL_TRACES_EXPORTER=none`, `OTEL_METRICS_EXPORTER=none`,
 * `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_BSP_MAX_QUEUE_SIZE` and
 * `OTEL_METRIC_EXPORT_INTERVAL`. Only the `http/json` protocol is spoken.
 *
 * Spans nest through `AsyncLocalStorage`, so a tool call's stages share its
 * trace. Metrics are cumulative. Timers never keep the process alive; call
 * `shutdown()` to send what is left.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { getGleanerLogger } from "../log.ts";
import { VERSION } from "../version.ts";
import type { SpanHandle, SpanOptions, Telemetry, TelemetryAttributes } from "./types.ts";

const log = getGleanerLogger("telemetry");

/** Histogram bucket bounds (ms) for every duration. */
const DURATION_BOUNDS: readonly number[] = [
  1,
  5,
  10,
  25,
  50,
  100,
  250,
  500,
  1_000,
  2_500,
  5_000,
  10_000,
  30_000,
];

type OtlpValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean };

interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

interface SpanContext {
  traceId: string;
  spanId: string;
}

interface FinishedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  status: { code: number; message?: string };
}

interface HistogramPoint {
  attributes: TelemetryAttributes;
  count: number;
  sum: number;
  min: number;
  max: number;
  buckets: number[];
}

function toValue(value: string | number | boolean): OtlpValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

function toAttributes(attributes: TelemetryAttributes): OtlpAttribute[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: toValue(value) }));
}

function randomHex(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(buf, (b) => b.toString(16).padStart(2, "0")).join("");
}

function nowNanos(): string {
  const ms = performance.timeOrigin + performance.now();
  return (BigInt(Math.floor(ms)) * 1_000_000n + BigInt(Math.round((ms % 1) * 1e6))).toString();
}

/** Stable key of an attribute set (sorted), for metric points. */
function attributeKey(attributes: TelemetryAttributes): string {
  return JSON.stringify(Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b)));
}

/** The error code of a failure, never its message. */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && /^[a-z_]{1,40}$/.test(code) ? code : "internal";
}

/**
 * Parses `key=value,key2=value2` (values percent-decoded), as the OTEL header
 * and resource variables are written; malformed pairs are skipped.
 *
 * @example
 * ```ts
 * import { parseKeyValues } from "./otlp.ts";
 * const parsed = parseKeyValues("api-key=a%20b, x=1");
 * console.assert(parsed["api-key"] === "a b" && parsed.x === "1");
 * ```
 *
 * @internal exported for tests only
 */
export function parseKeyValues(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at < 1) continue;
    try {
      out[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(
        pair.slice(at + 1).trim(),
      );
    } catch {
      // malformed percent-encoding: skipped
    }
  }
  return out;
}

function positive(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** Where and how the exporter sends, read from the `OTEL_*` variables. */
export interface OtlpSettings {
  /** Traces URL, or undefined when traces are off. */
  tracesUrl?: string;
  /** Metrics URL, or undefined when metrics are off. */
  metricsUrl?: string;
  /** Headers for traces. */
  tracesHeaders: Record<string, string>;
  /** Headers for metrics. */
  metricsHeaders: Record<string, string>;
  /** Export timeout (ms). */
  timeoutMs: number;
  /** Span export delay (ms). */
  spanDelayMs: number;
  /** Most spans kept waiting for export. */
  maxQueue: number;
  /** Metric export interval (ms). */
  metricIntervalMs: number;
  /** Resource attributes (service name and version included). */
  resource: TelemetryAttributes;
}

/**
 * Reads the exporter settings from the environment.
 *
 * @example
 * ```ts
 * import { otlpSettings } from "./otlp.ts";
 * const s = otlpSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/" });
 * console.assert(s.tracesUrl === "http://127.0.0.1:4318/v1/traces");
 * console.assert(s.resource["service.name"] === "gleaner");
 * ```
 *
 * @internal exported for tests only
 */
export function otlpSettings(env: Record<string, string | undefined>): OtlpSettings {
  const base = (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "").trim().replace(/\/+$/, "");
  const signalUrl = (specific: string | undefined, path: string, off: string | undefined) => {
    if ((off ?? "").trim().toLowerCase() === "none") return undefined;
    const url = (specific ?? "").trim() || (base ? `${base}${path}` : "");
    return url || undefined;
  };
  const common = parseKeyValues(env.OTEL_EXPORTER_OTLP_HEADERS);
  return {
    tracesUrl: signalUrl(
      env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
      "/v1/traces",
      env.OTEL_TRACES_EXPORTER,
    ),
    metricsUrl: signalUrl(
      env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT,
      "/v1/metrics",
      env.OTEL_METRICS_EXPORTER,
    ),
    tracesHeaders: { ...common, ...parseKeyValues(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    metricsHeaders: { ...common, ...parseKeyValues(env.OTEL_EXPORTER_OTLP_METRICS_HEADERS) },
    timeoutMs: positive(env.OTEL_EXPORTER_OTLP_TIMEOUT, 10_000),
    spanDelayMs: positive(env.OTEL_BSP_SCHEDULE_DELAY, 5_000),
    maxQueue: positive(env.OTEL_BSP_MAX_QUEUE_SIZE, 2_048),
    metricIntervalMs: positive(env.OTEL_METRIC_EXPORT_INTERVAL, 60_000),
    resource: {
      ...parseKeyValues(env.OTEL_RESOURCE_ATTRIBUTES),
      "service.name": (env.OTEL_SERVICE_NAME ?? "").trim() || "gleaner",
      "service.version": VERSION,
      "telemetry.sdk.name": "gleaner",
      "telemetry.sdk.language": "js",
    },
  };
}

/** Posts one OTLP/JSON export; a failure or refusal is logged, never thrown. */
async function postOtlp(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  timeoutMs: number,
): Promise<void> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    if (!response.ok) {
      log.warn("telemetry export answered {status}", { status: response.status });
    }
  } catch (error) {
    log.warn("telemetry export failed: {error}", { error: String(error) });
  }
}

/**
 * Starts the exporter for the given environment.
 *
 * @example
 * ```ts ignore
 * import { createOtlpTelemetry } from "./otlp.ts";
 * const telemetry = createOtlpTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" });
 * await telemetry.span("demo", "demo", {}, () => Promise.resolve());
 * await telemetry.shutdown();
 * ```
 */
export function createOtlpTelemetry(env: Record<string, string | undefined>): Telemetry {
  const settings = otlpSettings(env);
  const protocol = (env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "").trim();
  if (protocol && protocol !== "http/json") {
    log.warn("OTEL_EXPORTER_OTLP_PROTOCOL={protocol}: Gleaner sends http/json", { protocol });
  }
  const resource = { attributes: toAttributes(settings.resource) };
  const scope = { name: "gleaner", version: VERSION };
  const context = new AsyncLocalStorage<SpanContext>();
  const startedAt = nowNanos();

  let queue: FinishedSpan[] = [];
  let dropped = 0;
  const histograms = new Map<string, Map<string, HistogramPoint>>();
  const counters = new Map<string, Map<string, { attributes: TelemetryAttributes; n: number }>>();

  const post = (url: string, headers: Record<string, string>, body: unknown) =>
    postOtlp(url, headers, body, settings.timeoutMs);

  const flushSpans = async () => {
    if (!settings.tracesUrl || queue.length === 0) return;
    const spans = queue;
    queue = [];
    await post(settings.tracesUrl, settings.tracesHeaders, {
      resourceSpans: [{ resource, scopeSpans: [{ scope, spans }] }],
    });
  };

  const flushMetrics = async () => {
    if (!settings.metricsUrl) return;
    const time = nowNanos();
    const metrics: unknown[] = [];
    for (const [name, points] of histograms) {
      metrics.push({
        name,
        unit: "ms",
        histogram: {
          aggregationTemporality: 2,
          dataPoints: [...points.values()].map((p) => ({
            attributes: toAttributes(p.attributes),
            startTimeUnixNano: startedAt,
            timeUnixNano: time,
            count: String(p.count),
            sum: p.sum,
            min: p.min,
            max: p.max,
            bucketCounts: p.buckets.map(String),
            explicitBounds: DURATION_BOUNDS,
          })),
        },
      });
    }
    for (const [name, points] of counters) {
      metrics.push({
        name,
        ...(name === "gleaner.tokens.saved" ? { unit: "{token}" } : {}),
        sum: {
          aggregationTemporality: 2,
          isMonotonic: true,
          dataPoints: [...points.values()].map((p) => ({
            attributes: toAttributes(p.attributes),
            startTimeUnixNano: startedAt,
            timeUnixNano: time,
            asInt: String(p.n),
          })),
        },
      });
    }
    if (metrics.length === 0) return;
    await post(settings.metricsUrl, settings.metricsHeaders, {
      resourceMetrics: [{ resource, scopeMetrics: [{ scope, metrics }] }],
    });
  };

  const spanTimer = setInterval(() => void flushSpans(), settings.spanDelayMs);
  const metricTimer = setInterval(() => void flushMetrics(), settings.metricIntervalMs);
  Deno.unrefTimer(spanTimer);
  Deno.unrefTimer(metricTimer);

  const recordDuration = (metric: string, ms: number, attributes: TelemetryAttributes) => {
    const name = `gleaner.${metric}.duration`;
    let points = histograms.get(name);
    if (!points) histograms.set(name, points = new Map());
    const key = attributeKey(attributes);
    let point = points.get(key);
    if (!point) {
      point = {
        attributes,
        count: 0,
        sum: 0,
        min: Infinity,
        max: -Infinity,
        buckets: new Array(DURATION_BOUNDS.length + 1).fill(0),
      };
      points.set(key, point);
    }
    point.count++;
    point.sum += ms;
    point.min = Math.min(point.min, ms);
    point.max = Math.max(point.max, ms);
    let bucket = DURATION_BOUNDS.findIndex((bound) => ms <= bound);
    if (bucket === -1) bucket = DURATION_BOUNDS.length;
    point.buckets[bucket]++;
  };

  const count = (name: string, n: number, attributes: TelemetryAttributes) => {
    let points = counters.get(name);
    if (!points) counters.set(name, points = new Map());
    const key = attributeKey(attributes);
    const point = points.get(key);
    if (point) point.n += n;
    else points.set(key, { attributes, n });
  };

  const finish = (span: FinishedSpan) => {
    if (!settings.tracesUrl) return;
    if (queue.length >= settings.maxQueue) {
      if (dropped++ === 0) log.warn("telemetry queue full: spans are being dropped");
      return;
    }
    queue.push(span);
  };

  return {
    enabled: true,
    async span<T>(
      name: string,
      metric: string,
      attributes: TelemetryAttributes,
      fn: (span: SpanHandle) => Promise<T>,
      options: SpanOptions = {},
    ): Promise<T> {
      const parent = context.getStore();
      const self: SpanContext = { traceId: parent?.traceId ?? randomHex(16), spanId: randomHex(8) };
      const start = nowNanos();
      const started = performance.now();
      const extra: TelemetryAttributes = {};
      const handle: SpanHandle = {
        set: (more) => void Object.assign(extra, more),
        traceId: self.traceId,
      };
      let status: FinishedSpan["status"] = { code: 1 };
      let outcome = "ok";
      try {
        return await context.run(self, () => fn(handle));
      } catch (error) {
        outcome = codeOf(error);
        status = { code: 2, message: outcome };
        count("gleaner.failures", 1, { ...attributes, "gleaner.stage": metric, code: outcome });
        throw error;
      } finally {
        const all = { ...attributes, ...extra };
        recordDuration(metric, performance.now() - started, { ...attributes, outcome });
        finish({
          traceId: self.traceId,
          spanId: self.spanId,
          ...(parent ? { parentSpanId: parent.spanId } : {}),
          name: `gleaner.${name}`,
          // OTLP SpanKind: 1 internal, 3 client.
          kind: options.kind === "client" ? 3 : 1,
          startTimeUnixNano: start,
          endTimeUnixNano: nowNanos(),
          attributes: toAttributes(outcome === "ok" ? all : { ...all, "error.type": outcome }),
          status,
        });
      }
    },
    tokensSaved(tokens, attributes) {
      if (tokens > 0) count("gleaner.tokens.saved", Math.round(tokens), attributes);
    },
    count(counter, attributes) {
      count(`gleaner.${counter}`, 1, attributes);
    },
    async shutdown() {
      clearInterval(spanTimer);
      clearInterval(metricTimer);
      await Promise.all([flushSpans(), flushMetrics()]);
    },
  };
}
