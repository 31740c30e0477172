/**
 * The `/ui` web page: run search, scrape and research and see the evidence
 * with its sources, offsets and token counts; browse, search, edit and delete
 * memories when the server has the memory tools. The page's files carry no
 * data and need no token; everything it shows comes from the REST API with
 * the same bearer token as any other client.
 *
 * @module
 */
import type { Hono } from "hono";
import { UI_CSS, UI_FAVICON, UI_HTML, UI_JS } from "./assets.ts";

/**
 * Headers of every `/ui` file: no inline script, no framing, no caching, no referrer.
 *
 * @internal exported for tests only
 */
export const UI_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

function file(body: string, type: string): Response {
  return new Response(body, { headers: { ...UI_HEADERS, "content-type": type } });
}

/**
 * Adds `GET /ui`, `/ui/app.js`, `/ui/app.css` and the icon (`/ui/favicon.svg`,
 * and `/favicon.ico` that browsers ask for on their own) to an app, and `GET /`
 * as a redirect (302) to `/ui`. Register
 * it after the Host guard and before the bearer guard: the files are public,
 * the API they call is not.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { mountUi } from "./mod.ts";
 * const app = mountUi(new Hono());
 * const res = await app.request("/ui");
 * console.assert(res.status === 200 && res.headers.get("content-type")!.startsWith("text/html"));
 * ```
 */
export function mountUi(app: Hono): Hono {
  // The server's root is the page: a person who opens the address lands on it.
  app.get("/", (c) => c.redirect("/ui", 302));
  app.get("/ui", () => file(UI_HTML, "text/html; charset=utf-8"));
  app.get("/ui/", () => file(UI_HTML, "text/html; charset=utf-8"));
  app.get("/ui/app.js", () => file(UI_JS, "text/javascript; charset=utf-8"));
  app.get("/ui/app.css", () => file(UI_CSS, "text/css; charset=utf-8"));
  app.get("/ui/favicon.svg", () => file(UI_FAVICON, "image/svg+xml"));
  app.get("/favicon.ico", () => file(UI_FAVICON, "image/svg+xml"));
  return app;
}
