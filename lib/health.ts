/**
 * The health of a running Gleaner for operators: the store, the cache, the
 * browser and the memory store, each `ok`, `degraded` (with the reason) or
 * `off`. The checks run at most once per `ttlMs` and each is bounded by
 * `timeoutMs`; between runs the last report is answered at once (a stale
 * report starts one refresh in the background), so `/health` does no I/O of
 * its own and stays cheap under load. Reasons name settings, never their
 * values: no URL, path, password or key appears in a report.
 *
 * @module
 */
import { withDeadline } from "./async/deadline.ts";
import { SingleFlight } from "./async/single_flight.ts";
import { getGleanerLogger } from "./log.ts";
import { VERSION } from "./version.ts";

const log = getGleanerLogger("health");

/** The state of one component. */
export type ComponentStatus = "ok" | "degraded" | "off";

/** One component's health. */
export interface ComponentHealth {
  /** `ok`, `degraded` (see `reason`), or `off` (not configured or turned off). */
  status: ComponentStatus;
  /** Why it is degraded or off, naming settings, never their values. */
  reason?: string;
  /** Which implementation serves it (`sqlite`, `valkey`, `chromium`, `postgres`, …). */
  backend?: string;
  /** A short state for humans (`not started`, `running, 2 pages busy`, …). */
  detail?: string;
}

/** The components a report covers. */
export type ComponentName = "store" | "cache" | "browser" | "memory";

/** The detailed health report. */
export interface HealthReport {
  /** `degraded` when any component is. */
  status: "ok" | "degraded";
  /** Gleaner's version. */
  version: string;
  /** When the checks ran (ISO). */
  checked_at: string;
  /** Each component. */
  components: Record<ComponentName, ComponentHealth>;
}

/** One check per component; each may do a little I/O (a `PING`, a `SELECT 1`, a file stat). */
export type HealthChecks = Record<ComponentName, () => Promise<ComponentHealth>>;

/** Options of {@link createHealth}. */
export interface HealthOptions {
  /** How long a report is answered before the checks run again (default 5,000 ms). */
  ttlMs?: number;
  /** Deadline of each check (default 1,500 ms): past it the component is degraded. */
  timeoutMs?: number;
  /** Clock (ms). */
  now?: () => number;
}

/** The cached health of a Gleaner; see {@link createHealth}. */
export interface Health {
  /** The last report, refreshed when older than the TTL (the first call waits for the checks). */
  report(): Promise<HealthReport>;
}

/**
 * Wraps component checks into a cached, bounded health report.
 *
 * @example
 * ```ts
 * import { createHealth } from "./health.ts";
 * const ok = () => Promise.resolve({ status: "ok" as const });
 * const health = createHealth({
 *   store: ok,
 *   cache: () => Promise.resolve({ status: "degraded" as const, reason: "cache server unreachable" }),
 *   browser: ok,
 *   memory: ok,
 * });
 * const report = await health.report();
 * console.assert(report.status === "degraded" && report.components.cache.reason !== undefined);
 * ```
 */
export function createHealth(checks: HealthChecks, options: HealthOptions = {}): Health {
  const ttlMs = options.ttlMs ?? 5_000;
  const timeoutMs = options.timeoutMs ?? 1_500;
  const now = options.now ?? Date.now;
  const flight = new SingleFlight<"report", HealthReport>();
  let last: { report: HealthReport; at: number } | undefined;

  const bounded = async (name: ComponentName): Promise<ComponentHealth> => {
    try {
      return await withDeadline(checks[name](), timeoutMs, (): ComponentHealth => ({
        status: "degraded",
        reason: `no answer within ${timeoutMs} ms`,
      }));
    } catch (error) {
      log.debug("health check of {name} failed: {error}", { name, error });
      return { status: "degraded", reason: "the check failed" };
    }
  };

  const refresh = () =>
    flight.run("report", async () => {
      const names: ComponentName[] = ["store", "cache", "browser", "memory"];
      const results = await Promise.all(names.map(bounded));
      const components = Object.fromEntries(names.map((n, i) => [n, results[i]])) as Record<
        ComponentName,
        ComponentHealth
      >;
      const report: HealthReport = {
        status: results.some((r) => r.status === "degraded") ? "degraded" : "ok",
        version: VERSION,
        checked_at: new Date(now()).toISOString(),
        components,
      };
      last = { report, at: now() };
      return report;
    });

  return {
    report() {
      if (!last) return refresh();
      if (now() - last.at >= ttlMs) refresh().catch(() => {});
      return Promise.resolve(last.report);
    },
  };
}
