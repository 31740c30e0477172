import assert from "node:assert/strict";
import { GleanerError } from "../errors.ts";
import { extractHtml } from "./mod.ts";
import { createExtractPool } from "./pool.ts";
import { MESSAGE_PART_CHARS } from "./parts.ts";
import { countTokens } from "../text/tokens.ts";
import { binaryBytes, nestedDivs } from "../../testing/fixtures/hostile.ts";
import { PAGES_PATH } from "../../testing/fixtures/web.ts";
import { evalInChild } from "../../testing/fixtures/eval.ts";

const URL_ = "https://example.com/page";

Deno.test("extract pool: same page as extractHtml; deadline and abort stop the thread; failures keep their code", async () => {
  // The first thread of a fresh checkout waits for Deno to type-check worker.ts (seconds on a
  // busy machine): one job on a patient pool first, so the deadline below times extraction only.
  // The real and big pages are read there too: on a loaded machine they may take longer than
  // the short deadline below, which is only for the page that never finishes.
  const patient = createExtractPool({ workers: 1, timeoutMs: 120_000 });
  const warm = "<title>Warm</title><article><p>The pool is warm now.</p></article>";
  try {
    assert.equal((await patient.extract(warm, URL_)).markdown, extractHtml(warm, URL_).markdown);
    const html = await Deno.readTextFile(`${PAGES_PATH}/001/source.html`);
    const page = await patient.extract(html, URL_);
    const { markdownTokens, ...extracted } = page;
    assert.deepEqual(extracted, extractHtml(html, URL_));
    assert.equal(markdownTokens, countTokens(page.markdown));
    // A page bigger than one posted part arrives whole, and its Markdown (sent back in parts)
    // too, one page after the other.
    // (Just over three parts: extraction time grows faster than the page.)
    for (const words of ["Tides rise and fall. ", "The Moon pulls the sea. "]) {
      const repeat = Math.ceil((3.2 * MESSAGE_PART_CHARS) / words.length);
      const big = `<title>Big</title><article><p>${words.repeat(repeat)}</p></article>`;
      const markdown = (await patient.extract(big, URL_)).markdown;
      assert.ok(markdown.length > 3 * MESSAGE_PART_CHARS);
      assert.equal(markdown, extractHtml(big, URL_).markdown);
    }
  } finally {
    await patient.close();
  }
  // Caps off, so a deeply nested page really takes minutes (Readability is cubic in depth).
  const pool = createExtractPool({
    workers: 1,
    timeoutMs: 1_500,
    options: { limits: { maxDepth: 1_000_000, maxElements: 10_000_000 } },
  });
  try {
    const slow = nestedDivs(4_000);
    await assert.rejects(
      pool.extract(slow, URL_),
      (e) => e instanceof GleanerError && e.code === "timeout" && /took longer/.test(e.message),
    );
    // The thread was replaced: the pool still works.
    assert.equal((await pool.extract(warm, URL_)).title, "Warm");

    const controller = new AbortController();
    const pending = pool.extract(slow, URL_, controller.signal);
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(
      pending,
      (e) => e instanceof GleanerError && e.code === "timeout" && /cancelled/.test(e.message),
    );

    const binary = new TextDecoder().decode(binaryBytes(100_000));
    await assert.rejects(
      pool.extract(binary, URL_),
      (e) => e instanceof GleanerError && e.code === "unsupported_content",
    );
    assert.equal((await pool.extract(warm, URL_)).title, "Warm");
  } finally {
    await pool.close();
  }
});

Deno.test("extract pool: queued jobs run in turn, a queued abort leaves the queue", async () => {
  const pool = createExtractPool({ workers: 1, timeoutMs: 60_000 });
  try {
    const pages = ["one", "two", "three"].map((t) => `<title>${t}</title><p>${t} body text</p>`);
    const controller = new AbortController();
    const results = pages.map((html, i) =>
      pool.extract(html, URL_, i === 1 ? controller.signal : undefined)
    );
    controller.abort();
    const settled = await Promise.allSettled(results);
    assert.equal(settled[0].status === "fulfilled" && settled[0].value.title, "one");
    assert.equal(settled[1].status, "rejected");
    assert.equal(settled[2].status === "fulfilled" && settled[2].value.title, "three");
  } finally {
    await pool.close();
  }
  await assert.rejects(pool.extract("<p>x</p>", URL_), GleanerError);
});

Deno.test("extract pool: an idle pool does not keep the process alive", async () => {
  const code = `
    import { createExtractPool } from "./lib/extract/pool.ts";
    const pool = createExtractPool({ workers: 2 });
    const page = await pool.extract("<title>Idle</title><p>Some text.</p>", "https://example.com/");
    console.log(page.title);
  `;
  const out = await evalInChild(code, 120_000);
  assert.ok(out.success, out.stderr);
  assert.equal(out.stdout.trim(), "Idle");
});

Deno.test("extract pool: warm starts every thread once; a closed pool starts none", async () => {
  const pool = createExtractPool({ workers: 2, timeoutMs: 10_000 });
  assert.equal(pool.threads(), 0, "threads start lazily");
  pool.warm();
  assert.equal(pool.threads(), 2);
  pool.warm();
  assert.equal(pool.threads(), 2, "warming twice starts no more");
  const page = await pool.extract(
    "<title>Warm</title><p>Ready before the first page.</p>",
    "https://example.com/",
  );
  assert.equal(page.title, "Warm");
  await pool.close();
  assert.equal(pool.threads(), 0);
  pool.warm();
  assert.equal(pool.threads(), 0, "a closed pool stays closed");
});
