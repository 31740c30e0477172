/**
 * A tier declares when it runs (`renders`, `renderAfter`, `fallbackFor`,
 * `readsCopy`): the cascade follows the declarations whatever the tier is
 * called, so adding a tier never means editing the cascade. The HTTP tier is
 * the real one, against the loopback fixture web; the added tiers are what a
 * new tier looks like to the cascade, with names the cascade gives no role.
 */
import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { GleanerError } from "../errors.ts";
import { createFetcher } from "../net/fetch.ts";
import { startFixtureWeb } from "../../testing/fixtures/web.ts";
import { createReader } from "./cascade.ts";
import { httpTier } from "./tiers/http.ts";
import type { ErrorCode } from "../errors.ts";
import type { Page, Tier, TierName } from "./types.ts";

type Web = Awaited<ReturnType<typeof startFixtureWeb>>;

/** A tier that answers every URL with a page of its own, counting its reads. */
function answering(name: TierName, declared: Partial<Tier> = {}) {
  const reads: string[] = [];
  const tier: Tier = {
    name,
    ...declared,
    canHandle: () => true,
    read: (url) => {
      reads.push(url.pathname);
      const page: Page = {
        url: url.href,
        finalUrl: url.href,
        title: `${name} copy`,
        markdown: `The ${name} tier read ${url.pathname}.`,
        links: [],
        tier: name,
        mediaType: "text/html",
        fetchedAt: new Date().toISOString(),
      };
      return Promise.resolve(page);
    },
  };
  return { tier, reads };
}

/** A tier that fails every read with `code`. */
function failing(name: TierName, code: ErrorCode, declared: Partial<Tier> = {}): Tier {
  return {
    name,
    ...declared,
    canHandle: () => true,
    read: (url) => Promise.reject(new GleanerError(code, `${name} could not read ${url.href}`)),
  };
}

async function withWeb(
  fn: (web: Web, reader: (tiers: Tier[]) => ReturnType<typeof createReader>) => Promise<void>,
) {
  const web = await startFixtureWeb();
  const config = parseConfig({
    network: { allow_private: [web.origin] },
    read: { render: "auto" },
  });
  const fetcher = createFetcher(config.network);
  try {
    await fn(web, (tiers) => createReader({ config, fetcher, tiers }));
  } finally {
    await web.close();
  }
}

Deno.test("cascade: a tier that declares `renders` runs only when rendering is wanted, whatever its name", async () => {
  await withWeb(async (web, reader) => {
    const renderer = answering("crawl4ai", { renders: true });
    const read = reader([httpTier, renderer.tier]);
    // A full page over HTTP: rendering is never wanted.
    const full = await read.read({ url: web.url("/pages/wikipedia") });
    assert.equal(full.tier, "http");
    assert.deepEqual(renderer.reads, []);
    // A thin page in auto mode: the HTTP tier declares `renderAfter`, so the renderer reads it.
    const thin = await read.read({ url: web.url("/js-only") });
    assert.equal(thin.tier, "crawl4ai");
    assert.deepEqual(renderer.reads, ["/js-only"]);
    // Under `never` the thin HTTP page is the answer and the renderer is not asked.
    const never = await read.read({ url: web.url("/js-only"), render: "never", noCache: true });
    assert.equal(never.tier, "http");
    assert.ok(never.thin);
    // A 404 is no reason to render: the renderer is not asked, the origin's failure is the answer.
    await assert.rejects(
      read.read({ url: web.url("/status/404") }),
      (e) => e instanceof GleanerError && e.code === "not_found",
    );
    assert.deepEqual(renderer.reads, ["/js-only"]);
    // Under `always` the renderer reads at once (the HTTP tier does not apply).
    const always = await read.read({ url: web.url("/pages/wikipedia"), render: "always" });
    assert.equal(always.tier, "crawl4ai");
    assert.deepEqual(renderer.reads, ["/js-only", "/pages/wikipedia"]);
  });
});

Deno.test("cascade: a thin page calls in the renderer only from a tier that declares `renderAfter`", async () => {
  await withWeb(async (web, reader) => {
    const renderer = answering("crawl4ai", { renders: true });
    // The same HTTP tier without its declaration: its thin page is the answer.
    const { renderAfter: _renderAfter, ...undeclared } = httpTier;
    const read = reader([undeclared, renderer.tier]);
    const thin = await read.read({ url: web.url("/js-only") });
    assert.equal(thin.tier, "http");
    assert.deepEqual(renderer.reads, []);
    // A 403 (`unauthorized`, a code HTTP declares): without the declaration, no renderer either.
    await assert.rejects(
      read.read({ url: web.url("/status/403") }),
      (e) => e instanceof GleanerError && e.code === "unauthorized",
    );
    assert.deepEqual(renderer.reads, []);
    // With it, the 403 calls the renderer in.
    const declared = await reader([httpTier, renderer.tier]).read({ url: web.url("/status/403") });
    assert.equal(declared.tier, "crawl4ai");
    assert.deepEqual(renderer.reads, ["/status/403"]);
  });
});

Deno.test("cascade: a tier that declares `fallbackFor` is tried last, and only for those failures", async () => {
  await withWeb(async (web, reader) => {
    // Listed first, yet a fallback: it never runs ahead of the tiers that ask the origin.
    const fallback = answering("kiwix", { fallbackFor: new Set<ErrorCode>(["not_found"]) });
    const read = reader([fallback.tier, httpTier]);
    assert.equal((await read.read({ url: web.url("/pages/wikipedia") })).tier, "http");
    assert.deepEqual(fallback.reads, []);
    // A 404 is a failure it stands in for.
    const missing = await read.read({ url: web.url("/status/404") });
    assert.equal(missing.tier, "kiwix");
    assert.deepEqual(fallback.reads, ["/status/404"]);
    // A 403 is not: the origin's failure is the answer.
    await assert.rejects(
      read.read({ url: web.url("/status/403") }),
      (e) => e instanceof GleanerError && e.code === "unauthorized",
    );
    assert.deepEqual(fallback.reads, ["/status/404"]);
  });
});

Deno.test("cascade: the failure of a tier that declares `readsCopy` explains less than the origin's own", async () => {
  await withWeb(async (web, reader) => {
    // `not_found` is more specific than the origin's 503, but it came from a copy elsewhere.
    const copy = failing("github", "not_found", { readsCopy: true });
    await assert.rejects(
      reader([copy, httpTier]).read({ url: web.url("/status/503") }),
      (e) => e instanceof GleanerError && e.code === "provider_unavailable",
    );
    // The same failure from a tier that asked the origin is the more specific answer.
    const own = failing("github", "not_found");
    await assert.rejects(
      reader([own, httpTier]).read({ url: web.url("/status/503") }),
      (e) => e instanceof GleanerError && e.code === "not_found",
    );
  });
});
