/**
 * One JSON call to an outside service through the guarded fetcher, every
 * failure classified (`classify.ts`), and the small checks and normalizers
 * of the JSON it answers with.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import type { FetchedResponse, Fetcher } from "./types.ts";
import { type FailureClass, providerFailure, responseFailure } from "./classify.ts";

/** What a call needs from its caller: the guarded fetcher and the caller's cancel signal. */
export interface JsonCallEnv {
  /** The guarded fetcher every upstream call goes through. */
  fetcher: Fetcher;
  /** Cancels the call. */
  signal?: AbortSignal;
}

/** One upstream call. */
export interface ProviderCall {
  /** Provider name (for messages). */
  provider: string;
  /** Full URL. */
  url: string | URL;
  /** Method (default GET). */
  method?: "GET" | "POST";
  /** Headers (credentials go here, never into the URL). */
  headers?: Record<string, string>;
  /** JSON body (POST). */
  json?: unknown;
  /** Timeout (ms). */
  timeoutMs: number;
  /** Largest body accepted (bytes). */
  maxBytes?: number;
  /**
   * Where the endpoint is configured, named when its host does not resolve
   * (default `search.providers.<provider>.base_url`).
   */
  setting?: string;
  /** The setting to check for some failure classes, named in the message (`providerFailure`). */
  check?: Partial<Record<FailureClass, string>>;
}

/**
 * Sends one call and returns the 2xx response; every other outcome throws the
 * classified failure (`providerFailure`). A cancelled caller gets `timeout`.
 */
export async function callProvider(
  env: JsonCallEnv,
  call: ProviderCall,
): Promise<FetchedResponse> {
  let res: FetchedResponse;
  try {
    res = await env.fetcher.fetch(call.url, {
      method: call.method ?? "GET",
      headers: {
        Accept: "application/json",
        ...(call.json !== undefined ? { "Content-Type": "application/json" } : {}),
        ...call.headers,
      },
      body: call.json !== undefined ? JSON.stringify(call.json) : undefined,
      signal: env.signal,
      timeoutMs: call.timeoutMs,
      maxBytes: call.maxBytes ?? 8_000_000,
      robots: false,
    });
  } catch (error) {
    if (env.signal?.aborted) {
      throw new GleanerError("timeout", `${call.provider}: the call was cancelled`, {
        cause: error,
      });
    }
    throw providerFailure(call.provider, call.url, { error }, call.setting, call.check);
  }
  if (res.status < 200 || res.status > 299) {
    throw responseFailure(call.provider, call.url, res, call.setting, call.check);
  }
  return res;
}

/**
 * Calls and parses a JSON answer; a 2xx body that is not JSON, or that
 * `check` rejects, is `provider_unavailable` (unreadable).
 */
export async function callJson<T>(
  env: JsonCallEnv,
  call: ProviderCall,
  check: (value: unknown) => value is T,
): Promise<T> {
  const res = await callProvider(env, call);
  let value: unknown;
  try {
    value = JSON.parse(res.text());
  } catch (error) {
    const evidence = { status: res.status, unreadable: true, error };
    throw providerFailure(call.provider, call.url, evidence, call.setting);
  }
  if (!check(value)) {
    throw providerFailure(
      call.provider,
      call.url,
      { status: res.status, unreadable: true },
      call.setting,
    );
  }
  return value;
}

/** True for a plain object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A check that `field` of an object is an array. */
export function hasArray(field: string): (value: unknown) => value is Record<string, unknown> {
  return (value): value is Record<string, unknown> =>
    isRecord(value) && Array.isArray(value[field]);
}

/** The records of an array field (non-objects dropped). */
export function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** A string field, or `""`. */
export function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}
