import assert from "node:assert/strict";
import { createGleaner, type Gleaner } from "../gleaner.ts";
import type { GleanerError } from "../errors.ts";
import { ignoreBrowser } from "../../testing/fixtures/browser.ts";
import { startFixtureWeb } from "../../testing/fixtures/web.ts";

/** A one-page PDF whose text is `text` (xref offsets computed). */
function buildPdf(text: string): Uint8Array<ArrayBuffer> {
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${
      `BT /F1 18 Tf 72 700 Td (${text}) Tj ET`.length
    } >>\nstream\nBT /F1 18 Tf 72 700 Td (${text}) Tj ET\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let body = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(body);
}

async function withReader(
  fn: (gleaner: Gleaner, web: Awaited<ReturnType<typeof startFixtureWeb>>) => Promise<void>,
  read: Record<string, unknown> = { render: "never" },
) {
  const web = await startFixtureWeb();
  const gleaner = await createGleaner({
    network: { allow_private: [web.origin] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
    read,
  });
  try {
    await fn(gleaner, web);
  } finally {
    await gleaner.close();
    await web.close();
  }
}

Deno.test("cascade: structured bodies are read without a browser, mislabelled HTML as HTML", async () => {
  await withReader(async (gleaner, web) => {
    const json = await gleaner.reader.read({ url: web.url("/json") });
    assert.equal(json.tier, "structured");
    assert.ok(json.markdown.startsWith('```json\n{\n  "name": "Gleaner fixture"'), json.markdown);
    const csv = await gleaner.reader.read({ url: web.url("/csv") });
    assert.equal(csv.tier, "structured");
    assert.ok(csv.markdown.startsWith("```csv\n"));
    const html = await gleaner.reader.read({ url: web.url("/text-html-mislabelled") });
    assert.equal(html.tier, "http");
    assert.ok(!html.markdown.includes("<p>"), "HTML was extracted, not passed through");
    await assert.rejects(
      gleaner.reader.read({ url: web.url("/binary") }),
      (e: GleanerError) => e.code === "unsupported_content",
    );
  });
});

Deno.test("cascade: a PDF is read as text with page markers", async () => {
  const pdf = buildPdf("Tides follow the Moon in the Gleaner test document");
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(pdf, { headers: { "content-type": "application/pdf" } }),
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const gleaner = await createGleaner({
    network: { allow_private: [origin] },
    store: { path: ":memory:" },
    embed: { provider: "none" },
  });
  try {
    const page = await gleaner.reader.read({ url: `${origin}/paper.pdf` });
    assert.equal(page.tier, "pdf");
    assert.match(page.markdown, /<!-- page 1 -->/);
    assert.match(page.markdown, /Tides follow the Moon in the Gleaner test document/);
  } finally {
    await gleaner.close();
    await server.shutdown();
  }
});

Deno.test("cascade: a second read comes from the cache without a fetch; no_cache and max_age bypass it", async () => {
  await withReader(async (gleaner, web) => {
    const url = web.url("/pages/wikipedia");
    const first = await gleaner.reader.read({ url });
    assert.equal(first.tier, "http");
    const fetches = () => web.requests.filter((r) => r.startsWith("/pages/wikipedia")).length;
    assert.equal(fetches(), 1);
    const second = await gleaner.reader.read({ url });
    assert.equal(second.tier, "cache");
    assert.equal(second.markdown, first.markdown);
    assert.equal(fetches(), 1, "the cache answered");
    assert.equal((await gleaner.reader.read({ url, noCache: true })).tier, "http");
    assert.equal((await gleaner.reader.read({ url, maxAgeS: 0 })).tier, "http");
    assert.equal(fetches(), 3);
  });
});

Deno.test({
  name: "cascade: a JavaScript-only page is thin over HTTP and read by the browser",
  ignore: ignoreBrowser,
  fn: async () => {
    await withReader(async (gleaner, web) => {
      const page = await gleaner.reader.read({ url: web.url("/js-only") });
      assert.equal(page.tier, "browser");
      assert.match(page.markdown, /exists only after JavaScript ran/);
      const never = await gleaner.reader.read({
        url: web.url("/js-only"),
        render: "never",
        noCache: true,
      });
      assert.equal(never.tier, "http");
      assert.ok(never.thin);
      assert.doesNotMatch(never.markdown, /exists only after JavaScript ran/);
    }, { render: "auto" });
  },
});
