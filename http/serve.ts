/**
 * Starts the HTTP server (REST + MCP) on `Deno.serve`.
 *
 * @module
 */
import type { Gleaner } from "../lib/gleaner.ts";
import { getGleanerLogger } from "../lib/log.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { createApp } from "./app.ts";

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
 * Serves a Gleaner instance on the configured host and port.
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
export function serveHttp(
  gleaner: Gleaner,
  options: { signal?: AbortSignal; tools?: readonly AnyToolSpec[] } = {},
): RunningServer {
  const app = createApp(gleaner, options.tools ?? toolsFor(gleaner.config));
  const { host, port } = gleaner.config.server;
  const log = getGleanerLogger("http");
  let resolveUrl = "";
  const server = Deno.serve({
    hostname: host,
    port,
    signal: options.signal,
    onListen: ({ hostname, port }) => {
      const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
      resolveUrl = `http://${shown}:${port}`;
      log.info("Gleaner listening on {url} (REST /v1/*, MCP /mcp)", { url: resolveUrl });
    },
  }, app.fetch);
  const addr = server.addr as Deno.NetAddr;
  const shown = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  return {
    url: resolveUrl || `http://${shown}:${addr.port}`,
    shutdown: () => server.shutdown(),
    finished: server.finished,
  };
}
