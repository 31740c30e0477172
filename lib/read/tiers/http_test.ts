import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { GleanerError } from "../../errors.ts";
import { createExtractPool } from "../../extract/pool.ts";
import { decodeText, detectCharset, sniffMediaType } from "../../net/content.ts";
import type { FetchedResponse } from "../../net/types.ts";
import { binaryBytes } from "../../../testing/fixtures/hostile.ts";
import { pageFromResponse } from "./http.ts";
import type { Page } from "../types.ts";

const URL_ = "https://example.com/page";

/** A response as the guarded fetcher builds it. */
function response(body: Uint8Array, contentType: string): FetchedResponse {
  const mediaType = sniffMediaType(contentType, body);
  const charset = detectCharset(body, contentType, mediaType);
  return {
    url: URL_,
    status: 200,
    headers: new Headers({ "content-type": contentType }),
    body,
    mediaType,
    charset,
    redirects: [],
    text: () => decodeText(body, charset),
  };
}

const comparable = ({ fetchedAt: _at, markdownTokens: _tokens, ...page }: Page) => page;

Deno.test("pageFromResponse: bodies decoded and extracted in a thread give the inline page", async () => {
  // A small max_html_chars, so bodies past 3 × max_html_chars bytes are cut (and several parts long).
  const config = parseConfig({ read: { max_html_chars: 400_000 } });
  const pool = createExtractPool({
    workers: 1,
    timeoutMs: 60_000,
    options: { limits: { maxChars: config.read.max_html_chars } },
  });
  const latin1 = new Uint8Array([
    ...new TextEncoder().encode("<html><head><title>Caf"),
    0xe9,
    ...new TextEncoder().encode("</title></head><body><article><p>"),
    ...Array.from({ length: 3_000 }, (_, i) => i % 7 === 0 ? 0xe9 : 0x61 + (i % 26)),
    ...new TextEncoder().encode("</p></article></body></html>"),
  ]);
  // Three-byte characters over many 256 KB parts: sequences are split between parts.
  const cjk = new TextEncoder().encode(
    `<html><head><title>数据</title></head><body><article><p>${
      "数据库的潮汐。".repeat(60_000)
    }</p></article></body></html>`,
  );
  const shell = new TextEncoder().encode(
    '<html><body><div id="root"></div><script src="/app.js"></script></body></html>',
  );
  const bodies: [string, Uint8Array, string][] = [
    ["windows-1252", latin1, "text/html; charset=windows-1252"],
    ["CJK past the decode limit", cjk, "text/html; charset=utf-8"],
    ["client-rendered shell", shell, "text/html"],
  ];
  try {
    for (const [label, bytes, type] of bodies) {
      const res = response(bytes, type);
      const before = bytes.slice();
      const inline = await pageFromResponse(res, URL_, { config });
      const threaded = await pageFromResponse(res, URL_, {
        config,
        extractBody: pool.extractBody,
      });
      assert.deepEqual(comparable(threaded), comparable(inline), label);
      assert.equal(typeof threaded.markdownTokens, "number", label);
      // The caller's bytes are neither moved nor changed.
      assert.deepEqual(res.body, before, label);
    }
    const cut = await pageFromResponse(response(cjk, "text/html"), URL_, {
      config,
      extractBody: pool.extractBody,
    });
    assert.equal(cut.truncated, true);
    assert.ok(cut.title.startsWith("数据"));
    const thin = await pageFromResponse(response(shell, "text/html"), URL_, {
      config,
      extractBody: pool.extractBody,
    });
    assert.equal(thin.thin, true);
    await assert.rejects(
      pageFromResponse(response(binaryBytes(300_000), "text/html"), URL_, {
        config,
        extractBody: pool.extractBody,
      }),
      (e) => e instanceof GleanerError && e.code === "unsupported_content",
    );
  } finally {
    await pool.close();
  }
});
