/**
 * Gleaner's HTTP API (Hono on web-standard `Request`/`Response`): REST routes
 * generated from the tool specs, `/mcp` (Streamable HTTP), `/health`, `/config`.
 *
 * @module
 */
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { redactConfig } from "../lib/config/config.ts";
import { callTool } from "../lib/api.ts";
import { GleanerError, HTTP_STATUS, toGleanerError } from "../lib/errors.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { getGleanerLogger } from "../lib/log.ts";
import { requestIdFrom } from "../lib/telemetry/events.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { listedInputSchema } from "../lib/tools/listing.ts";
import { TOOLS } from "../lib/tools/mod.ts";
import { DEEP_RESEARCH_TOOLS } from "../lib/tools/deep_research.ts";
import { withheldSearchTools } from "../lib/tools/presentations.ts";
import { searchDisabledError } from "../lib/search/switch.ts";
import { VERSION } from "../lib/version.ts";
import { McpSessions } from "../mcp/sessions.ts";
import { allowedOrigins, bearerGuard, bearerMatches, hostGuard, servedHostNames } from "./guard.ts";
import { MAX_BODY_BYTES, readJsonBody } from "./body.ts";
import { queryArguments } from "./query_args.ts";
import { handleConfigWrite } from "./config_write.ts";
import { mountTinySearch } from "./tinybus.ts";
import { hostedIdentity, operatorRoute, requestGleaner, requestOwner } from "./hosted.ts";
import { mountUi } from "./ui/mod.ts";
import { mountManagement } from "./manage.ts";

const log = getGleanerLogger("http");

/** Options of {@link createApp}. */
export interface AppOptions {
  /** Largest request body accepted on REST routes (default 4 MiB; `/mcp` has the same limit). */
  maxBodyBytes?: number;
  /**
   * The config file the server loaded (`--config`, else `$GLEANER_CONFIG`, else the XDG path):
   * `PUT /config` writes settings that need a restart to it (when it is on:
   * `GLEANER_ALLOW_CONFIG_WRITE=1` and `server.api_key`); without one they are refused.
   */
  configFile?: string;
  /**
   * The MCP sessions of `/mcp` (default: new ones bounded by `server.mcp_max_sessions` and
   * `server.mcp_session_idle_ms`); the caller who passes them ends them (`close()`).
   */
  mcpSessions?: McpSessions;
}

/**
 * Builds the Hono app for a Gleaner instance. REST routes take
 * `Content-Type: application/json` bodies of at most 4 MiB.
 *
 * @example
 * ```ts ignore
 * import { createGleaner } from "@gleaner/gleaner";
 * import { createApp } from "@gleaner/gleaner/http";
 * const app = createApp(await createGleaner());
 * const res = await app.request("http://localhost/health");
 * console.assert(res.status === 200);
 * ```
 */
export function createApp(
  gleaner: Gleaner,
  tools: readonly AnyToolSpec[] = TOOLS,
  options: AppOptions = {},
): Hono {
  const maxBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const app = new Hono();
  const sessions = options.mcpSessions ?? new McpSessions({
    maxSessions: gleaner.config.server.mcp_max_sessions,
    idleTimeoutMs: gleaner.config.server.mcp_session_idle_ms,
  });
  app.use(
    hostGuard(servedHostNames(gleaner.config.server), allowedOrigins(gleaner.config.server)),
  );
  mountUi(app);
  // Before the API key's guard: the management views take their own token.
  mountManagement(app, gleaner, { tools, sessions });
  app.use(bearerGuard(gleaner.config.server.api_key));
  app.use(hostedIdentity(gleaner));

  mountHealth(app, gleaner, sessions);
  // The configuration is the operator's: in hosted mode only a request with the admin key
  // reads it (secrets redacted all the same) or changes it.
  app.get(
    "/config",
    operatorRoute(gleaner, "GET /config"),
    (c) => c.json(redactConfig(gleaner.config)),
  );
  app.put(
    "/config",
    operatorRoute(gleaner, "PUT /config"),
    (c) => handleConfigWrite(c, gleaner, { configFile: options.configFile, maxBytes }),
  );
  mountToolListing(app, tools);
  mountMcp(app, gleaner, sessions, tools);

  const routes = mountToolRoutes(app, gleaner, tools, maxBytes);
  // TinySearch's service contract for hosts (`tinybus.ts`), over the same tools.
  mountTinySearch(app, tools, (c) => requestGleaner(c, gleaner), maxBytes);
  mountWithheldSearchTools(app, gleaner, routes);
  app.notFound((c) =>
    c.json({ error: { code: "not_found", message: `no route ${c.req.method} ${c.req.path}` } }, 404)
  );
  app.onError((error) => {
    log.error("unhandled: {error}", { error });
    return errorResponse(toGleanerError(error, "request"));
  });
  return app;
}

/**
 * `GET /health`. Probes get 200 and the overall status; the components only with the API key
 * (or when the API itself is open: no key, not hosted). Degraded still answers 200: the server
 * serves (uncached, without the browser, ...), and a probe must not restart it.
 */
function mountHealth(app: Hono, gleaner: Gleaner, sessions: McpSessions): void {
  const { api_key: apiKey } = gleaner.config.server;
  const openApi = !apiKey && !gleaner.config.memory.hosted;
  app.get("/health", async (c) => {
    const report = await gleaner.health();
    c.header("cache-control", "no-store");
    const detailed = openApi ||
      (apiKey !== undefined && bearerMatches(c.req.header("authorization") ?? "", apiKey));
    if (detailed) return c.json({ ...report, sessions: { mcp: sessions.counts() } });
    return c.json({ status: report.status, version: VERSION });
  });
}

/** `GET /v1/tools`: built on the first request, then served as it is (the tool list is fixed). */
function mountToolListing(app: Hono, tools: readonly AnyToolSpec[]): void {
  let listing: unknown;
  app.get("/v1/tools", (c) =>
    c.json(
      listing ??= {
        tools: tools.map((tool) => ({
          name: tool.name,
          title: tool.title,
          description: tool.description,
          path: tool.http?.path ?? `/v1/tools/${tool.name}`,
          input_schema: listedInputSchema(tool),
        })),
      },
    ));
}

/** `/mcp` (the given tools) and `/mcp/deep-research` (the Deep Research tools), Streamable HTTP. */
function mountMcp(
  app: Hono,
  gleaner: Gleaner,
  sessions: McpSessions,
  tools: readonly AnyToolSpec[],
): void {
  for (
    const [endpoint, served] of [["/mcp", tools], [
      "/mcp/deep-research",
      DEEP_RESEARCH_TOOLS,
    ]] as const
  ) {
    app.all(endpoint, (c) =>
      sessions.handle(c.req.raw, {
        gleaner: requestGleaner(c, gleaner),
        tools: served,
        endpoint,
        owner: requestOwner(c),
      }));
  }
}

/**
 * The REST route of every tool (its own path, its mirror, `/v1/tools/<name>`); returns the
 * paths mounted.
 */
function mountToolRoutes(
  app: Hono,
  gleaner: Gleaner,
  tools: readonly AnyToolSpec[],
  maxBytes: number,
): { path: string; tool: AnyToolSpec }[] {
  const routes = tools.flatMap((tool) => [
    ...(tool.http ? [{ path: tool.http.path, tool }] : []),
    ...(tool.http?.mirror ? [{ path: tool.http.mirror, tool }] : []),
    { path: `/v1/tools/${tool.name}`, tool },
  ]);
  for (const { path, tool } of routes) {
    // The mirror path of a read-only tool (`GET /recall_memories?query=…`) also takes its
    // arguments in the query string.
    const methods = path === tool.http?.mirror && tool.readOnly ? ["POST", "GET"] : ["POST"];
    app.on(methods, path, async (c) => {
      try {
        const body = c.req.method === "GET"
          ? queryArguments(new URL(c.req.url), tool)
          : await readJsonBody(c.req.raw, maxBytes);
        const { format, args } = outputFormat(tool, body);
        const output = await callTool(tool, requestGleaner(c, gleaner), args, {
          signal: c.req.raw.signal,
          requestId: requestIdFrom(c.req.header("x-request-id")),
        });
        return c.json(format === "prompt" ? { prompt: await tool.http!.prompt!(output) } : output);
      } catch (error) {
        const failure = toGleanerError(error, tool.name);
        if (failure.code === "internal") {
          log.error("{tool} failed: {error}", { tool: tool.name, error });
        }
        return errorResponse(failure);
      }
    });
  }
  return routes;
}

/**
 * Web search turned off (`search.enabled: false`): the paths of the tools that search answer
 * why, with the stable code, rather than as unknown routes.
 */
function mountWithheldSearchTools(
  app: Hono,
  gleaner: Gleaner,
  routes: readonly { path: string }[],
): void {
  for (const tool of withheldSearchTools(gleaner.config)) {
    for (const path of new Set([tool.http?.path, `/v1/tools/${tool.name}`])) {
      if (path && !routes.some((route) => route.path === path)) {
        app.post(path, () => errorResponse(searchDisabledError(tool.name)));
      }
    }
  }
}

/**
 * The REST-only `output_format` of a body (`json` by default; `prompt` where the tool renders
 * one), taken out of the tool's arguments.
 */
function outputFormat(
  tool: AnyToolSpec,
  body: unknown,
): { format: "json" | "prompt"; args: unknown } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { format: "json", args: body };
  }
  const { output_format: format, ...args } = body as Record<string, unknown>;
  if (format === undefined) return { format: "json", args: body };
  if (format === "json" || (format === "prompt" && tool.http?.prompt)) return { format, args };
  throw new GleanerError(
    "invalid_arguments",
    `${tool.name}: output_format must be ${
      tool.http?.prompt ? '"json" or "prompt"' : '"json" (this tool has no prompt form)'
    }`,
    { details: { field: "output_format" } },
  );
}

function errorResponse(error: GleanerError): Response {
  return Response.json({ error: error.toJSON() }, {
    status: HTTP_STATUS[error.code] as ContentfulStatusCode,
  });
}
