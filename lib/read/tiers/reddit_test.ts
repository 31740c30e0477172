import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { GleanerError } from "../../errors.ts";
import { createFetcher } from "../../net/fetch.ts";
import { type FakeReddit, startFakeReddit } from "../../../testing/fixtures/fake_reddit.ts";
import { createReader } from "../cascade.ts";
import { httpTier } from "./http.ts";
import { REDDIT_MAX_COMMENTS, REDDIT_MAX_DEPTH, redditThread, redditTier } from "./reddit.ts";
import type { ReadContext } from "../types.ts";

function contextFor(reddit: FakeReddit, respectRobots = false): ReadContext {
  const config = parseConfig({
    network: { allow_private: [reddit.origin], respect_robots: respectRobots },
    read: { reddit_url: reddit.origin, render: "never" },
  });
  return { config, fetcher: createFetcher(config.network) };
}

async function withReddit(fn: (reddit: FakeReddit) => Promise<void>): Promise<void> {
  const reddit = startFakeReddit();
  try {
    await fn(reddit);
  } finally {
    await reddit.close();
  }
}

function read(url: string, context: ReadContext) {
  const parsed = new URL(url);
  assert.ok(redditTier.canHandle(parsed, { url }), `canHandle ${url}`);
  return redditTier.read(parsed, { url }, context);
}

const THREAD = "https://www.reddit.com/r/Deno/comments/1abc2d/how_do_i_read_a_file_stream_it/";

Deno.test("redditThread reads thread URLs on reddit hosts, nothing else", () => {
  assert.deepEqual(redditThread(new URL(THREAD)), {
    subreddit: "Deno",
    id: "1abc2d",
    slug: "how_do_i_read_a_file_stream_it",
  });
  assert.deepEqual(
    redditThread(new URL("https://old.reddit.com/r/Deno/comments/1abc2d/x/k1alice/?context=3")),
    { subreddit: "Deno", id: "1abc2d", slug: "x", comment: "k1alice" },
  );
  assert.deepEqual(redditThread(new URL("https://reddit.com/comments/1abc2d")), { id: "1abc2d" });
  for (
    const url of [
      "https://www.reddit.com/r/Deno/",
      "https://www.reddit.com/r/Deno/top.json",
      "https://www.reddit.com/user/alice/",
      "https://example.com/r/Deno/comments/1abc2d/x/",
      "https://www.reddit.com/r/Deno/comments/NOT-AN-ID/x/",
    ]
  ) {
    assert.equal(redditThread(new URL(url)), undefined, url);
    assert.equal(redditTier.canHandle(new URL(url), { url }), false, url);
  }
});

Deno.test("reddit tier: the .json form gives the post and its comment tree, bounded in depth", async () => {
  await withReddit(async (reddit) => {
    const page = await read(THREAD, contextFor(reddit));
    assert.ok(page);
    assert.equal(page.tier, "reddit");
    assert.equal(page.title, "How do I read a file & stream it?");
    assert.equal(page.finalUrl, THREAD);
    assert.equal(page.byline, "u/curious_dev");
    assert.equal(page.published, "2024-03-05T12:00:00.000Z");
    // One request: the documented .json form, raw (unescaped) text, bounded server-side too.
    assert.equal(reddit.requests.length, 1);
    assert.equal(
      reddit.requests[0].path,
      "/r/Deno/comments/1abc2d/how_do_i_read_a_file_stream_it.json",
    );
    const params = new URLSearchParams(reddit.requests[0].search);
    assert.equal(params.get("raw_json"), "1");
    assert.equal(params.get("depth"), String(REDDIT_MAX_DEPTH));
    const md = page.markdown;
    assert.match(
      md,
      /^r\/Deno · posted by u\/curious_dev · 128 points · \d+ comments · 2024-03-05/,
    );
    assert.match(md, /I tried `Deno\.readFile` but <big> files & streams confuse me\./);
    assert.match(md, /The manual was not clear\./, "link targets leave the text");
    assert.ok(page.links.some((l) => l.url === "https://docs.deno.com/runtime/"));
    assert.ok(page.links.some((l) => l.url === "https://docs.deno.com/examples/streams/"));
    assert.match(
      md,
      /## Comments\n\n- \*\*u\/alice\*\* \(42 points\): Use `Deno\.open` and pipe `file\.readable`\.\n\n {2}See the streams guide\.\n {2}- \*\*u\/bob\*\* \(7 points\): Thanks & cheers <3\n/,
    );
    // Levels 1..6 are shown, deeper replies are announced, not rendered.
    for (let level = 3; level <= REDDIT_MAX_DEPTH; level++) {
      assert.match(md, new RegExp(`\\n${"  ".repeat(level - 1)}- \\*\\*u/nester${level}\\*\\*`));
    }
    assert.doesNotMatch(md, new RegExp(`nester${REDDIT_MAX_DEPTH + 1}`));
    assert.match(md, new RegExp(`replies below level ${REDDIT_MAX_DEPTH} not shown`));
    // "more" stubs are counted; a removed comment without replies disappears; a deleted one
    // with replies stays as the parent of its replies.
    assert.match(md, /\n {2}- … 5 more replies not loaded\n/);
    assert.match(md, /\n- … 12 more replies not loaded$/);
    assert.doesNotMatch(md, /\[removed\]/);
    assert.match(md, /\n- \*\*\[deleted\]\*\* \(3 points\): \[deleted\]\n {2}- \*\*u\/carol\*\*/);
  });
});

Deno.test("reddit tier: old.reddit.com and link posts; comment count is bounded", async () => {
  await withReddit(async (reddit) => {
    const url = "https://old.reddit.com/r/Deno/comments/2bigone/roll_call/";
    const page = await read(url, contextFor(reddit));
    assert.equal(page?.finalUrl, url, "the thread keeps the host it was asked on");
    assert.match(page!.markdown, /\n\nLink: https:\/\/deno\.com\/blog\/roll-call\n/);
    assert.equal(page!.links[0].url, "https://deno.com/blog/roll-call");
    const shown = page!.markdown.match(/^- \*\*u\/user\d+\*\*/gm) ?? [];
    assert.equal(shown.length, REDDIT_MAX_COMMENTS);
    assert.match(page!.markdown, /more comments not shown \(limit 200\)$/);
  });
});

Deno.test("reddit tier: 403 and 429 are named; a missing thread is not_found", async () => {
  await withReddit(async (reddit) => {
    const context = contextFor(reddit);
    await assert.rejects(
      read("https://www.reddit.com/r/Deno/comments/9zzzzz/gone/", context),
      (e) => e instanceof GleanerError && e.code === "not_found",
    );
    reddit.setStatus(403);
    await assert.rejects(
      read(THREAD, context),
      (e) => e instanceof GleanerError && e.code === "unauthorized",
    );
    reddit.setStatus(429);
    await assert.rejects(
      read(THREAD, context),
      (e) => e instanceof GleanerError && e.code === "rate_limited",
    );
  });
});

Deno.test("reddit tier: Reddit's robots.txt refuses everything, so the read is robots_disallowed", async () => {
  await withReddit(async (reddit) => {
    const { config, fetcher } = contextFor(reddit, true);
    const tier = await redditTier.read(new URL(THREAD), { url: THREAD }, { config, fetcher });
    assert.equal(tier, undefined, "the tier passes: the .json form is refused");
    assert.deepEqual(reddit.requests.map((r) => r.path), ["/robots.txt"]);
    // Through the cascade the thread itself meets the same refusal.
    const reader = createReader({ config, fetcher, tiers: [redditTier, httpTier] });
    await assert.rejects(
      reader.read({ url: `${reddit.origin}/r/Deno/comments/1abc2d/x/` }),
      (e) => e instanceof GleanerError && e.code === "robots_disallowed",
    );
    // Where robots.txt allows it, the same settings read the thread.
    reddit.setRobots("User-agent: *\nAllow: /\n");
    const allowed = contextFor(reddit, true);
    assert.equal((await read(THREAD, allowed))?.tier, "reddit");
  });
});

Deno.test("reddit tier: read.reddit_ignore_robots skips robots.txt for the tier's own request only", async () => {
  await withReddit(async (reddit) => {
    const config = parseConfig({
      network: { allow_private: [reddit.origin], respect_robots: true },
      read: { reddit_url: reddit.origin, render: "never", reddit_ignore_robots: true },
    });
    const fetcher = createFetcher(config.network);
    const reader = createReader({ config, fetcher, tiers: [redditTier, httpTier] });
    // Reddit's robots.txt disallows everything; the opted-in tier reads the thread anyway.
    const page = await reader.read({ url: THREAD });
    assert.equal(page.tier, "reddit");
    assert.ok(reddit.requests.some((r) => r.path.endsWith(".json")));
    assert.ok(!reddit.requests.some((r) => r.path === "/robots.txt"), "robots.txt never asked");
    // Any other page of the same host read by the generic tiers still meets robots.txt.
    await assert.rejects(
      reader.read({ url: `${reddit.origin}/r/Deno/` }),
      (e) => e instanceof GleanerError && e.code === "robots_disallowed",
    );
  });
});
