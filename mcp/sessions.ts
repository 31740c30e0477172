/**
 * MCP sessions over Streamable HTTP, as the MCP specification's session management describes
 * (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#session-management):
 * an `initialize` request gets a session id in the `Mcp-Session-Id` response header; later
 * requests carry it and reach the same server (`GET` opens its event stream, `DELETE` ends it);
 * a request naming an unknown, ended or idled-out session gets 404, after which the client
 * starts a new session. Sessions are few and bounded: at most `maxSessions` at once (a new
 * `initialize` past it is refused with 503 and a message naming the setting) and each is ended
 * after `idleTimeoutMs` without a request. A request without a session id that is not an
 * `initialize` is answered on its own, statelessly, as before sessions existed, so clients that
 * never initialize (one `tools/call` per request) keep working.
 *
 * No timer runs: idle sessions are swept at each request and each count, so a test or a
 * library user has nothing to stop besides {@link McpSessions.close}.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Gleaner } from "../lib/gleaner.ts";
import { getGleanerLogger } from "../lib/log.ts";
import { readStreamBounded } from "../lib/net/body_buffer.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { handleMcpRequest } from "./http.ts";
import { createMcpServer } from "./server.ts";
import type { ToolServer } from "./tool_server.ts";

const log = getGleanerLogger("mcp");

/** The request header (and response header on `initialize`) that carries a session id. */
export const SESSION_HEADER = "mcp-session-id";

/** Largest request body read to tell an `initialize` apart (the SDK transport's own limit). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Options of {@link McpSessions}. */
export interface McpSessionOptions {
  /** Most sessions open at once (`server.mcp_max_sessions`); `0` serves every request statelessly. */
  maxSessions: number;
  /** A session unused this long is ended (`server.mcp_session_idle_ms`). */
  idleTimeoutMs: number;
  /** Clock (ms); `Date.now` by default. */
  now?: () => number;
}

/** Who and what a request is served for. */
export interface McpSessionRoute {
  /** The Gleaner the calls run on (the verified user's view in hosted mode). */
  gleaner: Gleaner;
  /** The tools offered. */
  tools: readonly AnyToolSpec[];
  /** The endpoint (`/mcp`, `/mcp/deep-research`): a session is only reachable on its own. */
  endpoint: string;
  /** The caller's identity (the hosted user, and whether as operator): a session is only its creator's. */
  owner: string;
}

/** The figures `/health` shows. */
export interface McpSessionCounts {
  /** Sessions open now. */
  open: number;
  /** `server.mcp_max_sessions`. */
  max: number;
  /** `server.mcp_session_idle_ms`. */
  idle_timeout_ms: number;
}

interface Session {
  server: ToolServer;
  transport: WebStandardStreamableHTTPServerTransport;
  endpoint: string;
  owner: string;
  lastUsed: number;
  /** Responses still streaming (an open `GET` stream, a long call): never idle while > 0. */
  streaming: number;
}

/**
 * The open MCP sessions of one HTTP server.
 *
 * @example
 * ```ts ignore
 * import { createGleaner } from "@gleaner/gleaner";
 * import { McpSessions } from "@gleaner/gleaner/mcp";
 * import { TOOLS } from "@gleaner/gleaner";
 * const gleaner = await createGleaner();
 * const sessions = new McpSessions({ maxSessions: 100, idleTimeoutMs: 1_800_000 });
 * Deno.serve((request) =>
 *   sessions.handle(request, { gleaner, tools: TOOLS, endpoint: "/mcp", owner: "" })
 * );
 * ```
 */
export class McpSessions {
  readonly #sessions = new Map<string, Session>();
  readonly #options: McpSessionOptions;
  readonly #now: () => number;
  /** Initializations under way: they hold a place under the cap. */
  #pending = 0;

  /** Sessions bounded by `options`. */
  constructor(options: McpSessionOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** How many sessions are open, and the limits. */
  counts(): McpSessionCounts {
    this.#sweep();
    return {
      open: this.#sessions.size,
      max: this.#options.maxSessions,
      idle_timeout_ms: this.#options.idleTimeoutMs,
    };
  }

  /**
   * Answers one request to an MCP endpoint: within its session when it names one (404 when the
   * session is unknown, ended, idled out, another caller's or another endpoint's), in a new
   * session for an `initialize`, statelessly otherwise.
   */
  async handle(request: Request, route: McpSessionRoute): Promise<Response> {
    this.#sweep();
    const id = request.headers.get(SESSION_HEADER);
    if (id !== null) return this.#inSession(id, request, route);
    if (request.method !== "POST" || this.#options.maxSessions === 0) {
      return handleMcpRequest(route.gleaner, request, route.tools);
    }
    const read = await readBounded(request);
    if (read === undefined) return handleMcpRequest(route.gleaner, request, route.tools);
    if (read === "too_large") {
      return rpcError(413, -32000, `Request body is over ${MAX_BODY_BYTES} bytes`);
    }
    const replay = new Request(request.url, {
      method: "POST",
      headers: request.headers,
      body: read.bytes,
      signal: request.signal,
    });
    if (!isInitialize(read.parsed)) return handleMcpRequest(route.gleaner, replay, route.tools);
    if (this.#sessions.size + this.#pending >= this.#options.maxSessions) {
      log.warn("MCP session refused: {open} open, server.mcp_max_sessions is {max}", {
        open: this.#sessions.size,
        max: this.#options.maxSessions,
      });
      return rpcError(
        503,
        -32000,
        `too many MCP sessions: ${this.#options.maxSessions} are open (server.mcp_max_sessions); ` +
          `end one with DELETE ${route.endpoint} and its Mcp-Session-Id, or retry after one idles out`,
        { "retry-after": "60" },
      );
    }
    return await this.#open(replay, read.parsed, route);
  }

  /** Ends every session (their streams close). */
  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((session) => session.server.close().catch(() => {})));
  }

  async #open(request: Request, parsed: unknown, route: McpSessionRoute): Promise<Response> {
    this.#pending++;
    const server = createMcpServer(route.gleaner, route.tools, { manage: { sessions: this } });
    let opened: string | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: false,
      onsessioninitialized: (id) => {
        opened = id;
        this.#sessions.set(id, {
          server,
          transport,
          endpoint: route.endpoint,
          owner: route.owner,
          lastUsed: this.#now(),
          streaming: 0,
        });
      },
      onsessionclosed: (id) => {
        this.#sessions.delete(id);
      },
    });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request, { parsedBody: parsed });
      if (opened === undefined) {
        await server.close().catch(() => {});
        return response;
      }
      log.debug("MCP session opened ({open} open)", { open: this.#sessions.size });
      return this.#tracked(opened, response);
    } finally {
      this.#pending--;
    }
  }

  async #inSession(id: string, request: Request, route: McpSessionRoute): Promise<Response> {
    const session = this.#sessions.get(id);
    if (!session || session.owner !== route.owner || session.endpoint !== route.endpoint) {
      await request.body?.cancel().catch(() => {});
      return rpcError(
        404,
        -32001,
        "Session not found: it ended or idled out (server.mcp_session_idle_ms); initialize a new one",
      );
    }
    session.lastUsed = this.#now();
    const response = await session.transport.handleRequest(request);
    if (request.method === "DELETE" && response.ok) {
      this.#sessions.delete(id);
      await session.server.close().catch(() => {});
      return response;
    }
    return this.#tracked(id, response);
  }

  /** Counts `response` as streaming until its body ends, then marks the session used. */
  #tracked(id: string, response: Response): Response {
    const session = this.#sessions.get(id);
    if (!session || !response.body) return response;
    session.streaming++;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      session.streaming--;
      session.lastUsed = this.#now();
    };
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            end();
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (error) {
          end();
          controller.error(error);
        }
      },
      cancel(reason) {
        end();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  }

  #sweep(): void {
    const oldest = this.#now() - this.#options.idleTimeoutMs;
    for (const [id, session] of this.#sessions) {
      if (session.streaming > 0 || session.lastUsed > oldest) continue;
      this.#sessions.delete(id);
      log.debug("MCP session idled out");
      session.server.close().catch(() => {});
    }
  }
}

/**
 * The body read (at most 4 MiB) and parsed; `too_large` past that; `undefined` (body untouched)
 * when there is none or its declared length is over the limit: the transport answers those.
 */
async function readBounded(
  request: Request,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; parsed: unknown } | "too_large" | undefined> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (!request.body || declared > MAX_BODY_BYTES) return undefined;
  const read = await readStreamBounded(request.body, MAX_BODY_BYTES, declared);
  if (read === "too_large") return read;
  const bytes = read as Uint8Array<ArrayBuffer>;
  try {
    return { bytes, parsed: JSON.parse(new TextDecoder().decode(bytes)) };
  } catch {
    return { bytes, parsed: undefined };
  }
}

function isInitialize(message: unknown): boolean {
  return typeof message === "object" && message !== null && !Array.isArray(message) &&
    (message as { method?: unknown }).method === "initialize";
}

/** A JSON-RPC error answer with no id, as the SDK transport writes its own. */
export function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, {
    status,
    headers,
  });
}
