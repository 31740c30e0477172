/**
 * Operational events, published to NATS when `events.nats_url` is set (and
 * nothing at all otherwise): one message per tool call on
 * `<prefix>.tool` and one per tier the reading cascade put off on
 * `<prefix>.tier_skip` (and `<prefix>.fetch.tier.skipped`), and the
 * specification's kinds ({@link SpecEventKind}: searches, page reads, cache hits
 * and misses, failures). Messages are JSON; they carry names, codes, hosts,
 * durations and ids, never page text, and query text, URLs and titles only when
 * `events.include_query` is on.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { EventsSection } from "../config/sections.ts";
import { NatsPublisher, type NatsStats } from "./nats.ts";

/** One finished tool call. */
export interface ToolEvent {
  /** The tool's name. */
  tool: string;
  /** `ok`, or the error code the call failed with. */
  status: string;
  /** Wall time of the call (ms). */
  duration_ms: number;
  /** The request's id (the caller's `x-request-id`, else a fresh one). */
  request_id: string;
  /** The OpenTelemetry trace the call belongs to, when telemetry is on. */
  trace_id?: string;
  /** The call's query text(s); only with `events.include_query`. */
  query?: string[];
}

/** A reading tier the cascade put off for a host. */
export interface TierSkipEvent {
  /** The tier's name (`http`, `browser`, …). */
  tier: string;
  /**
   * Why: `probation` (domain memory saw it fail there), `success_rate` (under 30 % of 10 or more
   * tries there succeeded in 30 days) or `tier_rule` (an operator rule).
   */
  reason: string;
  /** The host of the page being read. */
  host: string;
  /**
   * The id of the tool call that read the page (the `request_id` of its `tool` event). Filled in
   * by the publisher when the read runs inside {@link withRequestId}.
   */
  request_id?: string;
}

/** The request id of the tool call under way, for the events it causes. */
const currentRequest = new AsyncLocalStorage<string>();

/**
 * Runs `work` as the tool call `requestId`: events published while it runs (a tier the
 * cascade puts off, however deep in the call) carry that id, so an operator can join them
 * with the call's `tool` event.
 *
 * @example
 * ```ts
 * import { currentRequestId, withRequestId } from "./events.ts";
 * const seen = await withRequestId("req-7", async () => {
 *   await Promise.resolve();
 *   return currentRequestId();
 * });
 * console.assert(seen === "req-7" && currentRequestId() === undefined);
 * ```
 */
export function withRequestId<T>(requestId: string, work: () => Promise<T>): Promise<T> {
  return currentRequest.run(requestId, work);
}

/**
 * The request id set by the enclosing {@link withRequestId}, if any.
 *
 * @internal exported for tests only
 */
export function currentRequestId(): string | undefined {
  return currentRequest.getStore();
}

/**
 * A caller's request id (the `x-request-id` header) when it is safe to pass
 * on: 1–128 characters of letters, digits and `._:-`; undefined otherwise.
 *
 * @example
 * ```ts
 * import { requestIdFrom } from "./events.ts";
 * console.assert(requestIdFrom("req-42") === "req-42");
 * console.assert(requestIdFrom("a b\n") === undefined);
 * ```
 */
export function requestIdFrom(value: unknown): string | undefined {
  return typeof value === "string" && /^[A-Za-z0-9._:-]{1,128}$/.test(value) ? value : undefined;
}

/** Where events go; {@link NOOP_EVENTS} when none is configured. */
export interface Events {
  /** True when events are published. */
  readonly enabled: boolean;
  /** True when query text may be published (`events.include_query`). */
  readonly includeQuery: boolean;
  /** Publishes a tool event (never waits, never throws). */
  tool(event: ToolEvent): void;
  /**
   * Publishes a tier-skip event (never waits, never throws), on `<prefix>.tier_skip` and, as the
   * specification names it, `<prefix>.fetch.tier.skipped`.
   */
  tierSkip(event: TierSkipEvent): void;
  /**
   * Publishes one event of the specification's kinds (`search.requested`, `search.completed`,
   * `fetch.requested`, `fetch.completed`, `cache.hit`, `cache.miss`, `error`) on
   * `<prefix>.<kind>`, with the request id of the tool call under way (never waits, never throws).
   */
  publish(kind: SpecEventKind, body: Record<string, unknown>): void;
  /** Counters of the publisher. */
  stats(): NatsStats;
  /** Sends what is queued (briefly) and disconnects. */
  close(): Promise<void>;
}

/** The event kinds of the specification Gleaner publishes beside `tool` and `tier_skip`. */
export type SpecEventKind =
  | "search.requested"
  | "search.completed"
  | "fetch.requested"
  | "fetch.completed"
  | "cache.hit"
  | "cache.miss"
  | "error";

/** The events in force without `events.nats_url`: nothing is published. */
const NOOP_EVENTS: Events = {
  enabled: false,
  includeQuery: false,
  tool() {},
  tierSkip() {},
  publish() {},
  stats: () => ({ sent: 0, dropped: 0, queued: 0, connected: false }),
  close: () => Promise.resolve(),
};

/**
 * The events of a configuration: {@link NOOP_EVENTS} unless `events.nats_url`
 * is set, else a NATS publisher that connects in the background.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { createEvents } from "./events.ts";
 * const events = createEvents(parseConfig({}).events);
 * console.assert(events.enabled === false);
 * ```
 */
export function createEvents(settings: EventsSection): Events {
  if (!settings.nats_url) return NOOP_EVENTS;
  const nats = new NatsPublisher({
    url: settings.nats_url,
    user: settings.nats_user,
    password: settings.nats_password,
    token: settings.nats_token,
    credentialsFile: settings.nats_credentials_file,
    tls: settings.nats_tls,
    caFile: settings.nats_ca_file,
    queueMax: settings.queue_max,
  });
  const prefix = settings.subject_prefix;
  const send = (kind: string, body: object) => {
    try {
      nats.publish(
        `${prefix}.${kind}`,
        JSON.stringify({ type: kind, time: new Date().toISOString(), ...body }),
      );
    } catch {
      // An event never fails the work it describes.
    }
  };
  return {
    enabled: true,
    includeQuery: settings.include_query,
    tool: (event) => send("tool", event),
    tierSkip: (event) => {
      const requestId = event.request_id ?? currentRequestId();
      const body = requestId ? { ...event, request_id: requestId } : event;
      send("tier_skip", body);
      send("fetch.tier.skipped", body);
    },
    publish: (kind, body) => {
      const requestId = currentRequestId();
      send(kind, requestId ? { ...body, request_id: requestId } : body);
    },
    stats: () => nats.stats(),
    close: () => nats.close(),
  };
}
