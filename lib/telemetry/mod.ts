/**
 * Opt-in OpenTelemetry: spans per tool call and per stage (search, read tier,
 * rank), and metrics for latency, tokens saved, failures by code, cache hits
 * and misses and each reading tier's outcomes, sent to an OTLP/HTTP collector.
 *
 * Nothing is loaded unless an OTLP endpoint is configured with the standard
 * variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
 * / `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`): without one every call here is a
 * no-op and the exporter module is never imported. See `otlp.ts` for the
 * variables honoured.
 *
 * What is exported: tool, stage and tier names, backends, error codes,
 * outcomes, durations and token counts. Never query text, URLs, page content
 * or settings.
 *
 * Permissions: env access to the `OTEL_*` names; net access to the OTLP endpoint when one is set.
 *
 * @module
 */
import type { SpanHandle, Telemetry } from "./types.ts";

export type {
  SpanHandle,
  SpanOptions,
  Telemetry,
  TelemetryAttributes,
  TelemetryCounter,
} from "./types.ts";

const NOOP_SPAN: SpanHandle = { set() {} };

/** The telemetry in force without an OTLP endpoint: does nothing, loads nothing. */
export const NOOP_TELEMETRY: Telemetry = {
  enabled: false,
  span: (_name, _metric, _attributes, fn) => fn(NOOP_SPAN),
  tokensSaved() {},
  count() {},
  shutdown: () => Promise.resolve(),
};

/**
 * True when the environment configures an OTLP endpoint and does not set
 * `OTEL_SDK_DISABLED=true`.
 *
 * @example
 * ```ts
 * import { telemetryRequested } from "./mod.ts";
 * console.assert(telemetryRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }));
 * console.assert(!telemetryRequested({ HOME: "/root" }));
 * console.assert(!telemetryRequested({
 *   OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
 *   OTEL_SDK_DISABLED: "true",
 * }));
 * ```
 *
 * @internal exported for tests only
 */
export function telemetryRequested(env: Record<string, string | undefined>): boolean {
  if (/^true$/i.test(env.OTEL_SDK_DISABLED ?? "")) return false;
  return [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
  ].some((name) => (env[name] ?? "").trim() !== "");
}

let current: Telemetry | undefined;
let loading: Promise<Telemetry> | undefined;

/**
 * Starts telemetry once per process when `env` (the entry point's environment
 * snapshot, `readHostEnv()` of `lib/config/env.ts`) asks for it (see
 * {@link telemetryRequested}); resolves to {@link NOOP_TELEMETRY} otherwise.
 * Entry points call it at start-up and {@link shutdownTelemetry} before exit.
 *
 * @example
 * ```ts
 * import { initTelemetry } from "./mod.ts";
 * const telemetry = await initTelemetry({});
 * console.assert(telemetry.enabled === false);
 * ```
 */
export function initTelemetry(env: Record<string, string | undefined>): Promise<Telemetry> {
  if (current) return Promise.resolve(current);
  if (!telemetryRequested(env)) return Promise.resolve(NOOP_TELEMETRY);
  loading ??= import("./otlp.ts").then(({ createOtlpTelemetry }) =>
    current = createOtlpTelemetry(env)
  );
  return loading;
}

/**
 * The telemetry in force: the exporter after {@link initTelemetry} started
 * one, else the no-op.
 *
 * @example
 * ```ts
 * import { telemetry } from "./mod.ts";
 * const value = await telemetry().span("demo", "demo", {}, () => Promise.resolve(42));
 * console.assert(value === 42);
 * ```
 */
export function telemetry(): Telemetry {
  return current ?? NOOP_TELEMETRY;
}

/**
 * Flushes and stops the exporter, if one runs. Safe to call when none does.
 *
 * @example
 * ```ts
 * import { shutdownTelemetry } from "./mod.ts";
 * await shutdownTelemetry();
 * ```
 */
export async function shutdownTelemetry(): Promise<void> {
  const running = current;
  current = undefined;
  loading = undefined;
  await running?.shutdown();
}
