/**
 * The browser stays in its room: pages that start downloads (a blob link a
 * script clicks, a response sent as `Content-Disposition: attachment`) leave
 * no file anywhere, and a launched Chromium writes nothing under the `HOME`
 * and `TMPDIR` it was given beyond its throwaway profile, during the reads
 * and after close. Real Chromium, fixture pages on loopback.
 */
import assert from "node:assert/strict";
import puppeteer from "puppeteer-core";
import { parseConfig } from "../../config/config.ts";
import { createBrowserTier } from "./browser.ts";
import {
  browserSuffix as suffix,
  chromium,
  ignoreBrowser as ignore,
} from "../../../testing/fixtures/browser.ts";
import { serveLoopback } from "../../../testing/fixtures/serve.ts";

/** Names of the files the fixture pages try to download. */
const DOWNLOADS = ["blob-page.txt", "attached-page.bin"];

/** The fixture site: a page whose script downloads a blob and frames an attachment, and the attachment. */
function downloadSite() {
  const hits: string[] = [];
  const server = serveLoopback((request) => {
    const path = new URL(request.url).pathname;
    hits.push(path);
    switch (path) {
      case "/blob":
        return new Response(
          `<!DOCTYPE html><html><head><title>Blob</title></head><body><p id="text">Blob page</p><script>
            const a = document.createElement("a");
            a.href = URL.createObjectURL(new Blob(["blob body"], { type: "text/plain" }));
            a.download = "${DOWNLOADS[0]}";
            document.body.appendChild(a);
            a.click();
            const frame = document.createElement("iframe");
            frame.src = "/attach";
            document.body.appendChild(frame);
          </script></body></html>`,
          { headers: { "content-type": "text/html; charset=utf-8" } },
        );
      case "/attach":
        // https://developer.mozilla.org/en-US/docs/Web/HTTP/Reference/Headers/Content-Disposition
        return new Response("attached body", {
          headers: {
            "content-type": "application/octet-stream",
            "content-disposition": `attachment; filename="${DOWNLOADS[1]}"`,
          },
        });
      default:
        return new Response("not here", { status: 404 });
    }
  });
  return { ...server, hits };
}

/** Every path under `dir` (relative, directories end in `/`); empty when `dir` is missing. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) {
        out.push(`${entry.name}/`);
        out.push(...(await tree(`${dir}/${entry.name}`)).map((p) => `${entry.name}/${p}`));
      } else out.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return out.sort();
}

/** Paths under `dir` that are (or are becoming) one of the fixture downloads. */
async function downloadsUnder(dir: string): Promise<string[]> {
  return (await tree(dir)).filter((p) =>
    DOWNLOADS.some((name) => p.endsWith(name)) || p.endsWith(".crdownload")
  );
}

/**
 * Reads both download pages, then watches `dirs` for a while (a download
 * lands asynchronously after the read): fails as soon as one appears.
 */
async function readDownloadPages(
  tier: ReturnType<typeof createBrowserTier>,
  origin: string,
  dirs: string[],
) {
  const page = await tier.read(`${origin}/blob`, { waitForSelector: "iframe" });
  assert.match(page.html, /Blob page/);
  // A navigation that turns into a download is not a page.
  await assert.rejects(tier.read(`${origin}/attach`));
  for (let i = 0; i < 15; i++) {
    for (const dir of dirs) {
      assert.deepEqual(await downloadsUnder(dir), [], `no download in ${dir}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

Deno.test({
  name: `a launched browser refuses downloads and writes only in its profile${suffix}`,
  ignore,
  async fn() {
    const site = downloadSite();
    const home = await Deno.makeTempDir({ prefix: "gleaner-home-" });
    const tmp = await Deno.makeTempDir({ prefix: "gleaner-tmp-" });
    const port = Number(new URL(site.origin).port);
    const config = parseConfig({
      network: { allow_private: [site.origin], allowed_ports: [port] },
      read: { browser_timeout_ms: 10_000 },
    });
    const tier = createBrowserTier(config, {
      env: { HOME: home, TMPDIR: tmp, PATH: "/usr/bin:/bin" },
    });
    try {
      await readDownloadPages(tier, site.origin, [home, tmp]);
      assert.ok(site.hits.includes("/attach"), "the attachment was asked for");
      assert.deepEqual(await tree(home), [], "nothing in HOME while the browser runs");
      const during = await tree(tmp);
      assert.ok(
        during.every((p) =>
          /^gleaner-chromium\/((profile-|org\.chromium\.Chromium\.)[^/]+\/.*)?$/.test(p)
        ),
        `only the profile and the singleton socket in TMPDIR: ${during.join(", ")}`,
      );
    } finally {
      await tier.close();
      await site.close();
    }
    try {
      assert.deepEqual(await tree(home), [], "nothing in HOME after close");
      assert.deepEqual(await tree(tmp), ["gleaner-chromium/"], "only the empty profile root");
    } finally {
      await Deno.remove(home, { recursive: true });
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name: `an external browser (read.browser_cdp_url) gets no download from the tier${suffix}`,
  ignore,
  async fn() {
    const site = downloadSite();
    // The operator's browser, with its own HOME: downloads would land in HOME/Downloads.
    const home = await Deno.makeTempDir({ prefix: "gleaner-external-home-" });
    const external = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      userDataDir: `${home}/profile`,
      env: { HOME: home, PATH: "/usr/bin:/bin" },
      args: ["--no-sandbox", "--disable-gpu", "--remote-debugging-port=0"],
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const port = Number(new URL(site.origin).port);
    const config = parseConfig({
      network: { allow_private: [site.origin], allowed_ports: [port] },
      read: { browser_cdp_url: external.wsEndpoint(), browser_timeout_ms: 10_000 },
    });
    const tier = createBrowserTier(config);
    try {
      await readDownloadPages(tier, site.origin, [home]);
      assert.ok(site.hits.includes("/attach"), "the attachment was asked for");
    } finally {
      await tier.close();
      await external.close();
      await site.close();
      await Deno.remove(home, { recursive: true });
    }
  },
});
