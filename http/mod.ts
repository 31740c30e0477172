/**
 * Gleaner's HTTP surface: the Hono app (REST routes generated from the tool
 * specs, `/mcp`, `/health`, `/config`) and a `Deno.serve` runner.
 *
 * @example
 * ```ts ignore
 * import { createGleaner } from "@gleaner/gleaner";
 * import { serveHttp } from "@gleaner/gleaner/http";
 * serveHttp(await createGleaner());
 * ```
 *
 * @module
 */
export { createApp } from "./app.ts";
export { requiresAuthentication, serveHttp } from "./serve.ts";
export type { RunningServer } from "./serve.ts";
export {
  allowedOrigins,
  bearerGuard,
  hostGuard,
  isLoopbackHost,
  servedHostNames,
} from "./guard.ts";
export type { AppOptions } from "./app.ts";
export type { ServeOptions } from "./serve.ts";
export { isJsonMediaType, MAX_BODY_BYTES, readJsonBody } from "./body.ts";
