import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { GleanerError } from "../../errors.ts";
import { createFetcher } from "../../net/fetch.ts";
import { type FakeYoutube, startFakeYoutube } from "../../../testing/fixtures/fake_youtube.ts";
import { createReader } from "../cascade.ts";
import { httpTier } from "./http.ts";
import type { ReadContext } from "../types.ts";
import { parseTimedText, YOUTUBE_MAX_CUES, youtubeTier, youtubeVideoId } from "./youtube.ts";

function contextFor(
  youtube: FakeYoutube,
  read: Record<string, unknown> = {},
  respectRobots = false,
): ReadContext {
  const config = parseConfig({
    network: { allow_private: [youtube.origin], respect_robots: respectRobots },
    read: { youtube_url: youtube.origin, render: "never", ...read },
  });
  return { config, fetcher: createFetcher(config.network) };
}

async function withYoutube(fn: (youtube: FakeYoutube) => Promise<void>): Promise<void> {
  const youtube = startFakeYoutube();
  try {
    await fn(youtube);
  } finally {
    await youtube.close();
  }
}

function read(url: string, context: ReadContext) {
  const parsed = new URL(url);
  assert.ok(youtubeTier.canHandle(parsed, { url }), `canHandle ${url}`);
  return youtubeTier.read(parsed, { url }, context);
}

const timedTextRequests = (youtube: FakeYoutube) =>
  youtube.requests.filter((r) => r.path === "/api/timedtext");

Deno.test("youtubeVideoId reads watch, youtu.be, shorts, live and embed URLs, nothing else", () => {
  const id = "Gl3anerVid1";
  for (
    const url of [
      `https://www.youtube.com/watch?v=${id}&t=30s`,
      `https://youtube.com/watch?feature=share&v=${id}`,
      `https://m.youtube.com/watch?v=${id}`,
      `https://youtu.be/${id}?si=abc`,
      `https://www.youtube.com/shorts/${id}`,
      `https://www.youtube.com/live/${id}`,
      `https://www.youtube.com/embed/${id}`,
    ]
  ) {
    assert.equal(youtubeVideoId(new URL(url)), id, url);
  }
  for (
    const url of [
      "https://www.youtube.com/results?search_query=x",
      "https://www.youtube.com/watch?v=short",
      "https://www.youtube.com/@channel",
      "https://example.com/watch?v=Gl3anerVid1",
      "https://youtu.be/",
    ]
  ) {
    assert.equal(youtubeVideoId(new URL(url)), undefined, url);
    assert.equal(youtubeTier.canHandle(new URL(url), { url }), false, url);
  }
  assert.equal(
    youtubeTier.canHandle(new URL(`https://youtu.be/${id}`), {
      url: `https://youtu.be/${id}`,
      render: "always",
    }),
    false,
    "render: always asks for the browser",
  );
});

Deno.test("youtube tier: a watch URL gives the manual captions (srv1 XML) as a timed transcript", async () => {
  await withYoutube(async (youtube) => {
    const page = await read("https://www.youtube.com/watch?v=Gl3anerVid1&t=5", contextFor(youtube));
    assert.ok(page);
    assert.equal(page.tier, "youtube");
    assert.equal(page.title, "How Sprockets Are Made");
    assert.equal(page.finalUrl, "https://www.youtube.com/watch?v=Gl3anerVid1");
    assert.equal(page.byline, "Acme Factory");
    assert.equal(page.published, "2024-03-05");
    assert.equal(page.lang, "en");
    assert.match(page.markdown, /^Video by Acme Factory, length 01:35, captions: English\./);
    // The description survives a brace, quotes and a backslash inside the player response's strings.
    assert.match(
      page.markdown,
      /## Description\n\nA tour of the sprocket line :-\} with "quotes" and \\ in text\./,
    );
    // Hashtag lines of a description stay text, not headings.
    assert.match(page.markdown, /\n\\#sprockets #factory\n\n## Transcript/);
    const transcript = page.markdown.split("## Transcript\n\n")[1];
    assert.deepEqual(transcript.split("\n"), [
      "[00:00] Welcome to the factory. Today we'll see how sprockets & gears are made.",
      "[00:31] First the steel is cut.",
      "[01:05] Then every tooth is polished by hand.",
    ]);
    // The manual English track, not the automatic one, read from the fake (re-based).
    const [tt] = timedTextRequests(youtube);
    const params = new URLSearchParams(tt.search);
    assert.equal(params.get("lang"), "en");
    assert.equal(params.get("kind"), null);
    assert.equal(youtube.requests[0].path, "/watch");
  });
});

Deno.test("youtube tier: preferred languages pick srv3 and json3 tracks; timestamps can be left out", async () => {
  await withYoutube(async (youtube) => {
    const german = await read(
      "https://youtu.be/Gl3anerVid1",
      contextFor(youtube, { youtube_languages: ["de"] }),
    );
    assert.equal(german?.lang, "de");
    assert.match(german!.markdown, /captions: German\./);
    assert.match(german!.markdown, /\[00:00\] Willkommen in der Fabrik\.\n\[00:31\] Zuerst wird/);
    assert.equal(new URLSearchParams(timedTextRequests(youtube)[0].search).get("fmt"), "srv3");

    // Only automatic captions (json3): the line-break events add nothing; hours are shown.
    const auto = await read(
      "https://www.youtube.com/shorts/Gl3anerVid2",
      contextFor(youtube),
    );
    assert.match(auto!.markdown, /captions: English \(auto-generated\)\./);
    assert.match(
      auto!.markdown,
      /## Transcript\n\n\[00:00\] so here is the gizmo it comes in a box\n\[1:01:40\] thanks for watching$/,
    );

    const plain = await read(
      "https://www.youtube.com/watch?v=Gl3anerVid2",
      contextFor(youtube, { youtube_timestamps: false }),
    );
    assert.match(
      plain!.markdown,
      /\n\nso here is the gizmo it comes in a box\nthanks for watching$/,
    );
  });
});

Deno.test("youtube tier: no captions or token-gated captions pass; an unknown video is not_found", async () => {
  await withYoutube(async (youtube) => {
    const context = contextFor(youtube);
    assert.equal(await read("https://www.youtube.com/watch?v=Gl3anerVid3", context), undefined);
    assert.equal(await read("https://www.youtube.com/watch?v=Gl3anerVid4", context), undefined);
    assert.equal(timedTextRequests(youtube).length, 0, "a token-gated track is not fetched");
    // A caption URL on a foreign host is not followed (not even to be refused by the policy).
    assert.equal(await read("https://www.youtube.com/watch?v=Gl3anerVid5", context), undefined);
    await assert.rejects(
      read("https://www.youtube.com/watch?v=NoSuchVid00", context),
      (e) => e instanceof GleanerError && e.code === "not_found",
    );
  });
});

Deno.test("youtube tier: the consent interstitial is answered once with YouTube's consent cookie", async () => {
  await withYoutube(async (youtube) => {
    youtube.setConsent(true);
    const page = await read("https://youtu.be/Gl3anerVid2", contextFor(youtube));
    assert.equal(page?.tier, "youtube");
    const watches = youtube.requests.filter((r) => r.path === "/watch");
    assert.equal(watches.length, 2);
    assert.equal(watches[1].headers.cookie, "CONSENT=YES+cb.20210328-17-p0.de+FX+096");
  });
});

Deno.test("youtube tier: YouTube's robots.txt refuses /api/ so the cascade reads the watch page instead", async () => {
  await withYoutube(async (youtube) => {
    const { config, fetcher } = contextFor(youtube, {}, true);
    const reader = createReader({ config, fetcher, tiers: [youtubeTier, httpTier] });
    // The page is addressed on the fake directly for the HTTP tier's sake: the YouTube tier
    // maps every YouTube URL onto read.youtube_url, the HTTP tier reads the URL it is given.
    const viaTier = await youtubeTier.read(
      new URL("https://www.youtube.com/watch?v=Gl3anerVid1"),
      { url: "https://www.youtube.com/watch?v=Gl3anerVid1" },
      { config, fetcher },
    );
    assert.equal(viaTier, undefined, "robots.txt disallows /api/timedtext");
    assert.equal(timedTextRequests(youtube).length, 0, "nothing was fetched under /api/");
    assert.ok(youtube.requests.some((r) => r.path === "/robots.txt"));
    const page = await reader.read({ url: `${youtube.origin}/watch?v=Gl3anerVid1` });
    assert.equal(page.tier, "http");

    // A robots.txt that refuses the watch page itself refuses the read.
    youtube.setRobots("User-agent: *\nDisallow: /watch\n");
    const fresh = contextFor(youtube, {}, true);
    await assert.rejects(
      read("https://www.youtube.com/watch?v=Gl3anerVid2", fresh),
      (e) => e instanceof GleanerError && e.code === "robots_disallowed",
    );
  });
});

Deno.test("parseTimedText: hostile bodies (unclosed tags, endless cues) cost linear work and stay bounded", () => {
  // Unclosed elements: a backtracking pattern would rescan the rest of the body at each one.
  assert.deepEqual(parseTimedText('<transcript><text start="1">x'.repeat(100_000)), []);
  assert.deepEqual(parseTimedText('<timedtext format="3"><body><p t="1"'.repeat(100_000)), []);
  assert.deepEqual(parseTimedText("<transcript><text".repeat(100_000)), []);
  const many = `<transcript>${
    '<text start="1" dur="1">a</text>'.repeat(YOUTUBE_MAX_CUES + 5)
  }</transcript>`;
  assert.equal(parseTimedText(many).length, YOUTUBE_MAX_CUES);
  // Not text-like: `<textarea>` is not a cue, and a cue without a start is dropped.
  assert.deepEqual(
    parseTimedText('<transcript><textarea>no</textarea><text dur="1">no start</text></transcript>'),
    [],
  );
});

Deno.test("youtube tier: a read.youtube_url the network policy refuses is blocked_url, nothing sent", async () => {
  await withYoutube(async (youtube) => {
    const config = parseConfig({ read: { youtube_url: youtube.origin } });
    await assert.rejects(
      read("https://youtu.be/Gl3anerVid1", { config, fetcher: createFetcher(config.network) }),
      (e) => e instanceof GleanerError && e.code === "blocked_url",
    );
    assert.equal(youtube.requests.length, 0);
  });
});

Deno.test("youtube tier: read.youtube_ignore_robots reads the transcript past robots.txt, for the tier only", async () => {
  await withYoutube(async (youtube) => {
    const { config, fetcher } = contextFor(youtube, { youtube_ignore_robots: true }, true);
    const reader = createReader({ config, fetcher, tiers: [youtubeTier, httpTier] });
    const page = await reader.read({ url: "https://www.youtube.com/watch?v=Gl3anerVid1" });
    assert.equal(page.tier, "youtube");
    assert.equal(timedTextRequests(youtube).length, 1, "the timed text under /api/ was read");
    assert.ok(!youtube.requests.some((r) => r.path === "/robots.txt"), "robots.txt never asked");
    // The same host read by the generic tiers still meets its robots.txt.
    await assert.rejects(
      reader.read({ url: `${youtube.origin}/api/timedtext?v=Gl3anerVid1` }),
      (e) => e instanceof GleanerError && e.code === "robots_disallowed",
    );
  });
});
