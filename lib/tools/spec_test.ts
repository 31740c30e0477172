import assert from "node:assert/strict";
import { lazyHandler, preloadHandler } from "./spec.ts";
import { TOOLS } from "./mod.ts";
import type { ToolContext } from "./spec.ts";

const context = {} as ToolContext;

Deno.test("lazyHandler loads once, on the first call or preload", async () => {
  let loads = 0;
  const handler = lazyHandler(() => {
    loads++;
    return Promise.resolve((input: { n: number }) => Promise.resolve({ twice: input.n * 2 }));
  });
  assert.equal(loads, 0);
  await handler.preload();
  assert.deepEqual(await handler({ n: 2 }, context), { twice: 4 });
  assert.deepEqual(await handler({ n: 5 }, context), { twice: 10 });
  assert.equal(loads, 1);
});

Deno.test("lazyHandler retries a load that failed", async () => {
  let loads = 0;
  const handler = lazyHandler<undefined, string>(() => {
    loads++;
    if (loads === 1) return Promise.reject(new Error("module missing"));
    return Promise.resolve(() => Promise.resolve("ok"));
  });
  await assert.rejects(handler(undefined, context), /module missing/);
  assert.equal(await handler(undefined, context), "ok");
  assert.equal(loads, 2);
});

Deno.test("preloadHandler loads every tool's handler code", async () => {
  await Promise.all(TOOLS.map(preloadHandler));
  const lazy = TOOLS.filter((tool) => "preload" in tool.handler).map((tool) => tool.name);
  assert.deepEqual(lazy.sort(), ["crawl_site", "research", "scrape_urls"]);
});
