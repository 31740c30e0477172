import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import {
  BRAVE_IMAGES_DOC,
  BRAVE_NEWS_DOC,
  BRAVE_VIDEOS_DOC,
  DOCUMENTED_FAILURES,
  withFakeProviders,
} from "../../../testing/fixtures/fake_providers.ts";
import { assertFailureClasses } from "../../../testing/fixtures/provider_checks.ts";
import { GleanerError } from "../../errors.ts";
import { createRoleRouter } from "../roles.ts";
import { braveLocale, braveProvider } from "./brave.ts";
import { fitQuery } from "./http.ts";
import type { ProviderHit } from "./types.ts";

const KEY = "brave-test-key-456";

Deno.test("brave: web search sends the token and Brave's parameters; results normalized", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ brave: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const hits = await braveProvider.search!({
      query: "sqlite wal",
      max_results: 50,
      time_range: "month",
      language: "de-DE",
    }, env);
    const [req] = fakes.requestsOf("brave");
    assert.equal(req.method, "GET");
    assert.equal(req.path, "/res/v1/web/search");
    assert.equal(req.headers["x-subscription-token"], KEY);
    assert.equal(req.headers.accept, "application/json");
    assert.deepEqual(req.query, {
      q: "sqlite wal",
      count: "20",
      freshness: "pm",
      search_lang: "de",
      country: "DE",
    });
    assert.equal(hits.length, 3);
    assert.equal(
      hits[0].snippet,
      "The default method by which SQLite implements atomic commit; about sqlite wal.",
      "<strong> stripped",
    );
    assert.equal(hits[0].published, "2024-05-01T00:00:00.000Z");
    assert.equal(hits[0].source, "brave");
    assert.equal(hits[0].provider_data?.hostname, "sqlite.org");
    assert.deepEqual(hits[0].provider_data?.extra_snippets, ["More text from the page."]);
    assert.equal(hits[1].published, undefined);
  });
});

Deno.test("brave: news search uses the news endpoint", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ brave: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const viaTopic = await braveProvider.search!(
      { query: "n", max_results: 2, topic: "news" },
      env,
    );
    assert.equal(fakes.requestsOf("brave")[0].path, "/res/v1/news/search");
    assert.equal(viaTopic.length, 2);
    const tool = braveProvider.tools.find((t) => t.name === "brave_news_search")!;
    const out = await tool.run(tool.input.parse({ query: "n" }), env) as { results: unknown[] };
    assert.equal(out.results.length, 3);
    assert.equal(fakes.requestsOf("brave")[1].path, "/res/v1/news/search");
  });
});

Deno.test("brave: news asks for up to Brave's 50 results (web stays at 20)", async () => {
  await withFakeProviders(async (fakes) => {
    // BRAVE_NEWS_DOC: news `count` at most 50.
    assert.ok(BRAVE_NEWS_DOC.includes("news_search"));
    fakes.setResults(
      Array.from({ length: 60 }, (_, i) => ({
        url: `https://news${i}.example/story`,
        title: `Story ${i}`,
        snippet: "News.",
      })),
    );
    const config = parseConfig(fakes.config({ brave: KEY }, { search_order: ["brave"] }));
    const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
    const news = await roles.search({ query: "election", max_results: 45, topic: "news" });
    assert.equal(fakes.requestsOf("brave")[0].query.count, "45");
    assert.equal(news.results.length, 45);
    const web = await roles.search({ query: "election", max_results: 45 });
    assert.equal(fakes.requestsOf("brave")[1].query.count, "20");
    assert.equal(web.results.length, 20);
    const tool = braveProvider.tools.find((t) => t.name === "brave_news_search")!;
    assert.ok(tool.input.safeParse({ query: "n", max_results: 50 }).success);
    assert.ok(!tool.input.safeParse({ query: "n", max_results: 51 }).success);
    const webTool = braveProvider.tools.find((t) => t.name === "brave_web_search")!;
    assert.ok(!webTool.input.safeParse({ query: "n", max_results: 21 }).success);
  });
});

Deno.test("brave: every failure class is produced and classified", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ brave: KEY }, {
      providers: { brave: { timeout_ms: 400 } },
    }));
    const env = { config, fetcher: createFetcher(config.network) };
    await assertFailureClasses(
      fakes,
      "brave",
      KEY,
      () => braveProvider.search!({ query: "x", max_results: 3 }, env),
    );
  });
});

Deno.test("brave: BCP 47 tags map onto Brave's search_lang and country vocabularies", () => {
  const table: [string, string | undefined, string | undefined, number][] = [
    ["ja", "jp", undefined, 0],
    ["ja-JP", "jp", "JP", 0],
    ["zh-TW", "zh-hant", "TW", 0],
    ["zh-HK", "zh-hant", "HK", 0],
    ["zh-Hant", "zh-hant", undefined, 0],
    ["zh-Hans-CN", "zh-hans", "CN", 0],
    ["zh", "zh-hans", undefined, 0],
    ["pt-BR", "pt-br", "BR", 0],
    ["pt-PT", "pt-pt", "PT", 0],
    ["nb", "nb", undefined, 0],
    ["no-NO", "nb", "NO", 0],
    ["en-GB", "en-gb", "GB", 0],
    ["en_US", "en", "US", 0],
    ["de-AT", "de", "AT", 0],
    ["es-419", "es", undefined, 0],
    ["fr-SN", "fr", undefined, 1],
    ["kl", undefined, undefined, 1],
  ];
  for (const [tag, lang, country, dropped] of table) {
    const locale = braveLocale(tag);
    assert.equal(locale.search_lang, lang, tag);
    assert.equal(locale.country, country, tag);
    assert.equal(locale.dropped.length, dropped, `${tag}: ${locale.dropped}`);
  }
});

Deno.test("brave: fitQuery cuts at a word boundary, keeps the site: hint, refuses what cannot fit", () => {
  const words = Array.from({ length: 80 }, (_, i) => `word${i}`);
  const hint = "(site:a.example OR site:b.example)";
  const fitted = fitQuery(`${words.join(" ")} ${hint}`, {
    provider: "brave",
    maxChars: 400,
    maxWords: 50,
    keep: hint,
  });
  assert.ok(fitted.query.endsWith(` ${hint}`));
  assert.equal(fitted.query.split(" ").length, 50);
  assert.ok(fitted.query.startsWith(words.slice(0, 47).join(" ") + " "));
  assert.match(fitted.notice ?? "", /first 47 of 80 words/);
  assert.throws(
    () => fitQuery("y".repeat(401), { provider: "brave", maxChars: 400, maxWords: 50 }),
    (e: unknown) => e instanceof GleanerError && e.code === "invalid_arguments",
  );
  assert.deepEqual(fitQuery("a b", { provider: "brave", maxChars: 400 }), { query: "a b" });
});

const imageTool = braveProvider.tools.find((t) => t.name === "brave_image_search")!;
const videoTool = braveProvider.tools.find((t) => t.name === "brave_video_search")!;

async function runTool(
  tool: typeof imageTool,
  input: Record<string, unknown>,
  env: Parameters<typeof tool.run>[1],
): Promise<ProviderHit[]> {
  return ((await tool.run(tool.input.parse(input), env)) as { results: ProviderHit[] }).results;
}

Deno.test("brave: image search sends Brave's image parameters; the image URL, size and thumbnail are kept", async () => {
  // Parameters and fields: BRAVE_IMAGES_DOC.
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ brave: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const hits = await runTool(imageTool, {
      query: "lighthouse",
      max_results: 150,
      language: "pt-BR",
      safesearch: "off",
      spellcheck: false,
    }, env);
    const [req] = fakes.requestsOf("brave");
    assert.equal(req.path, "/res/v1/images/search");
    assert.equal(req.headers["x-subscription-token"], KEY);
    assert.deepEqual(req.query, {
      q: "lighthouse",
      count: "150",
      search_lang: "pt-br",
      country: "BR",
      safesearch: "off",
      spellcheck: "false",
    });
    assert.equal(hits.length, 3);
    assert.equal(hits[0].url, "https://sqlite.org/wal.html", "the page showing the image");
    assert.equal(hits[0].snippet, "Image: https://sqlite.org/images/picture-0.jpg (1920×1080)");
    assert.deepEqual(hits[0].provider_data, {
      image_url: "https://sqlite.org/images/picture-0.jpg",
      thumbnail: "https://imgs.search.brave.com/thumb-0.jpg",
      width: 1920,
      height: 1080,
      source: "sqlite.org",
      hostname: "sqlite.org",
      confidence: "high",
    });
    assert.equal(hits[1].snippet, "Image: https://docs.deno.com/images/picture-1.jpg", "no size");
    assert.equal(hits[0].published, undefined, "page_fetched is a crawl time, not a date");

    // An explicit country wins over the language's region; Brave's default safesearch is kept.
    await runTool(imageTool, { query: "lighthouse", language: "pt-BR", country: "pt" }, env);
    const second = fakes.requestsOf("brave")[1].query;
    assert.equal(second.country, "PT");
    assert.equal(second.count, "20");
    assert.equal(second.safesearch, undefined);
    assert.equal(second.spellcheck, undefined);
  });
});

Deno.test("brave: video search sends Brave's video parameters; duration, creator and views are kept", async () => {
  // Parameters and fields: BRAVE_VIDEOS_DOC.
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ brave: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    const hits = await runTool(videoTool, {
      query: "sqlite wal",
      max_results: 50,
      time_range: "week",
      country: "all",
      safesearch: "moderate",
    }, env);
    const [req] = fakes.requestsOf("brave");
    assert.equal(req.path, "/res/v1/videos/search");
    assert.deepEqual(req.query, {
      q: "sqlite wal",
      count: "50",
      freshness: "pw",
      country: "ALL",
      safesearch: "moderate",
    });
    assert.equal(hits.length, 3);
    assert.equal(
      hits[0].snippet,
      "The default method by which SQLite implements atomic commit; about sqlite wal. (03:15, A. Presenter on VideoSite, 1,523,000 views)",
    );
    assert.equal(hits[0].published, "2024-05-01T00:00:00.000Z");
    assert.deepEqual(hits[0].provider_data, {
      age: "May 1, 2024",
      duration: "03:15",
      views: 1523000,
      creator: "A. Presenter",
      publisher: "VideoSite",
      thumbnail: "https://imgs.search.brave.com/video-0.jpg",
      hostname: "sqlite.org",
    });
    assert.equal(hits[1].published, undefined);
  });
});

Deno.test("brave: media searches stay inside Brave's documented limits; the fake refuses what Brave refuses", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ brave: KEY }));
    const env = { config, fetcher: createFetcher(config.network) };
    // The tools never ask more than Brave serves.
    assert.ok(imageTool.input.safeParse({ query: "x", max_results: 200 }).success);
    assert.ok(!imageTool.input.safeParse({ query: "x", max_results: 201 }).success);
    assert.ok(!videoTool.input.safeParse({ query: "x", max_results: 51 }).success);
    assert.ok(!imageTool.input.safeParse({ query: "x", safesearch: "moderate" }).success);
    assert.ok(
      !imageTool.input.safeParse({ query: "x", time_range: "day" }).success,
      "no freshness",
    );
    // 60 words: cut to Brave's 50 before sending.
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`).join(" ");
    await runTool(videoTool, { query: words }, env);
    assert.equal(fakes.requestsOf("brave")[0].query.q.split(" ").length, 50);
    // A country Brave does not list is refused before anything is sent.
    const error = await runTool(imageTool, { query: "x", country: "ZZ" }, env).catch((e) => e);
    assert.ok(error instanceof GleanerError && error.code === "invalid_arguments");
    assert.equal(error.details?.field, "country");
    assert.match(error.message, /ALL or one of AR, AU/);
    assert.equal(fakes.requestsOf("brave").length, 1);

    // The fake itself answers Brave's 422 where Brave would.
    const refused: [string, Record<string, string>, string, string][] = [
      [BRAVE_IMAGES_DOC, { count: "201" }, "images", "count"],
      [BRAVE_IMAGES_DOC, { safesearch: "moderate" }, "images", "safesearch"],
      [BRAVE_VIDEOS_DOC, { count: "51" }, "videos", "count"],
      [BRAVE_VIDEOS_DOC, { safesearch: "adult" }, "videos", "safesearch"],
      [BRAVE_VIDEOS_DOC, { search_lang: "xx" }, "videos", "search_lang"],
    ];
    for (const [source, params, media, field] of refused) {
      const url = new URL(`${fakes.baseUrl("brave")}/res/v1/${media}/search`);
      url.search = new URLSearchParams({ q: "x", ...params }).toString();
      const res = await fetch(url, { headers: { "x-subscription-token": KEY } });
      const body = await res.json();
      assert.equal(res.status, 422, `${media} ${field} (${source})`);
      assert.equal(body.type, "ErrorResponse");
      assert.equal(body.error.code, "VALIDATION");
      assert.deepEqual(body.error.meta.errors[0].loc, ["query", field]);
    }
    const ok = new URL(`${fakes.baseUrl("brave")}/res/v1/images/search`);
    ok.search = new URLSearchParams({ q: "x", count: "200", safesearch: "strict" }).toString();
    const res = await fetch(ok, { headers: { "x-subscription-token": KEY } });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).type, "images");
  });
});

Deno.test("brave: every documented failure and failure class is classified for image and video search", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({ brave: KEY }, {
      providers: { brave: { timeout_ms: 400 } },
      breaker_failures: 1_000,
    }));
    const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
    for (const tool of [imageTool, videoTool]) {
      const call = () =>
        roles.invoke(braveProvider.name, (env) => tool.run(tool.input.parse({ query: "x" }), env));
      for (const doc of DOCUMENTED_FAILURES.brave!) {
        fakes.reply("brave", doc, 1);
        const error = await call().then(
          () => assert.fail(`${doc.name}: expected a failure`),
          (e) => e,
        );
        assert.ok(error instanceof GleanerError, doc.name);
        assert.equal(error.code, doc.code, `${tool.name} ${doc.name} (${doc.source})`);
        assert.ok(!error.message.includes(KEY), "no key in the message");
      }
    }
    const env = { config, fetcher: createFetcher(config.network) };
    await assertFailureClasses(fakes, "brave", KEY, () => runTool(videoTool, { query: "x" }, env));
  });
});
