/**
 * The management views (`tinysuite.manage/1`), for an operator's console: a manifest at
 * `GET /manage` naming three views, each a JSON document at its own path (the same documents
 * are MCP resources, see `mcp/manage_resources.ts`):
 *
 * - `memories` (`GET /manage/memories?limit=&offset=&search=&kind=`): the operator's stored
 *   memories, newest first, paged, as `list_memories` lists them;
 * - `overview` (`GET /manage/overview`): the health report, MCP sessions, the memory count;
 * - `service` (`GET /manage/service`): name, version, runtime, start time, the tools served and
 *   the effective settings (secrets redacted).
 *
 * Off unless the operator sets `server.management` (with `server.management_token`, at least
 * 24 characters; the config refuses a shorter one or none): then every `/manage` request must
 * carry `Authorization: Bearer <management token>` (else 401 with `WWW-Authenticate: Bearer`).
 * The API key is not asked for: the management token is its own credential, and a tenant's
 * credentials never open these views. With the views off, `/manage` is 404.
 *
 * @module
 */
import type { Hono } from "hono";
import { GleanerError, HTTP_STATUS, toGleanerError } from "../lib/errors.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { bearerMatches } from "./guard.ts";
import type { SessionCounter } from "../lib/config/management.ts";
import { manageManifest, memoriesView, overviewView, serviceView } from "../lib/manage/views.ts";

/**
 * Mounts the management views on `app` when `server.management` is on (a no-op otherwise).
 * Mount it before the API-key guard: the views check the management token themselves.
 *
 * @example
 * ```ts ignore
 * import { Hono } from "hono";
 * import { mountManagement } from "./manage.ts";
 * mountManagement(new Hono(), gleaner, { tools, sessions });
 * ```
 */
export function mountManagement(
  app: Hono,
  gleaner: Gleaner,
  parts: { tools: readonly AnyToolSpec[]; sessions: SessionCounter },
): void {
  const { management, management_token: token } = gleaner.config.server;
  if (!management || !token) return;
  const startedAt = new Date();
  app.use("/manage", guard(token));
  app.use("/manage/*", guard(token));
  app.get("/manage", (c) => c.json(manageManifest()));
  app.get("/manage/memories", async (c) => {
    const url = new URL(c.req.url);
    const args: Record<string, unknown> = {};
    for (const key of ["limit", "offset"]) {
      const value = url.searchParams.get(key);
      if (value !== null) args[key] = /^\d+$/.test(value) ? Number(value) : value;
    }
    for (const key of ["search", "kind"]) {
      const value = url.searchParams.get(key);
      if (value !== null) args[key] = value;
    }
    try {
      return c.json(await memoriesView(gleaner, args, c.req.raw.signal));
    } catch (error) {
      const failure = toGleanerError(error, "manage/memories");
      return c.json({ error: failure.toJSON() }, HTTP_STATUS[failure.code] as 400);
    }
  });
  app.get("/manage/overview", async (c) => {
    const overview = await overviewView(gleaner, parts.sessions);
    c.header("cache-control", "no-store");
    return c.json(overview);
  });
  app.get("/manage/service", (c) => c.json(serviceView(gleaner, parts.tools, startedAt)));
}

function guard(token: string) {
  return async (
    c: { req: { header(name: string): string | undefined }; header(k: string, v: string): void },
    next: () => Promise<void>,
  ): Promise<Response | void> => {
    const given = c.req.header("authorization") ?? "";
    if (!bearerMatches(given, token)) {
      const failure = new GleanerError(
        "unauthorized",
        "the management views need Authorization: Bearer <server.management_token>",
      );
      return Response.json({ error: failure.toJSON() }, {
        status: 401,
        headers: {
          "www-authenticate": given
            ? 'Bearer realm="gleaner-manage", error="invalid_token"'
            : 'Bearer realm="gleaner-manage"',
        },
      });
    }
    await next();
  };
}
