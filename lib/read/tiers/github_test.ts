import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { GleanerError } from "../../errors.ts";
import { createFetcher } from "../../net/fetch.ts";
import {
  FAKE_FILES,
  type FakeGithub,
  startFakeGithub,
} from "../../../testing/fixtures/fake_github.ts";
import { createReader } from "../cascade.ts";
import { githubTarget, githubTier } from "./github.ts";
import type { Page, ReadContext } from "../types.ts";

const TOKEN = "ghp_fakeTokenValue0123456789";

function contextFor(github: FakeGithub, token?: string): ReadContext {
  const config = parseConfig({
    network: { allow_private: [github.origin] },
    read: { github_api_url: github.apiUrl, github_raw_url: github.rawUrl, github_token: token },
  });
  return { config, fetcher: createFetcher(config.network) };
}

async function withGithub(fn: (github: FakeGithub) => Promise<void>): Promise<void> {
  const github = await startFakeGithub();
  try {
    await fn(github);
  } finally {
    await github.close();
  }
}

async function read(url: string, context: ReadContext): Promise<Page | undefined> {
  const parsed = new URL(url);
  assert.ok(githubTier.canHandle(parsed, { url }), `canHandle ${url}`);
  return await githubTier.read(parsed, { url }, context);
}

Deno.test("githubTarget maps github.com, raw and API URLs and leaves other pages alone", () => {
  assert.deepEqual(githubTarget(new URL("https://github.com/acme/widget")), {
    kind: "readme",
    owner: "acme",
    repo: "widget",
  });
  assert.deepEqual(githubTarget(new URL("https://github.com/acme/widget.git")), {
    kind: "readme",
    owner: "acme",
    repo: "widget",
  });
  assert.deepEqual(githubTarget(new URL("https://github.com/acme/widget/tree/main/docs")), {
    kind: "readme",
    owner: "acme",
    repo: "widget",
    ref: "main",
    dir: "docs",
  });
  assert.deepEqual(githubTarget(new URL("https://github.com/acme/widget/blob/v1.2/src/a b.ts")), {
    kind: "raw",
    owner: "acme",
    repo: "widget",
    ref: "v1.2",
    path: "src/a%20b.ts",
  });
  assert.deepEqual(
    githubTarget(new URL("https://raw.githubusercontent.com/acme/widget/main/LICENSE")),
    { kind: "raw", owner: "acme", repo: "widget", ref: "main", path: "LICENSE" },
  );
  assert.deepEqual(githubTarget(new URL("https://api.github.com/repos/acme/widget?x=1")), {
    kind: "api",
    path: "/repos/acme/widget?x=1",
  });
  for (
    const other of [
      "https://github.com/acme/widget/issues/3",
      "https://github.com/acme",
      "https://github.com/features/copilot",
      "https://github.com/acme/widget/blob/main",
      "https://example.com/acme/widget",
    ]
  ) {
    assert.equal(githubTarget(new URL(other)), undefined, other);
    assert.equal(githubTier.canHandle(new URL(other), { url: other }), false, other);
  }
});

Deno.test("github tier: a repository URL reads the README through the configured API base", async () => {
  await withGithub(async (github) => {
    const page = await read("https://github.com/acme/widget", contextFor(github));
    assert.ok(page);
    assert.equal(page.tier, "github");
    assert.equal(page.title, "acme/widget");
    assert.equal(page.finalUrl, "https://github.com/acme/widget");
    assert.equal(page.mediaType, "text/markdown");
    assert.equal(page.canonical, "https://github.com/acme/widget/blob/main/README.md");
    // Markdown passes through (decoded from base64, UTF-8 intact) ...
    assert.match(page.markdown, /^# Widget/);
    assert.match(
      page.markdown,
      /Widget turns \*\*gizmos\*\* into sprockets\. Read the guide or the\nAPI reference\./,
    );
    assert.match(page.markdown, /naïve café ✓/);
    // ... without link targets or images, except inside code.
    assert.doesNotMatch(page.markdown, /shields\.io|arch\.png|\]\(https?:/);
    assert.match(page.markdown, /\/\/ \[not a link\]\(kept\.md\) stays inside code/);
    const urls = page.links.map((l) => l.url);
    assert.ok(urls.includes("https://github.com/acme/widget/blob/main/docs/guide.md"), urls.join());
    assert.ok(urls.includes("https://widget.example.com/api"));
    assert.equal(page.links.find((l) => l.url.endsWith("/docs/guide.md"))?.text, "guide");
    // One API request, to the fake, with GitHub's media type and no credentials.
    assert.equal(github.requests.length, 1);
    assert.equal(github.requests[0].path, "/api/repos/acme/widget/readme");
    assert.equal(github.requests[0].headers.accept, "application/vnd.github+json");
    assert.equal(github.requests[0].headers.authorization, undefined);
  });
});

Deno.test("github tier: tree URLs read the folder's README; missing repositories pass", async () => {
  await withGithub(async (github) => {
    const context = contextFor(github);
    const docs = await read("https://github.com/acme/widget/tree/main/docs", context);
    assert.equal(docs?.title, "acme/widget/docs");
    assert.match(docs!.markdown, /^# Docs folder/);
    assert.equal(github.requests.at(-1)?.path, "/api/repos/acme/widget/readme/docs");
    assert.equal(github.requests.at(-1)?.search, "?ref=main");
    assert.equal(await read("https://github.com/acme/nothing-here", context), undefined);
  });
});

Deno.test("github tier: blob URLs read raw content; code is fenced, Markdown passes", async () => {
  await withGithub(async (github) => {
    const context = contextFor(github);
    const code = await read("https://github.com/acme/widget/blob/main/src/main.ts", context);
    assert.equal(github.requests.at(-1)?.path, "/raw/acme/widget/main/src/main.ts");
    assert.equal(code?.tier, "github");
    assert.equal(code?.title, "acme/widget: src/main.ts");
    assert.equal(code?.finalUrl, "https://github.com/acme/widget/blob/main/src/main.ts");
    assert.equal(code?.markdown, "```typescript\n" + FAKE_FILES["src/main.ts"].trimEnd() + "\n```");

    const guide = await read("https://github.com/acme/widget/blob/main/docs/guide.md", context);
    assert.equal(guide?.mediaType, "text/markdown");
    assert.equal(guide?.markdown, "# Guide\n\nInstall with `deno add widget`, then see usage.");
    assert.deepEqual(guide?.links, [{
      url: "https://github.com/acme/widget/blob/main/docs/usage.md",
      text: "usage",
    }]);

    const license = await read(
      "https://raw.githubusercontent.com/acme/widget/main/LICENSE",
      context,
    );
    assert.equal(license?.markdown, FAKE_FILES.LICENSE.trim());
    const json = await read(
      "https://raw.githubusercontent.com/acme/widget/main/config/settings.json",
      context,
    );
    assert.match(json!.markdown, /^```json\n\{"name":"widget"/);

    await assert.rejects(
      read("https://github.com/acme/widget/blob/main/missing.ts", context),
      (e) => e instanceof GleanerError && e.code === "not_found",
    );
  });
});

Deno.test("github tier: API URLs give pretty JSON, base64 content decoded", async () => {
  await withGithub(async (github) => {
    const context = contextFor(github);
    const repo = await read("https://api.github.com/repos/acme/widget", context);
    assert.equal(github.requests.at(-1)?.path, "/api/repos/acme/widget");
    assert.equal(repo?.mediaType, "application/json");
    assert.match(repo!.markdown, /^```json\n\{\n {2}"full_name": "acme\/widget",/);

    // A file object is shown as the file.
    const file = await read(
      "https://api.github.com/repos/acme/widget/contents/src/main.ts?ref=main",
      context,
    );
    assert.equal(github.requests.at(-1)?.search, "?ref=main");
    assert.equal(file?.title, "src/main.ts");
    assert.equal(file?.markdown, "```typescript\n" + FAKE_FILES["src/main.ts"].trimEnd() + "\n```");

    // Any other object: its base64 content field is decoded in place.
    const blob = await read("https://api.github.com/repos/acme/widget/git/blobs/abc123", context);
    // The README holds a code fence, so the JSON gets a longer one.
    const fenced = blob!.markdown.match(/^(`{4,})json\n([\s\S]*)\n\1$/);
    assert.ok(fenced, blob!.markdown.slice(0, 80));
    const data = JSON.parse(fenced[2]);
    assert.equal(data.encoding, "utf-8");
    assert.equal(data.content, FAKE_FILES["README.md"]);
  });
});

Deno.test("github tier: the token is sent as a Bearer header; rate limits are named, secrets never echoed", async () => {
  await withGithub(async (github) => {
    const context = contextFor(github, TOKEN);
    await read("https://github.com/acme/widget", context);
    await read("https://github.com/acme/widget/blob/main/LICENSE", context);
    assert.deepEqual(github.requests.map((r) => r.headers.authorization), [
      `Bearer ${TOKEN}`,
      `Bearer ${TOKEN}`,
    ]);
    github.setRateLimited(true);
    await assert.rejects(read("https://github.com/acme/widget", context), (e) => {
      assert.ok(e instanceof GleanerError);
      assert.equal(e.code, "rate_limited");
      assert.doesNotMatch(e.message, new RegExp(`${TOKEN}|secret-upstream-detail`));
      return true;
    });
  });
});

Deno.test("github tier through the cascade: the page says it came from the github tier", async () => {
  await withGithub(async (github) => {
    const { config, fetcher } = contextFor(github);
    const reader = createReader({ config, fetcher, tiers: [githubTier] });
    const page = await reader.read({
      url: "https://github.com/acme/widget/blob/main/docs/guide.md",
    });
    assert.equal(page.tier, "github");
    assert.equal(page.url, "https://github.com/acme/widget/blob/main/docs/guide.md");
  });
});
