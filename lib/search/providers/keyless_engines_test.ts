import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { SearchFailure } from "../../net/upstream_failure.ts";
import {
  DEFAULT_FAKE_RESULTS,
  fakeUpstreamConfig,
  type FakeUpstreams,
  withFakeUpstreams,
} from "../../../testing/fixtures/upstreams.ts";
import { braveHtmlProvider } from "./brave_html.ts";
import { mojeekProvider } from "./mojeek.ts";
import type { Provider, ProviderSearchRequest } from "./types.ts";
import { wikipediaProvider } from "./wikipedia.ts";
import { yahooProvider } from "./yahoo.ts";
import { yandexProvider } from "./yandex.ts";
import { parseMojeek } from "./mojeek_parse.ts";
import { parseBraveHtml } from "./brave_html_parse.ts";
import { parseYahoo } from "./yahoo_parse.ts";
import { parseYandex } from "./yandex_parse.ts";
import { serveLoopback } from "../../../testing/fixtures/serve.ts";

const ENGINES: [Provider, string][] = [
  [mojeekProvider, "mojeek"],
  [braveHtmlProvider, "brave_html"],
  [yahooProvider, "yahoo"],
  [yandexProvider, "yandex"],
  [wikipediaProvider, "wikipedia"],
];

/** A search through one engine against the fakes; the notices it sent. */
function setup(fakes: FakeUpstreams, search: Record<string, unknown> = {}) {
  const config = parseConfig(fakeUpstreamConfig(fakes, search));
  return async (provider: Provider, req: ProviderSearchRequest) => {
    const notices: string[] = [];
    const env = {
      config,
      fetcher: createFetcher(config.network),
      notice: (text: string) => void notices.push(text),
    };
    return { hits: await provider.search!(req, env), notices };
  };
}

async function failureOf(promise: Promise<unknown>): Promise<SearchFailure> {
  const error = await promise.then(() => assert.fail("expected a failure"), (e) => e);
  assert.ok(error instanceof SearchFailure, String(error));
  return error;
}

const urls = DEFAULT_FAKE_RESULTS.map((r) => r.url);

Deno.test("keyless engines: each parses its result page, in order, ads and redirects gone", async () => {
  await withFakeUpstreams(async (fakes) => {
    const search = setup(fakes);
    for (const [provider, name] of ENGINES.slice(0, 4)) {
      const { hits } = await search(provider, { query: "permission flags", max_results: 20 });
      assert.deepEqual(hits.map((h) => h.url), urls, `${name}: every organic result, in order`);
      assert.ok(hits.every((h) => h.source === name), name);
      assert.equal(hits[0].title, "Search engine - Wikipedia", name);
      // The query arrived: the fakes echo it into the snippets (with the engine's bold).
      assert.match(hits[0].snippet, /matching permission flags\.$/, name);
      assert.equal(hits[8].title, "Ask HN: How do you approach permission flags? | Hacker News");
    }
    const brave = await search(braveHtmlProvider, { query: "kv", max_results: 3 });
    assert.equal(brave.hits[0].published, "2024-03-02T00:00:00.000Z", "Brave's leading date");
    assert.ok(brave.hits[0].snippet.startsWith("A search engine"), "the date left the snippet");
    assert.equal(brave.hits.length, 3, "max_results holds");

    const wiki = await search(wikipediaProvider, { query: "web search", max_results: 4 });
    assert.deepEqual(wiki.hits.map((h) => h.title), [
      "Search engine",
      "An overview of HTTP",
      "Security and permissions",
      "denoland/deno: A modern runtime for JavaScript and TypeScript.",
    ]);
    assert.equal(wiki.hits[0].url, `${fakes.engineUrls.wikipedia}/wiki/Search_engine`);
    assert.equal(
      wiki.hits[3].url,
      `${fakes.engineUrls.wikipedia}/wiki/denoland/deno:_A_modern_runtime_for_JavaScript_and_TypeScript.`,
      "MediaWiki's own spelling: '/' and ':' kept, spaces as underscores",
    );
    assert.match(wiki.hits[0].snippet, /matching web search\.$/, "searchmatch spans removed");
    assert.equal(wiki.hits[0].provider_data?.last_edited, "2024-03-02T00:00:00Z");
    assert.equal(wiki.hits[0].published, undefined, "the last edit is no publication date");

    const asked = Object.fromEntries(fakes.requests.map((r) => [r.backend, r]));
    assert.equal(asked.mojeek.params.q, "permission flags");
    assert.equal(asked.mojeek.headers.cookie, "arc=us; lb=en");
    assert.equal(asked.mojeek.params.safe, "1");
    assert.equal(asked.brave_html.params.source, "web");
    assert.equal(asked.brave_html.headers.cookie, "country=us; useLocation=0; safesearch=moderate");
    assert.equal(asked.yahoo.params.p, "permission flags");
    assert.equal(asked.yahoo.headers.cookie, "sB=v=1&vm=i&fl=1&vl=lang_en");
    assert.equal(asked.yandex.params.text, "permission flags");
    assert.equal(asked.yandex.params.web, "1");
    assert.match(asked.yandex.params.searchid, /^\d{7}$/);
    assert.equal(asked.wikipedia.params.srsearch, "web search");
    assert.equal(asked.wikipedia.params.srlimit, "4");
    assert.equal(asked.wikipedia.params.list, "search");
    assert.ok(fakes.requests.every((r) => r.method === "GET"));
  });
});

Deno.test("keyless engines: a bot wall is blocked, never zero results", async () => {
  await withFakeUpstreams(async (fakes) => {
    const search = setup(fakes);
    const walls: [Provider, string, RegExp][] = [
      [mojeekProvider, "mojeek", /HTTP 403/],
      [braveHtmlProvider, "brave_html", /the page says "unusual traffic"/],
      [yahooProvider, "yahoo", /HTTP 403/],
      [yandexProvider, "yandex", /x-yandex-captcha header/],
    ];
    for (const [provider, name, sign] of walls) {
      fakes.setMode(name as "mojeek", "captcha");
      const failure = await failureOf(search(provider, { query: "x", max_results: 5 }));
      assert.equal(failure.outcome, "blocked", name);
      assert.equal(failure.code, "provider_unavailable", name);
      assert.match(failure.message, sign, name);
      assert.match(failure.message, /blocked, not zero results/);
    }
    // Wikipedia's own refusal is its documented `ratelimited` API error.
    fakes.setMode("wikipedia", "captcha");
    const wiki = await failureOf(search(wikipediaProvider, { query: "x", max_results: 5 }));
    assert.equal(wiki.code, "rate_limited");
    assert.equal(wiki.details?.upstream_code, "ratelimited");
  });
});

Deno.test("keyless engines: a redirect to a captcha page is blocked, header or not", async () => {
  // Yandex's own answer (the fakes): the redirect to /showcaptcha, whose page carries the header.
  await withFakeUpstreams(async (fakes) => {
    fakes.setMode("yandex", "captcha");
    const failure = await failureOf(setup(fakes)(yandexProvider, { query: "x", max_results: 5 }));
    assert.equal(failure.outcome, "blocked");
  });
  // Without the header and without any telling phrase, the captcha page's address says it.
  const server = serveLoopback((request) =>
    new URL(request.url).pathname === "/search/site/"
      ? new Response(null, { status: 302, headers: { location: "/showcaptcha?cc=1" } })
      : new Response("<html><body><form><img src='/captchaimg'></form></body></html>", {
        headers: { "content-type": "text/html" },
      })
  );
  try {
    const config = parseConfig({
      network: {
        allow_private: [server.origin],
        allowed_ports: [Number(new URL(server.origin).port)],
      },
      search: { providers: { yandex: { base_url: server.origin } } },
    });
    const env = { config, fetcher: createFetcher(config.network) };
    const failure = await failureOf(yandexProvider.search!({ query: "x", max_results: 5 }, env));
    assert.equal(failure.outcome, "blocked");
    assert.match(failure.message, /redirected to a captcha page/);
  } finally {
    await server.close();
  }
});

Deno.test("keyless engines: 429 keeps Retry-After, 5xx is unavailable, empty is []", async () => {
  await withFakeUpstreams(async (fakes) => {
    const search = setup(fakes);
    for (const [provider, name] of ENGINES) {
      const backend = name as "mojeek";
      fakes.setMode(backend, "ratelimit");
      const limited = await failureOf(search(provider, { query: "x", max_results: 5 }));
      assert.equal(limited.code, "rate_limited", name);
      assert.equal(limited.details?.retry_after_s, 60, name);
      fakes.setMode(backend, "error");
      const down = await failureOf(search(provider, { query: "x", max_results: 5 }));
      assert.equal(down.code, "provider_unavailable", name);
      fakes.setMode(backend, "empty");
      assert.deepEqual((await search(provider, { query: "x", max_results: 5 })).hits, [], name);
    }
  });
});

Deno.test("keyless engines: a page of unknown layout is a failure, not zero results", () => {
  for (const parse of [parseMojeek, parseBraveHtml, parseYahoo, parseYandex]) {
    assert.equal(parse("<html><body><p>maintenance</p></body></html>").kind, "unrecognised");
  }
});

Deno.test("keyless engines: time ranges map to each engine's filter or are reported dropped", async () => {
  await withFakeUpstreams(async (fakes) => {
    const search = setup(fakes);
    const req = { query: "q", max_results: 3, time_range: "week" as const };
    await search(mojeekProvider, req);
    await search(braveHtmlProvider, req);
    await search(yahooProvider, req);
    const asked = Object.fromEntries(fakes.requests.map((r) => [r.backend, r.params]));
    const since = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
    assert.equal(asked.mojeek.since, since.replaceAll("-", ""));
    assert.equal(asked.brave_html.tf, "pw");
    assert.equal(asked.yahoo.btf, "w");
    for (const provider of [yandexProvider, wikipediaProvider]) {
      const { notices, hits } = await search(provider, req);
      assert.ok(hits.length > 0);
      assert.match(notices[0], /time_range was not applied/, provider.name);
    }
    const year = await search(yahooProvider, { ...req, time_range: "year" });
    assert.match(year.notices[0], /^yahoo: cannot limit results to the past year/);
    assert.equal(fakes.requests.at(-1)!.params.btf, undefined);
  });
});
