/**
 * The connection to a Valkey/Redis server (`npm:iovalkey`): the driver,
 * loaded with the module or on demand ({@link loadValkeyDriver}), clients
 * that connect and close, the key prefix, and the turning of a client failure
 * into `provider_unavailable`. The cache (`valkey_cache.ts`) and the domain
 * memory (`valkey_domain_stats.ts`) share one client.
 *
 * Permissions: net access to the cache server; the whole `--allow-env` (see {@link
 * loadValkeyDriver}).
 *
 * @module
 */
import type { Redis } from "iovalkey";
import { wholeEnvGranted } from "../config/env.ts";
import { GleanerError, permissionError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";

export type { Redis };

/**
 * The Valkey driver. `iovalkey` depends on `debug@4`, which enumerates the
 * whole environment when it loads (`Object.keys(process.env)`); under a
 * scoped `--allow-env=…` (the tasks' launcher grants one when no cache
 * server is configured) that throws, so the driver is then loaded only on
 * demand ({@link loadValkeyDriver}); with the whole `--allow-env` it is
 * loaded with this module, as before.
 */
let driver: { Redis: typeof Redis } | undefined = wholeEnvGranted()
  ? await import("iovalkey")
  : undefined;

/**
 * Loads the Valkey driver if it is not loaded yet; needed before
 * {@link createValkeyClient} (and `openStore` with `store.cache_url`) when
 * the environment grant is scoped. Fails with a message naming the whole
 * `--allow-env` when the driver cannot load under the grant.
 *
 * @example
 * ```ts ignore
 * import { loadValkeyDriver } from "./valkey_client.ts";
 * await loadValkeyDriver();
 * ```
 */
export async function loadValkeyDriver(): Promise<void> {
  if (driver) return;
  try {
    driver = await import("iovalkey");
  } catch (error) {
    throw valkeyEnvError(error);
  }
}

function valkeyEnvError(cause: unknown): GleanerError {
  const named = permissionError(cause, "store.cache_url");
  return new GleanerError(
    "internal",
    "store.cache_url: the Valkey driver (iovalkey, through debug@4) reads the whole environment; run with the whole --allow-env",
    { cause: named ?? cause, details: { field: "store.cache_url", flag: "--allow-env" } },
  );
}

const log = getGleanerLogger("store", "valkey");

/** Default prefix of every key Gleaner writes. */
export const DEFAULT_KEY_PREFIX = "gleaner:";

/** Options of {@link connectValkey} and {@link createValkeyClient}. */
export interface ConnectValkeyOptions {
  /** Time to connect (ms); default 5000. */
  connectTimeoutMs?: number;
}

/**
 * Creates a client for `redis://`, `rediss://`, `valkey://` or `valkeys://`
 * without waiting: it connects (and reconnects) in the background and queues
 * commands meanwhile; a command fails with `provider_unavailable` once the
 * server stayed unreachable for a few retries. Errors never echo the URL (it
 * may hold a password).
 *
 * @example
 * ```ts ignore
 * import { createValkeyClient } from "./valkey_client.ts";
 * const client = createValkeyClient("redis://127.0.0.1:6379");
 * await client.ping();
 * await client.quit();
 * ```
 */
export function createValkeyClient(url: string, options: ConnectValkeyOptions = {}): Redis {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new GleanerError("invalid_arguments", "store.cache_url is not a URL", {
      cause,
      details: { field: "store.cache_url" },
    });
  }
  if (!["redis:", "rediss:", "valkey:", "valkeys:"].includes(parsed.protocol)) {
    throw new GleanerError(
      "invalid_arguments",
      "store.cache_url must start with redis://, rediss://, valkey:// or valkeys://",
      { details: { field: "store.cache_url" } },
    );
  }
  if (!driver) throw valkeyEnvError(undefined);
  const client = new driver.Redis(url, {
    connectTimeout: options.connectTimeoutMs ?? 5_000,
    maxRetriesPerRequest: 2,
  });
  client.on("error", (error: Error & { code?: string }) => {
    log.warn("cache server connection error ({code})", { code: error?.code ?? "unknown" });
  });
  return client;
}

/**
 * Like {@link createValkeyClient}, but waits until the server answers `PING`
 * and fails fast with `provider_unavailable` (closing the client) otherwise.
 *
 * @example
 * ```ts ignore
 * import { connectValkey } from "./valkey_client.ts";
 * const client = await connectValkey("redis://127.0.0.1:6379");
 * await client.quit();
 * ```
 */
export async function connectValkey(
  url: string,
  options: ConnectValkeyOptions = {},
): Promise<Redis> {
  await loadValkeyDriver();
  const client = createValkeyClient(url, options);
  try {
    await client.ping();
  } catch (cause) {
    client.disconnect();
    throw new GleanerError("provider_unavailable", "store.cache_url: cache server unreachable", {
      cause,
      details: { field: "store.cache_url" },
    });
  }
  return client;
}

/** Closes a client: `QUIT` when connected, else drops the socket and stops reconnecting. */
export async function closeValkeyClient(client: Redis): Promise<void> {
  if (client.status === "ready") {
    try {
      await client.quit();
      return;
    } catch {
      // fall through
    }
  }
  client.disconnect();
}

/** Turns a client failure into `provider_unavailable` (never echoing the server's text). */
export function call<T>(pending: Promise<T>): Promise<T> {
  return pending.catch((error) => Promise.reject(unavailable(error)));
}

/** Throws `provider_unavailable` when a `MULTI` transaction was aborted or one of its commands failed. */
export function checkExec(results: [Error | null, unknown][] | null): void {
  if (results === null) throw unavailable(new Error("transaction aborted"));
  for (const [error] of results) if (error) throw unavailable(error);
}

/** The `provider_unavailable` error of a failed client command (a {@link GleanerError} passes as it is). */
export function unavailable(cause: unknown): GleanerError {
  if (cause instanceof GleanerError) return cause;
  return new GleanerError("provider_unavailable", "cache server command failed", { cause });
}

/** Escapes regular-expression characters in a literal key prefix. */
export function regExpEscape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Escapes Redis glob characters in a literal key prefix. */
export function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}
