/**
 * Deciding whether a page fetched over plain HTTP is too thin to use, so the
 * cascade should render it in the headless browser (`read.render: "auto"`).
 *
 * @module
 */

/** Below this many characters of visible body text a scripted page is thin. */
const THIN_TEXT_CHARS = 200;

/**
 * Below this many characters, an SPA mount point or a "JavaScript required"
 * notice marks the page as thin (a client-rendered shell still carries some
 * navigation and footer text; a server-rendered page has far more).
 */
const SHELL_TEXT_CHARS = 1_500;

/** `<script>` types that run (absent, JavaScript MIME types, `module`). */
const EXECUTABLE_SCRIPT =
  /<script\b(?![^>]*\btype\s*=\s*["']?(?!(?:text|application)\/(?:x-)?(?:java|ecma)script|module\b)[^\s>"']+)[^>]*>/i;

/** Empty mount points of client-side frameworks (React, Vue, Next, Nuxt, Gatsby, Svelte). */
const EMPTY_MOUNT_POINT =
  /<(div|main|section)\b[^>]*\bid\s*=\s*["']?(root|app|__next|__nuxt|___gatsby|svelte|main-app|application)["']?[^>]*>\s*<\/\1>/i;

/** A "you need JavaScript" notice. */
const JS_REQUIRED =
  /(enable|turn on|activate|allow)\s+(your\s+)?javascript|javascript\s+(is\s+)?(required|needed|disabled|must be enabled)|(requires?|need)\s+javascript|without javascript|javascript\s+(is\s+)?(turned\s+)?off/i;

const NOSCRIPT = /<noscript\b[^>]*>([\s\S]*?)<\/noscript>/gi;

/**
 * True when an HTTP-fetched page probably needs a browser to show its
 * content. `html` is the page source; `text` its visible body text as the
 * extractor saw it (scripts, styles and `<noscript>` excluded; whitespace
 * need not be collapsed).
 *
 * A page is thin when it has scripts that run (without them rendering cannot
 * add anything) and one of:
 * - fewer than {@link THIN_TEXT_CHARS} characters of text;
 * - under {@link SHELL_TEXT_CHARS} characters of text and an empty SPA mount
 *   point (`<div id="root"></div>`, `id="app"`, `__next`, …), a
 *   `__NEXT_DATA__` payload, an `ng-app` attribute, or a `<noscript>` notice
 *   saying JavaScript is required;
 * - an `ng-app` page whose text still shows `{{ … }}` template bindings.
 *
 * @example
 * ```ts
 * import { looksThin } from "./thin.ts";
 * const shell = '<html><body><div id="root"></div><script src="/app.js"></script></body></html>';
 * console.assert(looksThin(shell, ""));
 * const article = `<html><body><p>${"Plain words. ".repeat(100)}</p></body></html>`;
 * console.assert(!looksThin(article, "Plain words. ".repeat(100)));
 * ```
 */
export function looksThin(html: string, text: string): boolean {
  if (!EXECUTABLE_SCRIPT.test(html)) return false;
  const length = text.replace(/\s+/g, " ").trim().length;
  if (length < THIN_TEXT_CHARS) return true;
  const angular = /\bng-app\b/i.test(html);
  if (angular && /\{\{[^}]+\}\}/.test(text)) return true;
  if (length >= SHELL_TEXT_CHARS) return false;
  if (EMPTY_MOUNT_POINT.test(html) || angular || html.includes("__NEXT_DATA__")) return true;
  for (const match of html.matchAll(NOSCRIPT)) {
    if (JS_REQUIRED.test(match[1])) return true;
  }
  return false;
}
