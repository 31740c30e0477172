/**
 * Starts the HTTP server (REST + MCP) on `Deno.serve`.
 *
 * @module
 */
import type { Config } from "../lib/config/config.ts";
import { GleanerError } from "../lib/errors.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { getGleanerLogger } from "../lib/log.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { McpSessions } from "../mcp/sessions.ts";
import { createApp } from "./app.ts";
import { isLoopbackHost } from "./guard.ts";

/** A running server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** Stops accepting requests and waits for open ones. */
  shutdown(): Promise<void>;
  /** Resolves when the server has stopped. */
  finished: Promise<void>;
}

/**
 * True when every request must authenticate, so the server may listen beyond
 * loopback: `server.api_key`, or hosted mode with its proxy token
 * (`memory.hosted` + `memory.hosted_proxy_token`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../lib/config/parse.ts";
 * import { requiresAuthentication } from "./serve.ts";
 * console.assert(!requiresAuthentication(parseConfig({})));
 * console.assert(requiresAuthentication(parseConfig({ server: { api_key: "k" } })));
 * ```
 */
export function requiresAuthentication(config: Config): boolean {
  if (config.server.api_key) return true;
  // Hosted mode: every request but /health needs the trusted proxy's token and a user id.
  return config.memory.hosted && Boolean(config.memory.hosted_proxy_token);
}

/** Options of {@link serveHttp}. */
export interface ServeOptions {
  /** Stops the server when aborted. */
  signal?: AbortSignal;
  /** Tools served (default: every tool). */
  tools?: readonly AnyToolSpec[];
  /**
   * Bind beyond loopback without `server.api_key` (logs a warning). Without
   * it, such a bind is refused: anyone who can reach the port could use the
   * server's network access and cache.
   */
  insecure?: boolean;
  /** The config file `PUT /config` writes settings that need a restart to (see `createApp`). */
  configFile?: string;
}

/**
 * Serves a Gleaner instance on the configured host and port.
 *
 * @throws {GleanerError} `invalid_arguments` when the host is not loopback,
 * no `server.api_key` is set and `insecure` is not given.
 *
 * @example
 * ```ts ignore
 * import { createGleaner } from "@gleaner/gleaner";
 * import { serveHttp } from "@gleaner/gleaner/http";
 * const server = serveHttp(await createGleaner({ server: { port: 0 } }));
 * console.log(server.url);
 * await server.shutdown();
 * ```
 */
export function serveHttp(gleaner: Gleaner, options: ServeOptions = {}): RunningServer {
  const { host, port } = gleaner.config.server;
  const log = getGleanerLogger("http");
  if (!isLoopbackHost(host) && !requiresAuthentication(gleaner.config)) {
    if (!options.insecure) {
      throw new GleanerError(
        "invalid_arguments",
        `refusing to listen on ${host} without server.api_key: set GLEANER_API_KEY (clients then send Authorization: Bearer <key>), bind to 127.0.0.1, or pass --insecure`,
        { details: { field: "server.host" } },
      );
    }
    log.warn(
      "listening on {host} without server.api_key (--insecure): anyone who reaches this port can use Gleaner",
      { host },
    );
  }
  // Ended before the server waits for open requests: an open session's event stream is one.
  const mcpSessions = new McpSessions({
    maxSessions: gleaner.config.server.mcp_max_sessions,
    idleTimeoutMs: gleaner.config.server.mcp_session_idle_ms,
  });
  options.signal?.addEventListener("abort", () => void mcpSessions.close(), { once: true });
  const app = createApp(gleaner, options.tools ?? toolsFor(gleaner.config), {
    ...(options.configFile ? { configFile: options.configFile } : {}),
    mcpSessions,
  });
  // Thread start-up now, not during the first request.
  gleaner.warm();
  let resolveUrl = "";
  const server = Deno.serve({
    hostname: host,
    port,
    signal: options.signal,
    onListen: ({ hostname, port }) => {
      const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
      resolveUrl = `http://${shown}:${port}`;
      log.info("Gleaner listening on {url}: open {ui} in a browser; MCP at {mcp}, REST /v1/*", {
        url: resolveUrl,
        ui: `${resolveUrl}/ui`,
        mcp: `${resolveUrl}/mcp`,
      });
    },
  }, app.fetch);
  const addr = server.addr as Deno.NetAddr;
  const shown = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  return {
    url: resolveUrl || `http://${shown}:${addr.port}`,
    shutdown: async () => {
      await mcpSessions.close();
      await server.shutdown();
    },
    finished: server.finished,
  };
}
