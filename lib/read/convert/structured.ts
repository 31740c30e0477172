/**
 * Structured and plain-text bodies (JSON, XML, YAML, TOML, CSV, Markdown,
 * plain text) turned into Markdown without a browser.
 *
 * @module
 */

/** Media types read as structured data or text, mapped to a code-fence language. */
const STRUCTURED: Record<string, string> = {
  "application/json": "json",
  "application/ld+json": "json",
  "application/feed+json": "json",
  "application/xml": "xml",
  "text/xml": "xml",
  "application/rss+xml": "xml",
  "application/atom+xml": "xml",
  "application/yaml": "yaml",
  "application/x-yaml": "yaml",
  "text/yaml": "yaml",
  "text/x-yaml": "yaml",
  "application/toml": "toml",
  "text/x-toml": "toml",
  "text/csv": "csv",
  "text/tab-separated-values": "tsv",
};

/** True when the media type is read by {@link structuredToMarkdown}. */
export function isStructuredType(mediaType: string): boolean {
  return mediaType in STRUCTURED || mediaType.endsWith("+json") || mediaType.endsWith("+xml") ||
    mediaType === "text/plain" || mediaType === "text/markdown" || mediaType === "text/x-markdown";
}

/** True when a text body is really HTML (mislabelled as text). */
export function looksLikeHtml(text: string): boolean {
  const head = text.slice(0, 1024).trimStart().toLowerCase();
  return head.startsWith("<!doctype html") || head.startsWith("<html") ||
    (/<(head|body)[\s>]/.test(head) && /<\/?(div|p|title|meta)[\s>]/.test(head));
}

/**
 * Converts a structured or text body into Markdown: JSON pretty-printed in a
 * code block, other data formats fenced as they are, Markdown and plain text
 * passed through.
 *
 * @example
 * ```ts
 * import { structuredToMarkdown } from "./structured.ts";
 * const md = structuredToMarkdown('{"a":1}', "application/json");
 * const fence = "`".repeat(3);
 * console.assert(md === `${fence}json\n{\n  "a": 1\n}\n${fence}`);
 * ```
 */
export function structuredToMarkdown(text: string, mediaType: string): string {
  if (
    mediaType === "text/plain" || mediaType === "text/markdown" || mediaType === "text/x-markdown"
  ) {
    return text.replace(/^\uFEFF/, "").trim();
  }
  const language = STRUCTURED[mediaType] ?? (mediaType.endsWith("+json") ? "json" : "xml");
  let body = text.replace(/^\uFEFF/, "").trim();
  if (language === "json") {
    try {
      body = JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      // Not valid JSON: keep the text as it came.
    }
  }
  const fence = body.includes("```") ? "````" : "```";
  return `${fence}${language}\n${body}\n${fence}`;
}
