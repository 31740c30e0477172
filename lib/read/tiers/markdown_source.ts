/**
 * Markdown that arrives as Markdown (GitHub READMEs, llms.txt sections) made
 * to fit the {@link Page} contract: link targets and images out of the text,
 * links collected apart; code blocks and inline code left untouched.
 * Also fences source files for display.
 *
 * @module
 */
import type { Page, PageLink } from "../types.ts";

/** Markdown file extensions passed through as Markdown. */
const MARKDOWN_EXTENSIONS: ReadonlySet<string> = new Set([
  "md",
  "markdown",
  "mdx",
  "mkd",
  "mdown",
]);

/** Code-fence language per file extension (lower case, without the dot). */
const LANGUAGES: Record<string, string> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "jsx",
  py: "python",
  pyi: "python",
  rb: "ruby",
  rs: "rust",
  go: "go",
  java: "java",
  kt: "kotlin",
  kts: "kotlin",
  swift: "swift",
  c: "c",
  h: "c",
  cpp: "cpp",
  cc: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  cs: "csharp",
  php: "php",
  sh: "bash",
  bash: "bash",
  zsh: "zsh",
  fish: "fish",
  ps1: "powershell",
  sql: "sql",
  json: "json",
  jsonc: "jsonc",
  json5: "json5",
  yaml: "yaml",
  yml: "yaml",
  toml: "toml",
  xml: "xml",
  html: "html",
  htm: "html",
  css: "css",
  scss: "scss",
  less: "less",
  vue: "vue",
  svelte: "svelte",
  lua: "lua",
  r: "r",
  dart: "dart",
  scala: "scala",
  ex: "elixir",
  exs: "elixir",
  erl: "erlang",
  hs: "haskell",
  ml: "ocaml",
  nix: "nix",
  tf: "hcl",
  hcl: "hcl",
  proto: "protobuf",
  graphql: "graphql",
  gql: "graphql",
  ini: "ini",
  cfg: "ini",
  conf: "ini",
  csv: "csv",
  tsv: "tsv",
  diff: "diff",
  patch: "diff",
  rst: "rst",
  tex: "latex",
  zig: "zig",
  sol: "solidity",
};

/** Code-fence language of files known by name rather than extension. */
const FILE_NAMES: Record<string, string> = {
  dockerfile: "dockerfile",
  makefile: "makefile",
  gnumakefile: "makefile",
  justfile: "just",
  gemfile: "ruby",
  rakefile: "ruby",
  cmakelists: "cmake",
};

/** Extensions of prose files shown as plain text (no fence). */
const PLAIN_EXTENSIONS = new Set(["", "txt", "text"]);

/**
 * The lower-case extension of the last path segment (`""` when none).
 *
 * @internal exported for tests only
 */
export function extensionOf(path: string): string {
  const name = path.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** A fence longer than any backtick run inside `text` (at least three backticks). */
function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return "`".repeat(Math.max(3, longest + 1));
}

/**
 * Renders a source file for a page: Markdown files pass through (links taken
 * out, see {@link stripMarkdownLinks}), plain-text files stay as they are,
 * every other file is fenced with a language named after its extension.
 *
 * @example
 * ```ts
 * import { renderSourceFile } from "./markdown_source.ts";
 * const out = renderSourceFile("src/main.ts", "export const x = 1;\n", "https://github.com/o/r/blob/main/src/main.ts");
 * const fence = "`".repeat(3);
 * console.assert(out.markdown === `${fence}typescript\nexport const x = 1;\n${fence}`);
 * console.assert(out.mediaType === "text/plain");
 * ```
 */
export function renderSourceFile(
  path: string,
  text: string,
  baseUrl: string,
): { markdown: string; links: PageLink[]; mediaType: string } {
  const body = text.replace(/^\uFEFF/, "");
  const ext = extensionOf(path);
  if (MARKDOWN_EXTENSIONS.has(ext)) {
    return { ...stripMarkdownLinks(body, baseUrl), mediaType: "text/markdown" };
  }
  const name = (path.split("/").pop() ?? "").toLowerCase().replace(/\.txt$/, "");
  const language = FILE_NAMES[name] ?? LANGUAGES[ext] ??
    (PLAIN_EXTENSIONS.has(ext) ? undefined : /^[a-z0-9+#-]{1,15}$/.test(ext) ? ext : "");
  if (language === undefined) return { markdown: body.trim(), links: [], mediaType: "text/plain" };
  const trimmed = body.replace(/\s+$/, "");
  const fence = fenceFor(trimmed);
  return {
    markdown: `${fence}${language}\n${trimmed}\n${fence}`,
    links: [],
    mediaType: "text/plain",
  };
}

function resolveHttp(href: string, base: string): string | undefined {
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    url.hash = "";
    return url.href;
  } catch {
    return undefined;
  }
}

const IMAGE = /!\[[^\]]*\]\(\s*<?[^)\s>]*>?(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
const IMAGE_REF = /!\[[^\]]*\]\[[^\]]*\]/g;
const LINK = /\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
const LINK_REF = /\[([^\]]+)\]\[([^\]]*)\]/g;
const DEFINITION = /^\s{0,3}\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s+.*)?$/;
const HTML_IMAGE = /<(?:img|source)\b[^>]*>|<\/?picture\b[^>]*>/gi;
const HTML_LINK = /<a\b[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')[^>]*>([\s\S]*?)<\/a>/gi;
const AUTOLINK = /<(https?:\/\/[^>\s]+)>/g;

/**
 * Takes link targets and images out of Markdown (outside code) and returns
 * the links apart, resolved against `baseUrl`: `[text](url)` becomes `text`,
 * `![alt](src)` and `<img>` disappear, reference definitions are dropped,
 * `<https://…>` becomes the bare URL. Lines left empty by removed badges go.
 *
 * @example
 * ```ts
 * import { stripMarkdownLinks } from "./markdown_source.ts";
 * const out = stripMarkdownLinks("See [the guide](docs/guide.md) ![logo](logo.png)", "https://github.com/o/r/blob/main/README.md");
 * console.assert(out.markdown === "See the guide");
 * console.assert(out.links[0].url === "https://github.com/o/r/blob/main/docs/guide.md");
 * ```
 */
export function stripMarkdownLinks(
  markdown: string,
  baseUrl: string,
): { markdown: string; links: PageLink[] } {
  const links: PageLink[] = [];
  const seen = new Set<string>();
  const add = (href: string, text: string) => {
    if (href.trim().startsWith("#")) return;
    const url = resolveHttp(href, baseUrl);
    if (!url || seen.has(url)) return;
    seen.add(url);
    links.push({ url, text: text.replace(/\s+/g, " ").trim() });
  };
  const definitions = new Map<string, string>();
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  let fence: string | undefined;
  // First pass: reference definitions (outside code).
  for (const line of lines) {
    const marker = line.match(/^\s{0,3}(`{3,}|~{3,})/)?.[1];
    if (marker && (!fence || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence ? undefined : marker;
      continue;
    }
    if (fence) continue;
    const def = line.match(DEFINITION);
    if (def) definitions.set(def[1].toLowerCase(), def[2]);
  }
  fence = undefined;
  const out: string[] = [];
  for (const line of lines) {
    const marker = line.match(/^\s{0,3}(`{3,}|~{3,})/)?.[1];
    if (marker && (!fence || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence ? undefined : marker;
      out.push(line);
      continue;
    }
    if (fence) {
      out.push(line);
      continue;
    }
    if (DEFINITION.test(line)) continue;
    // Inline code spans are kept as they are.
    const parts = line.split(/(`+[^`]*`+)/);
    const rewritten = parts.map((part, i) => {
      if (i % 2 === 1) return part;
      return part
        .replace(HTML_IMAGE, "")
        .replace(IMAGE, "")
        .replace(IMAGE_REF, "")
        .replace(HTML_LINK, (_m, dq: string | undefined, sq: string | undefined, text: string) => {
          const inner = text.replace(/<[^>]+>/g, "").trim();
          add(dq ?? sq ?? "", inner);
          return inner;
        })
        .replace(LINK, (_m, text: string, href: string) => {
          add(href, text);
          return text;
        })
        .replace(LINK_REF, (_m, text: string, id: string) => {
          const href = definitions.get((id || text).toLowerCase());
          if (href) add(href, text);
          return text;
        })
        .replace(AUTOLINK, (_m, href: string) => {
          add(href, href);
          return href;
        });
    }).join("");
    if (rewritten.trim() === "" && line.trim() !== "") continue;
    out.push(rewritten.replace(/[ \t]+$/, ""));
  }
  const text = out.join("\n").replace(/\n{3,}/g, "\n\n").trim();
  return { markdown: text, links };
}

/** A {@link Page} built from Markdown-like content read by a tier other than HTTP. */
export function markdownPage(
  fields: Omit<Page, "fetchedAt" | "links"> & { links?: PageLink[] },
): Page {
  return { links: [], ...fields, fetchedAt: new Date().toISOString() };
}
