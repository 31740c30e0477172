/**
 * Bounds on what extraction parses, applied to the HTML string before any
 * DOM exists, in one linear pass: a DOM parser and Readability cost far more
 * than linear time on hostile pages (1,000 nested `<div>`s took 6 s, 400,000
 * elements 50 s and 1.2 GB), and binary bytes served as HTML overflowed the
 * stack.
 *
 * - Binary bodies (control characters, or replacement characters from
 *   invalid UTF-8, above a few per cent of a sample) are refused with
 *   `unsupported_content`.
 * - Only the first {@link HtmlLimits.maxChars} characters are parsed.
 * - Elements nested deeper than {@link HtmlLimits.maxDepth} are flattened
 *   into their ancestor at that depth: their tags are dropped, their text
 *   kept.
 * - After {@link HtmlLimits.maxElements} start tags the rest is cut.
 *
 * A cut page is reported as truncated.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";

/** Limits of {@link boundHtml}. */
export interface HtmlLimits {
  /** Characters of HTML parsed (default 3,000,000). */
  maxChars?: number;
  /** Element nesting depth kept (default 64; real pages stay under 40). */
  maxDepth?: number;
  /** Elements parsed (default 40,000; real pages seen stay under 10,000). */
  maxElements?: number;
}

/** Default {@link HtmlLimits}. */
export const HTML_LIMITS: Readonly<Required<HtmlLimits>> = {
  maxChars: 3_000_000,
  maxDepth: 64,
  maxElements: 40_000,
};

/** The result of {@link boundHtml}. */
export interface BoundedHtml {
  /** The HTML to parse. */
  html: string;
  /** True when content was cut (size or element count); flattening alone does not count. */
  truncated: boolean;
  /** Start tags dropped because they were nested too deep. */
  flattened: number;
}

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
  "!doctype",
]);

/** Elements a start tag of the same name closes implicitly. */
const SELF_CLOSING_SIBLINGS = new Set(["p", "li", "dt", "dd", "tr", "td", "th", "option"]);

const TAG = /<(\/?)([a-zA-Z!][^\s/<>]*)[^<>]*>/g;

/**
 * Applies the {@link HtmlLimits} to an HTML string (scripts, styles and
 * comments already stripped): one pass over its tags, keeping a stack of
 * open elements.
 *
 * @example
 * ```ts
 * import { boundHtml } from "./guard.ts";
 * const deep = "<div>".repeat(100) + "text" + "</div>".repeat(100);
 * const bounded = boundHtml(deep, { maxDepth: 10 });
 * console.assert(bounded.html === "<div>".repeat(10) + "text" + "</div>".repeat(10));
 * console.assert(bounded.flattened === 90 && !bounded.truncated);
 * ```
 */
export function boundHtml(html: string, limits: HtmlLimits = {}): BoundedHtml {
  const maxChars = limits.maxChars ?? HTML_LIMITS.maxChars;
  const maxDepth = limits.maxDepth ?? HTML_LIMITS.maxDepth;
  const maxElements = limits.maxElements ?? HTML_LIMITS.maxElements;
  let truncated = false;
  if (html.length > maxChars) {
    // Cut before the last tag start, so no half tag is parsed.
    const lastTag = html.lastIndexOf("<", maxChars);
    html = html.slice(0, lastTag > maxChars - 10_000 ? lastTag : maxChars);
    truncated = true;
  }
  const stack: string[] = [];
  const skipped = new Map<string, number>();
  const parts: string[] = [];
  let flattened = 0;
  let elements = 0;
  let copied = 0;
  TAG.lastIndex = 0;
  for (let m = TAG.exec(html); m; m = TAG.exec(html)) {
    const closing = m[1] === "/";
    const name = m[2].toLowerCase();
    if (closing) {
      const waiting = skipped.get(name);
      if (waiting) {
        skipped.set(name, waiting - 1);
        parts.push(html.slice(copied, m.index));
        copied = m.index + m[0].length;
        continue;
      }
      const at = stack.lastIndexOf(name);
      if (at !== -1) stack.length = at;
      continue;
    }
    const leaf = VOID.has(name) || m[0].endsWith("/>") ||
      (SELF_CLOSING_SIBLINGS.has(name) && stack[stack.length - 1] === name);
    if (leaf || stack.length < maxDepth) {
      // Kept: counts against the element limit (flattened tags make no element).
      if (++elements > maxElements) {
        parts.push(html.slice(copied, m.index));
        copied = html.length;
        truncated = true;
        break;
      }
      if (!leaf) stack.push(name);
      continue;
    }
    flattened++;
    skipped.set(name, (skipped.get(name) ?? 0) + 1);
    parts.push(html.slice(copied, m.index));
    copied = m.index + m[0].length;
  }
  if (copied === 0) return { html, truncated, flattened };
  parts.push(html.slice(copied));
  return { html: parts.join(""), truncated, flattened };
}

const SAMPLE = 65_536;

/**
 * True when text decoded from a body looks binary: more than 2% control
 * characters (other than whitespace) or more than 10% replacement
 * characters (invalid UTF-8) in samples from its start, middle and end.
 *
 * @example
 * ```ts
 * import { looksBinary } from "./guard.ts";
 * console.assert(!looksBinary("<p>Grüße, 日本語</p>"));
 * console.assert(looksBinary("<html>" + "\u0000\u0001\ufffd\u0002".repeat(100)));
 * ```
 */
export function looksBinary(text: string): boolean {
  const samples = text.length <= 3 * SAMPLE ? [text] : [
    text.slice(0, SAMPLE),
    text.slice(text.length / 2, text.length / 2 + SAMPLE),
    text.slice(-SAMPLE),
  ];
  for (const sample of samples) {
    let control = 0;
    let replacement = 0;
    for (let i = 0; i < sample.length; i++) {
      const c = sample.charCodeAt(i);
      if (c < 32 ? c !== 9 && c !== 10 && c !== 12 && c !== 13 : c === 0x7f) control++;
      else if (c === 0xfffd) replacement++;
    }
    if (control > sample.length * 0.02 || replacement > sample.length * 0.1) return true;
  }
  return false;
}

/**
 * Throws `unsupported_content` naming `url` when `text` {@link looksBinary}.
 *
 * @example
 * ```ts
 * import { assertNotBinary } from "./guard.ts";
 * assertNotBinary("<p>Hello</p>", "https://example.com/");
 * ```
 */
export function assertNotBinary(text: string, url: string): void {
  if (looksBinary(text)) {
    throw new GleanerError(
      "unsupported_content",
      `${url} is served as text but its body is binary data`,
    );
  }
}
