import assert from "node:assert/strict";
import {
  decodeText,
  detectCharset,
  isTextualMediaType,
  isUtf8Prefix,
  sniffMediaType,
} from "./content.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const latin1 = (s: string) => Uint8Array.from([...s], (c) => c.charCodeAt(0));

Deno.test("sniffMediaType: specific types kept, generic ones sniffed", () => {
  assert.equal(sniffMediaType("text/html; charset=utf-8", bytes("{}")), "text/html");
  assert.equal(sniffMediaType("Application/JSON", bytes("x")), "application/json");
  assert.equal(sniffMediaType(null, bytes("  <!doctype HTML><p>")), "text/html");
  assert.equal(sniffMediaType("text/plain", bytes("\ufeff<html><body>")), "text/html");
  assert.equal(sniffMediaType("text/plain", bytes("just words")), "text/plain");
  assert.equal(sniffMediaType(null, bytes('{"a": [1, 2]}\n')), "application/json");
  assert.equal(
    sniffMediaType(null, bytes('<?xml version="1.0"?>\n<rss version="2.0">')),
    "application/rss+xml",
  );
  assert.equal(
    sniffMediaType(null, bytes("<?xml version='1.0'?><feed xmlns='x'>")),
    "application/atom+xml",
  );
  assert.equal(sniffMediaType(null, bytes("<?xml version='1.0'?><urlset>")), "application/xml");
  assert.equal(sniffMediaType("application/octet-stream", bytes("%PDF-1.7\n")), "application/pdf");
  assert.equal(sniffMediaType(null, latin1("\x89PNG\r\n\x1a\n")), "image/png");
  assert.equal(sniffMediaType("text/plain", latin1("ab\x00\x01cd")), "application/octet-stream");
  // A server that says octet-stream is believed unless magic bytes say otherwise.
  assert.equal(
    sniffMediaType("application/octet-stream", bytes("<html>")),
    "application/octet-stream",
  );
});

Deno.test("isTextualMediaType", () => {
  for (const t of ["text/html", "text/csv", "application/xhtml+xml", "application/rss+xml"]) {
    assert.equal(isTextualMediaType(t), true, t);
  }
  for (
    const t of ["application/pdf", "application/json", "image/png", "application/octet-stream"]
  ) {
    assert.equal(isTextualMediaType(t), false, t);
  }
});

Deno.test("detectCharset: BOM > header > meta > xml declaration > utf-8 validity", () => {
  const sjis = latin1('<meta charset="x-sjis"><p>');
  assert.equal(
    detectCharset(latin1("\xef\xbb\xbfabc"), "text/html; charset=windows-1252", "text/html"),
    "utf-8",
  );
  assert.equal(detectCharset(latin1("\xff\xfea\x00"), null, "text/plain"), "utf-16le");
  assert.equal(detectCharset(sjis, 'text/html; charset="ISO-8859-1"', "text/html"), "windows-1252");
  assert.equal(detectCharset(sjis, "text/html", "text/html"), "shift_jis");
  assert.equal(detectCharset(sjis, "text/html; charset=bogus", "text/html"), "shift_jis");
  assert.equal(
    detectCharset(
      bytes('<meta http-equiv="content-type" content="text/html; charset=EUC-JP">'),
      null,
      "text/html",
    ),
    "euc-jp",
  );
  assert.equal(detectCharset(bytes('<meta charset="utf-16">'), null, "text/html"), "utf-8");
  assert.equal(
    detectCharset(
      bytes('<?xml version="1.0" encoding="ISO-8859-2"?><a/>'),
      null,
      "application/xml",
    ),
    "iso-8859-2",
  );
  // The meta tag must be in the first 2 KB.
  const late = bytes(" ".repeat(3000) + '<meta charset="shift_jis">');
  assert.equal(detectCharset(late, null, "text/html"), "utf-8");
  assert.equal(detectCharset(bytes("naïve"), null, "text/html"), "utf-8");
  assert.equal(detectCharset(latin1("na\xefve"), null, "text/html"), "windows-1252");
  // A multi-byte sequence cut by truncation is still UTF-8.
  assert.equal(detectCharset(bytes("✓✓").subarray(0, 4), null, "text/plain"), "utf-8");
});

Deno.test("decodeText: charsets and unknown labels", () => {
  assert.equal(decodeText(latin1("caf\xe9 \x80"), "windows-1252"), "café €");
  assert.equal(decodeText(latin1("\x93\xfa\x96\x7b"), "shift_jis"), "日本");
  assert.equal(decodeText(latin1("\xef\xbb\xbfhi"), "utf-8"), "hi");
  assert.equal(decodeText(bytes("ok"), "no-such-charset"), "ok");
});

Deno.test("isUtf8Prefix: accepts exactly what a fatal streaming TextDecoder accepts", () => {
  const fatal = (bytes: Uint8Array) => {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
      return true;
    } catch {
      return false;
    }
  };
  const text = new TextEncoder().encode("aé€😀 Привет 数据 \u{10FFFF}\uD7FF\uE000");
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const special = [
    0x80,
    0xbf,
    0xc0,
    0xc1,
    0xc2,
    0xdf,
    0xe0,
    0xed,
    0xef,
    0xf0,
    0xf4,
    0xf5,
    0xff,
    0x9f,
    0xa0,
    0x8f,
    0x90,
  ];
  for (let t = 0; t < 20_000; t++) {
    // Valid text, cut anywhere, sometimes with a byte changed or appended.
    let bytes = text.slice(0, Math.floor(next() * (text.length + 1)));
    if (next() < 0.5 && bytes.length > 0) {
      bytes[Math.floor(next() * bytes.length)] = special[Math.floor(next() * special.length)];
    }
    if (next() < 0.3) {
      bytes = new Uint8Array([...bytes, special[Math.floor(next() * special.length)]]);
    }
    assert.equal(isUtf8Prefix(bytes), fatal(bytes), `[${[...bytes].map((b) => b.toString(16))}]`);
  }
  assert.equal(isUtf8Prefix(new Uint8Array()), true);
});
