/**
 * What a response body is: media type (declared, or sniffed when the header
 * is missing or generic) and character encoding (BOM, header, `<meta>` or
 * XML declaration in the first 2 KB, else UTF-8 when valid, else
 * windows-1252), decoded with `TextDecoder`.
 *
 * @module
 */
import { isUtf8 } from "node:buffer";

/** Declared types that say nothing useful, so the body is sniffed. */
const GENERIC_TYPES = new Set([
  "",
  "text/plain",
  "application/octet-stream",
  "binary/octet-stream",
  "application/binary",
  "application/unknown",
  "unknown/unknown",
  "application/x-unknown",
  "application/force-download",
]);

/** Media types whose body is text worth decoding and keeping when cut at the size limit. */
export function isTextualMediaType(mediaType: string): boolean {
  return mediaType.startsWith("text/") || mediaType === "application/xhtml+xml" ||
    mediaType === "application/xml" || mediaType.endsWith("+xml") ||
    mediaType === "application/x-ndjson";
}

const HTML_START =
  /^(?:<!doctype\s+html|<html|<head|<body|<!--|<script|<title|<meta|<link|<style|<div|<p[\s>]|<h[1-6][\s>]|<table|<a\s|<br|<iframe|<font|<b[\s>]|<center|<noscript)/i;

/** Reads the first bytes as Latin-1 (one char per byte, no decoding errors). */
function head(bytes: Uint8Array, n: number): string {
  let s = "";
  const end = Math.min(bytes.length, n);
  for (let i = 0; i < end; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

function startsWith(bytes: Uint8Array, magic: number[], at = 0): boolean {
  return magic.every((b, i) => bytes[at + i] === b);
}

function hasBinaryBytes(bytes: Uint8Array, n = 1024): boolean {
  const end = Math.min(bytes.length, n);
  for (let i = 0; i < end; i++) {
    const b = bytes[i];
    if (b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f)) {
      return true;
    }
  }
  return false;
}

/**
 * The lower-case media type of a body: the `Content-Type` essence when it is
 * specific, else sniffed from the first bytes (PDF, PNG, JPEG, GIF, WebP,
 * ZIP, gzip) and, when the type is missing or `text/plain`, from the text
 * (HTML, XML/RSS/Atom/SVG, JSON; binary bytes → `application/octet-stream`;
 * else `text/plain`). `application/octet-stream` and similar generic types
 * only yield to magic numbers.
 *
 * @example
 * ```ts
 * import { sniffMediaType } from "./content.ts";
 * const bytes = new TextEncoder().encode("<!DOCTYPE html><p>hi</p>");
 * console.assert(sniffMediaType("text/plain", bytes) === "text/html");
 * ```
 */
export function sniffMediaType(contentType: string | null, bytes: Uint8Array): string {
  const declared = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (!GENERIC_TYPES.has(declared)) return declared;
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return "application/pdf";
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return "image/gif";
  if (
    startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)
  ) {
    return "image/webp";
  }
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return "application/zip";
  if (startsWith(bytes, [0x1f, 0x8b])) return "application/gzip";
  // Beyond magic numbers, only a missing or text/plain type is sniffed (a server that says
  // octet-stream is believed, so downloads are never read as pages).
  if (declared !== "" && declared !== "text/plain") return declared;
  if (hasBinaryBytes(bytes)) {
    return "application/octet-stream";
  }
  const text = head(bytes, 1024).replace(/^\xef\xbb\xbf/, "").replace(/^\s+/, "");
  if (/^<\?xml/i.test(text) || /^<(?:rss|feed|svg)[\s>]/i.test(text)) {
    const root = text.replace(/^<\?xml[^>]*>/i, "").replace(
      /^(?:\s|<!--[\s\S]*?-->|<![^>]*>|<\?[^>]*>)*/,
      "",
    );
    if (/^<rss[\s>]/i.test(root) || /^<rdf:rdf[\s>]/i.test(root)) return "application/rss+xml";
    if (/^<feed[\s>]/i.test(root)) return "application/atom+xml";
    if (/^<svg[\s>]/i.test(root)) return "image/svg+xml";
    if (/^<html[\s>]/i.test(root)) return "application/xhtml+xml";
    return "application/xml";
  }
  if (HTML_START.test(text)) return "text/html";
  if (
    /^[{[]/.test(text) && /[}\]]\s*$/.test(head(bytes.subarray(Math.max(0, bytes.length - 64)), 64))
  ) {
    return "application/json";
  }
  return declared === "" ? "text/plain" : declared;
}

/** The canonical WHATWG encoding name of a label, or undefined when unknown. */
function canonicalCharset(label: string): string | undefined {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
}

const META_CHARSET = /charset\s*=\s*["']?\s*([^"'\s/>;]+)/i;

/**
 * The charset of a body, first that applies: byte order mark, `charset`
 * parameter of `Content-Type`, `<meta charset>` / `<meta http-equiv>` in the
 * first 2 KB (HTML), `<?xml encoding?>` (XML), else `utf-8` when the bytes
 * are valid UTF-8, else `windows-1252`. Names are WHATWG canonical
 * (`shift_jis`, `windows-1252`, `utf-8`); `iso-8859-1` reads as windows-1252
 * as browsers do. A `<meta>` naming UTF-16 means UTF-8 (HTML standard).
 *
 * @example
 * ```ts
 * import { detectCharset } from "./content.ts";
 * const bytes = new TextEncoder().encode('<meta charset="Shift_JIS"><p>x</p>');
 * console.assert(detectCharset(bytes, "text/html", "text/html") === "shift_jis");
 * ```
 */
export function detectCharset(
  bytes: Uint8Array,
  contentType: string | null,
  mediaType: string,
): string {
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) return "utf-8";
  if (startsWith(bytes, [0xfe, 0xff])) return "utf-16be";
  if (startsWith(bytes, [0xff, 0xfe])) return "utf-16le";
  const param = contentType?.match(/;\s*charset\s*=\s*["']?([^"';\s]+)/i)?.[1];
  const fromHeader = param ? canonicalCharset(param) : undefined;
  if (fromHeader) return fromHeader;
  const isHtml = mediaType === "text/html" || mediaType === "application/xhtml+xml";
  const isXml = mediaType.endsWith("xml");
  if (isHtml || isXml) {
    const start = head(bytes, 2048);
    if (isHtml) {
      for (const tag of start.match(/<meta\b[^>]*>/gi) ?? []) {
        const label = tag.match(META_CHARSET)?.[1];
        const found = label ? canonicalCharset(label) : undefined;
        if (found) return found.startsWith("utf-16") ? "utf-8" : found;
      }
    }
    const xmlLabel = start.match(/^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/i)?.[1];
    const fromXml = xmlLabel ? canonicalCharset(xmlLabel) : undefined;
    if (fromXml) return fromXml.startsWith("utf-16") ? "utf-8" : fromXml;
  }
  return isUtf8Prefix(bytes) ? "utf-8" : "windows-1252";
}

/**
 * True when `bytes` are valid UTF-8, allowing a last sequence cut short (a
 * body cut at the size limit): what a fatal streaming `TextDecoder` accepts,
 * checked without decoding (decoding a 5 MB body into a string to validate
 * it blocked a server for ~70 ms).
 *
 * @example
 * ```ts
 * import { isUtf8Prefix } from "./content.ts";
 * const bytes = new TextEncoder().encode("café");
 * console.assert(isUtf8Prefix(bytes) && isUtf8Prefix(bytes.subarray(0, 4)));
 * console.assert(!isUtf8Prefix(new Uint8Array([0x63, 0xe9, 0x20])));
 * ```
 *
 * @internal exported for tests only
 */
export function isUtf8Prefix(bytes: Uint8Array): boolean {
  // Where the last sequence starts (a lead byte at most 3 bytes from the end).
  let lead = bytes.length;
  while (lead > 0 && bytes.length - lead < 3 && (bytes[lead - 1] & 0xc0) === 0x80) lead--;
  if (lead === 0 || bytes.length - lead > 3) return isUtf8(bytes);
  lead--;
  const first = bytes[lead];
  const needed = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  if (lead + needed <= bytes.length) return isUtf8(bytes);
  // A cut sequence: what precedes it must be valid, and it must start a valid sequence.
  if (!isUtf8(bytes.subarray(0, lead))) return false;
  if (first < 0xc2 || first > 0xf4) return false;
  if (lead + 1 < bytes.length) {
    const second = bytes[lead + 1];
    const [low, high] = first === 0xe0
      ? [0xa0, 0xbf]
      : first === 0xed
      ? [0x80, 0x9f]
      : first === 0xf0
      ? [0x90, 0xbf]
      : first === 0xf4
      ? [0x80, 0x8f]
      : [0x80, 0xbf];
    if (second < low || second > high) return false;
  }
  return true;
}

/**
 * Decodes bytes with a charset (a leading BOM is dropped); unknown labels
 * decode as UTF-8. Invalid sequences become U+FFFD.
 *
 * @example
 * ```ts
 * import { decodeText } from "./content.ts";
 * console.assert(decodeText(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), "windows-1252") === "café");
 * ```
 */
export function decodeText(bytes: Uint8Array, charset: string): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  return decoder.decode(bytes);
}
