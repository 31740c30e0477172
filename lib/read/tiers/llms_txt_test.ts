import assert from "node:assert/strict";
import { DEFAULT_LLMS_TXT_DOMAINS, parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { openStore } from "../../store/mod.ts";
import {
  type FakeLlmsSite,
  LIVE_MARKER,
  startFakeLlmsSite,
} from "../../../testing/fixtures/fake_llms_txt.ts";
import { createReader } from "../cascade.ts";
import { httpTier } from "./http.ts";
import { createLlmsTxtTier, hostOnList, matchSection, splitSections } from "./llms_txt.ts";
import type { ReadContext } from "../types.ts";

const fullText = (origin: string) =>
  `# Widget Docs

> Widget turns gizmos into sprockets.

# Installation
Source: ${origin}/docs/installation

Install Widget with \`deno add widget\`. See the [API reference](https://widget.example.com/api).

## Requirements

Deno 2 or later.

# Configuration Options
Source: ${origin}/docs/config.md

Set \`WIDGET_MODE\` to choose a mode.

\`\`\`md
# Not a heading inside code
\`\`\`

# Deployment

Run \`widget deploy\` in production.
`;

const indexText = (origin: string) =>
  `# Widget

> Widget turns gizmos into sprockets.

## Docs

- [Installation](${origin}/docs/installation.md): how to install

## Troubleshooting

If the widget stalls, restart it.
`;

function contextFor(site: FakeLlmsSite, domains: string[] = ["127.0.0.1"]): ReadContext {
  const config = parseConfig({
    network: { allow_private: [site.origin] },
    read: { llms_txt_domains: domains, render: "never" },
  });
  return { config, fetcher: createFetcher(config.network) };
}

async function withSite(fn: (site: FakeLlmsSite) => Promise<void>): Promise<void> {
  const site = await startFakeLlmsSite();
  try {
    await fn(site);
  } finally {
    await site.close();
  }
}

Deno.test("splitSections ignores headings inside code; matchSection prefers the URL, then the slug", () => {
  const sections = splitSections(fullText("https://docs.example.com"));
  assert.deepEqual(sections.map((s) => [s.level, s.heading]), [
    [1, "Widget Docs"],
    [1, "Installation"],
    [2, "Requirements"],
    [1, "Configuration Options"],
    [1, "Deployment"],
  ]);
  const install = matchSection(sections, new URL("https://docs.example.com/docs/installation/"));
  assert.equal(install?.heading, "Installation");
  assert.match(install!.full, /Deno 2 or later/);
  assert.equal(
    matchSection(sections, new URL("https://www.docs.example.com/docs/config"))?.heading,
    "Configuration Options",
  );
  assert.equal(
    matchSection(sections, new URL("https://docs.example.com/x/deployment.html"))?.heading,
    "Deployment",
  );
  assert.equal(
    matchSection(sections, new URL("https://docs.example.com/docs/requirements"))?.heading,
    "Requirements",
  );
  assert.equal(matchSection(sections, new URL("https://docs.example.com/docs/missing")), undefined);
  assert.equal(
    matchSection(sections, new URL("https://other.example.com/docs/installation/x")),
    undefined,
  );
});

Deno.test("llms.txt tier: returns the matching section of llms-full.txt, fetched once", async () => {
  await withSite(async (site) => {
    site.setFiles({ "llms-full.txt": fullText(site.origin) });
    const store = openStore({ path: ":memory:" });
    try {
      const tier = createLlmsTxtTier({ domains: store.domains });
      const context = contextFor(site);
      const url = new URL(`${site.origin}/docs/installation`);
      assert.ok(tier.canHandle(url, { url: url.href }));
      const page = await tier.read(url, { url: url.href }, context);
      assert.ok(page);
      assert.equal(page.tier, "llms_txt");
      assert.equal(page.title, "Installation");
      assert.equal(page.finalUrl, url.href);
      assert.match(page.markdown, /^# Installation/);
      assert.match(page.markdown, /See the API reference\./);
      assert.match(page.markdown, /## Requirements\n\nDeno 2 or later\./);
      assert.doesNotMatch(page.markdown, /Configuration Options|widget\.example\.com/);
      assert.deepEqual(page.links, [{
        url: "https://widget.example.com/api",
        text: "API reference",
      }]);

      const config = await tier.read(new URL(`${site.origin}/docs/config`), { url: "x" }, context);
      assert.equal(config?.title, "Configuration Options");
      assert.match(config!.markdown, /# Not a heading inside code/);
      const deploy = await tier.read(
        new URL(`${site.origin}/guides/deployment`),
        { url: "y" },
        context,
      );
      assert.equal(deploy?.title, "Deployment");
      assert.equal(
        await tier.read(new URL(`${site.origin}/docs/unknown`), { url: "z" }, context),
        undefined,
      );

      // One fetch of the file for four reads; llms.txt itself never asked for.
      assert.deepEqual(site.requests.filter((p) => p.startsWith("/llms")), ["/llms-full.txt"]);
      const recorded = await store.domains.get(site.origin);
      assert.equal(recorded?.llms_txt?.exists, true);
      // The file's size is a capability of the origin.
      assert.equal(
        recorded?.capabilities?.llms_full_txt?.size_bytes,
        new TextEncoder().encode(fullText(site.origin)).length,
      );
    } finally {
      await store.close();
    }
  });
});

Deno.test("llms.txt tier: falls back to llms.txt; link lists are not page content", async () => {
  await withSite(async (site) => {
    site.setFiles({ "llms-full.txt": null, "llms.txt": indexText(site.origin) });
    const store = openStore({ path: ":memory:" });
    const tier = createLlmsTxtTier({ domains: store.domains });
    const context = contextFor(site);
    // Named only in the index's link list: not content, so the tier passes.
    assert.equal(
      await tier.read(new URL(`${site.origin}/docs/installation`), { url: "a" }, context),
      undefined,
    );
    const page = await tier.read(
      new URL(`${site.origin}/docs/troubleshooting`),
      { url: "b" },
      context,
    );
    assert.equal(page?.title, "Troubleshooting");
    assert.equal(page?.markdown, "## Troubleshooting\n\nIf the widget stalls, restart it.");
    assert.deepEqual(site.requests.filter((p) => p.startsWith("/llms")), [
      "/llms-full.txt",
      "/llms.txt",
    ]);
    // Absent llms-full.txt is known apart from never checked.
    const caps = (await store.domains.get(site.origin))?.capabilities;
    assert.deepEqual(caps?.llms_full_txt?.present, false);
    await store.close();
  });
});

Deno.test("llms.txt tier: only allowlisted domains; no match hands over to the HTTP tier; cache expires", async () => {
  await withSite(async (site) => {
    site.setFiles({ "llms-full.txt": fullText(site.origin) });
    let now = 1_000_000;
    const tier = createLlmsTxtTier({ ttlMs: 60_000, now: () => now });

    // Not on the allowlist: nothing fetched.
    const off = contextFor(site, ["docs.example.com"]);
    assert.equal(
      await tier.read(new URL(`${site.origin}/docs/installation`), { url: "a" }, off),
      undefined,
    );
    assert.equal(site.requests.length, 0);
    assert.equal(tier.canHandle(new URL(`${site.origin}/`), { url: site.origin }), false);

    const { config, fetcher } = contextFor(site);
    const reader = createReader({ config, fetcher, tiers: [tier, httpTier] });
    const fromLlms = await reader.read({ url: `${site.origin}/docs/installation` });
    assert.equal(fromLlms.tier, "llms_txt");
    const live = await reader.read({ url: `${site.origin}/docs/unknown` });
    assert.equal(live.tier, "http");
    assert.match(live.markdown, new RegExp(LIVE_MARKER.replace(/\./g, "\\.")));
    assert.equal(site.requests.filter((p) => p === "/llms-full.txt").length, 1);

    // After the TTL the file is fetched again (and a change is seen).
    site.setFiles({
      "llms-full.txt": "# Installation\nSource: " + site.origin + "/docs/installation\n\nNew text.",
    });
    await tier.read(new URL(`${site.origin}/docs/installation`), { url: "b" }, { config, fetcher });
    assert.equal(site.requests.filter((p) => p === "/llms-full.txt").length, 1);
    now += 60_001;
    const fresh = await tier.read(new URL(`${site.origin}/docs/installation`), { url: "c" }, {
      config,
      fetcher,
    });
    assert.match(fresh!.markdown, /New text\./);
    assert.equal(site.requests.filter((p) => p === "/llms-full.txt").length, 2);
  });
});

Deno.test("llms.txt tier: a site without llms.txt is remembered as such", async () => {
  await withSite(async (site) => {
    const store = openStore({ path: ":memory:" });
    try {
      const tier = createLlmsTxtTier({ domains: store.domains });
      const context = contextFor(site);
      assert.equal(
        await tier.read(new URL(`${site.origin}/docs/a`), { url: "a" }, context),
        undefined,
      );
      assert.equal(
        await tier.read(new URL(`${site.origin}/docs/b`), { url: "b" }, context),
        undefined,
      );
      assert.deepEqual(site.requests.filter((p) => p !== "/robots.txt"), [
        "/llms-full.txt",
        "/llms.txt",
      ]);
      assert.equal((await store.domains.get(site.origin))?.llms_txt?.exists, false);
    } finally {
      await store.close();
    }
  });
});

Deno.test("llms.txt allowlist: documentation sites by default; extra domains extend it, the list replaces it", async () => {
  const defaults = parseConfig({}).read;
  assert.deepEqual(defaults.llms_txt_domains, [...DEFAULT_LLMS_TXT_DOMAINS]);
  assert.deepEqual(defaults.llms_txt_extra_domains, []);
  for (const host of ["docs.anthropic.com", "docs.stripe.com", "www.docs.cursor.com"]) {
    assert.ok(hostOnList(host, defaults.llms_txt_domains), host);
  }
  assert.ok(!hostOnList("example.com", defaults.llms_txt_domains));

  await withSite(async (site) => {
    site.setFiles({ "llms-full.txt": fullText(site.origin) });
    const url = new URL(`${site.origin}/docs/installation`);
    const configured = (read: Record<string, unknown>): ReadContext => {
      const config = parseConfig({
        network: { allow_private: [site.origin] },
        read: { render: "never", ...read },
      });
      return { config, fetcher: createFetcher(config.network) };
    };
    // The default list alone does not name the site: the tier passes without fetching.
    assert.equal(await createLlmsTxtTier().read(url, { url: url.href }, configured({})), undefined);
    assert.equal(site.requests.length, 0);
    // Extra domains extend the default list.
    const extended = configured({ llms_txt_extra_domains: ["127.0.0.1"] });
    assert.ok(extended.config.read.llms_txt_domains.includes("docs.openai.com"));
    const page = await createLlmsTxtTier().read(url, { url: url.href }, extended);
    assert.equal(page?.tier, "llms_txt");
    assert.equal(page?.title, "Installation");
    // An empty list turns the tier off (extra domains still count).
    const off = configured({ llms_txt_domains: [] });
    assert.equal(await createLlmsTxtTier().read(url, { url: url.href }, off), undefined);
  });
});
