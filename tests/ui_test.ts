/**
 * The `/ui` page in headless Chromium: research and scrape show evidence with
 * sources, offsets and token counts; the API behind it keeps its bearer token.
 * A screenshot is kept in `dist/test-artifacts/`.
 */
import assert from "node:assert/strict";
import puppeteer, { type BrowserContext } from "puppeteer-core";
import { createGleaner } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import { CHROMIUM_ARGS } from "../lib/read/browser/launch.ts";
import { browserSuffix, chromium, ignoreBrowser } from "../testing/fixtures/browser.ts";
import { freePort } from "../testing/fixtures/serve.ts";
import { DENO_RUN_FLAGS, startTestWorld } from "../testing/fixtures/world.ts";

const KEY = "ui-test-key-0123456789abcdef0123456789";
const ARTIFACTS = new URL("../dist/test-artifacts/", import.meta.url);

/** Headless Chromium with the product's flags and a fresh profile folder (the caller removes it). */
async function launchChromium(executablePath: string) {
  const profile = await Deno.makeTempDir({ prefix: "gleaner-ui-test-" });
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    pipe: true,
    userDataDir: profile,
    args: [...CHROMIUM_ARGS],
  });
  return { browser, profile };
}

/** Research and scrape in `browser`, with the same auth as the API. */
async function researchAndScrape(browser: BrowserContext): Promise<void> {
  const world = await startTestWorld();
  const gleaner = await createGleaner({
    ...world.config,
    server: { port: 0, api_key: KEY },
    memory: { path: ":memory:" },
  });
  const server = serveHttp(gleaner);
  try {
    // The page is public; the API it calls is not.
    const shell = await fetch(`${server.url}/ui`);
    assert.equal(shell.status, 200);
    assert.match(shell.headers.get("content-security-policy") ?? "", /script-src 'self'/);
    await shell.body?.cancel();
    const noKey = await fetch(`${server.url}/v1/research`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "x" }),
    });
    assert.equal(noKey.status, 401);
    await noKey.body?.cancel();

    const page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 1400 });
    await page.goto(`${server.url}/ui`, { waitUntil: "load" });
    await page.type("#api-key", KEY);
    await page.$eval("#api-key", (input) => input.dispatchEvent(new Event("change")));

    // Research: evidence with sources, offsets and token counts.
    await page.type("#research-form input[name=query]", "how does the fetch api handle streams");
    await page.click("#research-form button");
    await page.waitForSelector("#evidence-summary", { timeout: 60_000 });
    const research = await page.evaluate(() => ({
      summary: document.querySelector("#evidence-summary")!.textContent!,
      cards: document.querySelectorAll("#output .evidence").length,
      offsets: [...document.querySelectorAll("#output .evidence .offsets")].map((e) =>
        e.textContent!
      ),
      links: [...document.querySelectorAll("#output .evidence a")].map((a) =>
        (a as HTMLAnchorElement).href
      ),
      sources: [...document.querySelectorAll("#output .summary a")].length,
      injected: document.querySelectorAll("#output img, #output script, #output iframe")
        .length,
    }));
    assert.match(research.summary, /\d+ passages · \d+ tokens of evidence from \d+ tokens/);
    assert.ok(research.cards > 0, "evidence cards shown");
    assert.ok(research.offsets.every((o) => /^chars \d+–\d+$/.test(o)), research.offsets[0]);
    assert.ok(research.links.every((href) => href.startsWith(world.web.origin)));
    assert.ok(research.sources > 0, "sources listed");
    assert.equal(research.injected, 0, "page text never becomes markup");
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: new URL("ui-research.png", ARTIFACTS).pathname });

    // Scrape one page with a question.
    await page.click("#tabs [data-tab=scrape]");
    await page.type("#scrape-form input[name=url]", world.web.url("/pages/002"));
    await page.type(
      "#scrape-form input[name=query]",
      "how can I tell whether a request body was already consumed",
    );
    await page.click("#scrape-form button");
    await page.waitForSelector("#output .evidence", { timeout: 60_000 });
    const text = await page.$eval("#output", (e) => e.textContent ?? "");
    assert.match(text, /bodyUsed/);
    assert.match(text, /tokens in the page/);

    // Memories: save, list, edit and delete through the page.
    await page.waitForSelector("#tabs [data-tab=memories]:not([hidden])");
    await page.click("#tabs [data-tab=memories]");
    await page.waitForSelector("#output .summary");
    await page.type(
      "#memory-save-form textarea",
      "The staging database is <b>PostgreSQL 15</b>.",
    );
    await page.click("#memory-save-form button");
    await page.waitForSelector("#output .memory");
    const saved = await page.$eval("#output .memory .text", (e) => e.textContent ?? "");
    assert.equal(saved, "The staging database is <b>PostgreSQL 15</b>.");
    assert.equal(await page.$$eval("#output .memory b", (b) => b.length), 0, "stays text");
    await page.click("#output .memory .edit");
    await page.waitForSelector("#output .memory textarea");
    await page.$eval("#output .memory textarea", (area) => {
      (area as HTMLTextAreaElement).value = "The staging database is PostgreSQL 16.";
    });
    await page.click("#output .memory .save");
    await page.waitForFunction(() =>
      document.querySelector("#output .memory .text")?.textContent?.includes("16")
    );
    await page.click("#output .memory .delete");
    // Deleting asks first, and says the older version (the edit's) goes too.
    await page.waitForSelector("#output .memory .confirm-delete");
    assert.match(
      await page.$eval("#output .memory .confirm-text", (e) => e.textContent ?? ""),
      /Its 1 older version \(history\) will be deleted too/,
    );
    await page.click("#output .memory .confirm-delete");
    await page.waitForFunction(() => document.querySelectorAll("#output .memory").length === 0);
    const listed = await gleaner.memories().then((m) => m.list({}));
    assert.equal(listed.total_count, 0, "deleted in the store");

    // A wrong key is refused by the API and the page says so.
    await page.$eval("#api-key", (input) => {
      (input as HTMLInputElement).value = "wrong";
      input.dispatchEvent(new Event("change"));
    });
    await page.click("#tabs [data-tab=scrape]");
    await page.click("#scrape-form button");
    await page.waitForFunction(
      () => document.querySelector("#status")!.textContent!.startsWith("unauthorized"),
      { timeout: 30_000 },
    );
    await page.screenshot({ path: new URL("ui-scrape.png", ARTIFACTS).pathname });
  } finally {
    await server.shutdown();
    await gleaner.close();
    await world.close();
  }
}

Deno.test("/ui: a favicon is served (no 404 on each load), public like the page", async () => {
  const gleaner = await createGleaner({
    store: { path: ":memory:" },
    embed: { provider: "none" },
    server: { port: 0, api_key: KEY },
    memory: { path: ":memory:" },
  });
  const server = serveHttp(gleaner);
  try {
    const html = await (await fetch(`${server.url}/ui`)).text();
    assert.match(html, /<link rel="icon" href="\/ui\/favicon\.svg"/);
    for (const path of ["/ui/favicon.svg", "/favicon.ico"]) {
      const res = await fetch(`${server.url}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get("content-type"), "image/svg+xml", path);
      assert.match(await res.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/, path);
    }
  } finally {
    await server.shutdown();
    await gleaner.close();
  }
});

/** The memories tab in `browser`: what a save did, profile memories, confirmed deletes. */
async function memoriesTab(browser: BrowserContext): Promise<void> {
  // The project's static model: duplicates and near-duplicates are detected.
  const gleaner = await createGleaner({
    store: { path: ":memory:" },
    embed: { provider: "static" },
    server: { port: 0 },
    memory: { path: ":memory:" },
  });
  const server = serveHttp(gleaner);
  try {
    const page = await browser.newPage();
    const missing: string[] = [];
    page.on("response", (r) => {
      if (r.status() === 404) missing.push(r.url());
    });
    await page.goto(`${server.url}/ui`, { waitUntil: "networkidle0" });
    await page.waitForSelector("#tabs [data-tab=memories]:not([hidden])");
    await page.click("#tabs [data-tab=memories]");
    await page.waitForSelector("#output .summary");
    const save = async (content: string, kind?: string) => {
      await page.$eval("#output", (e) => e.replaceChildren());
      await page.type("#memory-save-form textarea", content);
      if (kind) await page.select("#memory-save-form select[name=kind]", kind);
      await page.click("#memory-save-form button");
      await page.waitForSelector("#save-outcome");
      return await page.$eval("#save-outcome", (e) => ({
        headline: e.querySelector(".headline")?.textContent ?? "",
        notices: [...e.querySelectorAll(".notice")].map((n) => n.className),
        warn: e.classList.contains("warn"),
      }));
    };

    const first = await save("The deploy key of the staging cluster rotates every Monday.");
    assert.match(first.headline, /^Saved [a-z0-9]{8}\.$/);
    assert.equal(first.warn, false);
    assert.match(
      await page.$eval("#duplicate-rule", (e) => e.textContent ?? ""),
      /same text, after trimming white space, is a duplicate .*case and punctuation are content/,
    );
    const again = await save("  The deploy key of the staging cluster rotates every Monday.");
    assert.match(
      again.headline,
      /^Not saved: it duplicates [a-z0-9]{8} \(the same text after trimming white space\)\.$/,
    );
    assert.ok(again.notices.includes("notice duplicate"), again.notices.join());
    assert.equal(again.warn, true);
    const listed = await gleaner.memories().then((m) => m.list({}));
    assert.equal(listed.total_count, 1, "the duplicate was not stored");
    // Case and punctuation are content: the variant is saved, and flagged as similar.
    const variant = await save("the deploy key of the staging cluster rotates every monday");
    assert.match(variant.headline, /^Saved [a-z0-9]{8}, but it is similar to another memory\.$/);
    assert.ok(variant.notices.includes("notice similar_to"), variant.notices.join());
    assert.equal(variant.warn, true);
    assert.equal((await gleaner.memories().then((m) => m.list({}))).total_count, 2);

    const profileSave = await save("The user prefers answers in metric units.", "profile");
    assert.match(profileSave.headline, /^Saved [a-z0-9]{8}/);
    const kinds = (await gleaner.memories().then((m) => m.list({}))).memories.map((m) => m.kind);
    assert.deepEqual(kinds.sort(), ["episodic", "episodic", "profile"]);

    // Delete asks first; Cancel keeps the memory, confirming deletes it.
    const count = () => page.$$eval("#output .memory", (m) => m.length);
    assert.equal(await count(), 3);
    await page.click("#output .memory .delete");
    await page.waitForSelector("#output .memory .confirm-delete");
    assert.match(
      await page.$eval("#output .memory .confirm-text", (e) => e.textContent ?? ""),
      /It has no older versions\. This cannot be undone\./,
    );
    await page.click("#output .memory .cancel-delete");
    assert.equal(await page.$$eval("#output .memory .confirm-delete", (b) => b.length), 0);
    assert.equal((await gleaner.memories().then((m) => m.list({}))).total_count, 3);
    await page.click("#output .memory .delete");
    await page.waitForSelector("#output .memory .confirm-delete");
    await page.click("#output .memory .confirm-delete");
    await page.waitForFunction(() => document.querySelectorAll("#output .memory").length === 2);
    assert.match(await page.$eval("#save-outcome", (e) => e.textContent ?? ""), /^Deleted /);
    assert.equal((await gleaner.memories().then((m) => m.list({}))).total_count, 2);
    assert.deepEqual(missing, [], "nothing the page loads is missing (favicon included)");
  } finally {
    await server.shutdown();
    await gleaner.close();
  }
}

Deno.test({
  name: `/ui in a real browser${browserSuffix}`,
  ignore: ignoreBrowser,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    assert.ok(chromium, "Chromium is required (GLEANER_REQUIRE_BROWSER=1)");
    // One Chromium for both cases (they were two tests, each launching its own); each case
    // gets a browser context of its own, and its own Gleaner and server.
    const { browser, profile } = await launchChromium(chromium);
    const inContext = (run: (context: BrowserContext) => Promise<void>) => async () => {
      const context = await browser.createBrowserContext();
      try {
        await run(context);
      } finally {
        await context.close();
      }
    };
    try {
      await t.step(
        "research and scrape, same auth as the API",
        inContext(researchAndScrape),
      );
      await t.step(
        "memories show what a save did, add profile memories, confirm deletes",
        inContext(memoriesTab),
      );
    } finally {
      await browser.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test("/ui: the server's root redirects to the page, and `gleaner serve` logs its address", async () => {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...DENO_RUN_FLAGS, new URL("../cli.ts", import.meta.url).pathname, "serve"],
    env: {
      GLEANER_PORT: String(port),
      GLEANER_API_KEY: KEY,
      GLEANER_STORE_PATH: ":memory:",
      GLEANER_MEMORY_ENABLED: "false",
      GLEANER_EMBED_PROVIDER: "none",
      XDG_CONFIG_HOME: "/nonexistent/gleaner-test-config",
      NO_COLOR: "1",
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  try {
    const origin = `http://127.0.0.1:${port}`;
    while (!stderr.includes("listening")) {
      const chunk = await reader.read();
      if (chunk.done) assert.fail(`the server exited:\n${stderr}`);
      stderr += chunk.value;
    }
    assert.ok(stderr.includes(`${origin}/ui`), `the start log names the page:\n${stderr}`);
    // Without a key, like the page itself: the root only points at it.
    const root = await fetch(`${origin}/`, { redirect: "manual" });
    await root.body?.cancel();
    assert.equal(root.status, 302);
    assert.equal(new URL(root.headers.get("location")!, origin).href, `${origin}/ui`);
    const page = await fetch(`${origin}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    await page.body?.cancel();
  } finally {
    child.kill("SIGTERM");
    await reader.cancel().catch(() => {});
    await child.status;
  }
});
