import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createBrowserReadTier } from "./browser.ts";
import {
  browserSuffix as suffix,
  ignoreBrowser as ignore,
} from "../../../testing/fixtures/browser.ts";
import { serveLoopback } from "../../../testing/fixtures/serve.ts";

Deno.test({
  name: `the browser tier's first concurrent reads share one browser and its page bound${suffix}`,
  ignore,
  async fn() {
    let inFlight = 0;
    let peak = 0;
    const site = serveLoopback(async (request) => {
      if (!new URL(request.url).pathname.startsWith("/p")) {
        return new Response("no", { status: 404 });
      }
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 300));
      inFlight--;
      return new Response(
        `<!DOCTYPE html><html><head><title>P</title></head><body><p>page body</p></body></html>`,
        { headers: { "content-type": "text/html; charset=utf-8" } },
      );
    });
    const port = Number(new URL(site.origin).port);
    const config = parseConfig({
      network: { allow_private: [site.origin], allowed_ports: [port], respect_robots: false },
      read: { browser_pages: 1 },
    });
    const tier = createBrowserReadTier(config);
    try {
      // Three reads start before the browser engine is loaded: one engine, one page at a time.
      const pages = await Promise.all(
        [1, 2, 3].map((n) =>
          tier.read(new URL(`${site.origin}/p${n}`), {
            url: `${site.origin}/p${n}`,
            render: "always",
          }, { config, fetcher: undefined as never })
        ),
      );
      for (const page of pages) assert.match(page!.markdown, /page body/);
      assert.equal(peak, 1, "read.browser_pages = 1 holds across the first reads");
      assert.equal(tier.stats()?.busy, 0);
    } finally {
      await tier.close();
      await site.close();
    }
  },
});
