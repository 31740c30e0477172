/**
 * HTML → Markdown with turndown (+ turndown-plugin-gfm): ATX headings, `-`
 * lists, fenced code with its language, GFM tables, emphasis. Link targets
 * and images are dropped (anchor text stays); links are returned separately.
 *
 * @module
 */
import TurndownService from "turndown";
import { highlightedCodeBlock, strikethrough, taskListItems } from "turndown-plugin-gfm";
import { parseDocument } from "./dom.ts";

const REMOVED = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "img",
  "picture",
  "source",
  "svg",
  "video",
  "audio",
  "iframe",
  "object",
  "embed",
  "canvas",
  "map",
  "button",
  "input",
  "select",
  "textarea",
  "form",
]);

const LANG_CLASS =
  /(?:^|\s)(?:language|lang|highlight-source|highlight|brush:?)-?\s*([a-z0-9_+#-]+)/i;

function codeLanguage(node: Element): string {
  for (const el of [node, node.querySelector("code")]) {
    const cls = el?.getAttribute("class") ?? "";
    const match = cls.match(LANG_CLASS);
    if (match) return match[1].toLowerCase();
    const lang = el?.getAttribute("data-lang") ?? el?.getAttribute("data-language");
    if (lang) return lang.trim().toLowerCase();
  }
  const parentCls = node.parentElement?.getAttribute("class") ?? "";
  const parentMatch = parentCls.match(
    /(?:^|\s)(?:language|highlight-source|highlight)-([a-z0-9_+#-]+)/i,
  );
  return parentMatch ? parentMatch[1].toLowerCase() : "";
}

function fence(code: string): string {
  const runs = code.match(/`{3,}/g) ?? [];
  const longest = runs.reduce((n, run) => Math.max(n, run.length), 2);
  return "`".repeat(longest + 1);
}

function closestTable(node: Node): Element | null {
  let el = node.parentNode as Element | null;
  while (el && el.nodeName !== "TABLE") el = el.parentNode as Element | null;
  return el;
}

function rowsOf(table: Element): Element[] {
  return [...table.querySelectorAll("tr")].filter((tr) => closestTable(tr) === table);
}

function cellsOf(row: Element): Element[] {
  return [...row.children].filter((c) => c.nodeName === "TD" || c.nodeName === "TH");
}

/** Marks layout tables (nested tables, one column, long cells) so they are unwrapped. */
function markLayoutTables(root: ParentNode): void {
  for (const table of root.querySelectorAll("table")) {
    const rows = rowsOf(table);
    const width = rows.reduce((n, r) => Math.max(n, cellsOf(r).length), 0);
    const layout = table.getAttribute("role") === "presentation" ||
      table.querySelector("table") !== null || width <= 1 || rows.length === 0 ||
      rows.some((r) =>
        cellsOf(r).some((c) =>
          (c.textContent ?? "").length > 600 ||
          c.querySelector("pre, h1, h2, h3, h4, h5, h6") !== null
        )
      );
    if (layout) table.setAttribute("data-gleaner-layout", "1");
  }
}

function isLayout(node: Node): boolean {
  const table = node.nodeName === "TABLE" ? node as Element : closestTable(node);
  return table?.getAttribute("data-gleaner-layout") === "1";
}

function cellText(content: string): string {
  return content.replace(/\s*\n+\s*/g, " ").replace(/\|/g, "\\|").trim();
}

function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: "atx",
    hr: "---",
    bulletListMarker: "-",
    codeBlockStyle: "fenced",
    fence: "```",
    emDelimiter: "_",
    strongDelimiter: "**",
    br: "",
  });
  service.use([highlightedCodeBlock, strikethrough, taskListItems]);
  service.addRule("dropped", {
    filter: (node) => REMOVED.has(node.nodeName.toLowerCase()),
    replacement: () => "",
  });
  service.addRule("listItem", {
    filter: "li",
    replacement: (content, node, options) => {
      const parent = node.parentNode as Element | null;
      let prefix = `${options.bulletListMarker} `;
      if (parent?.nodeName === "OL") {
        const start = Number(parent.getAttribute("start") ?? "1");
        const index = [...parent.children].indexOf(node as Element);
        prefix = `${(Number.isFinite(start) ? start : 1) + index}. `;
      }
      const body = content.replace(/^\n+/, "").replace(/\n+$/, "\n")
        .replace(/\n/g, `\n${" ".repeat(prefix.length)}`);
      return prefix + body.trimEnd() + (node.nextSibling ? "\n" : "");
    },
  });
  // Anchor text stays, targets go.
  service.addRule("linkText", {
    filter: "a",
    replacement: (content) => content,
  });
  service.addRule("fencedPre", {
    filter: (node) => node.nodeName === "PRE",
    replacement: (_content, node) => {
      const code = (node.textContent ?? "").replace(/\n+$/, "").replace(/^\n+/, "");
      if (!code.trim()) return "";
      const f = fence(code);
      return `\n\n${f}${codeLanguage(node as Element)}\n${code}\n${f}\n\n`;
    },
  });
  // Tables: GFM tables for data tables (a header separator after the first
  // row, whether or not it uses <th>), unwrapped blocks for layout tables.
  service.addRule("tableCell", {
    filter: ["th", "td"],
    replacement: (content, node) => {
      if (isLayout(node)) return `\n\n${content}\n\n`;
      const first = cellsOf(node.parentNode as Element)[0] === node;
      return `${first ? "| " : " "}${cellText(content)} |`;
    },
  });
  service.addRule("tableRow", {
    filter: "tr",
    replacement: (content, node) => {
      if (isLayout(node)) return `\n\n${content}\n\n`;
      const table = closestTable(node);
      const rows = table ? rowsOf(table) : [];
      if (rows[0] !== node) return `\n${content}`;
      const width = rows.reduce((n, r) => Math.max(n, cellsOf(r).length), 0);
      const border = "|" + " --- |".repeat(Math.max(1, width));
      let row = content;
      const cells = cellsOf(node as Element).length;
      for (let i = cells; i < width; i++) row += "  |";
      return `\n${row}\n${border}`;
    },
  });
  service.addRule("tableSection", {
    filter: ["thead", "tbody", "tfoot"],
    replacement: (content) => content,
  });
  service.addRule("tableCaption", {
    filter: "caption",
    replacement: (content) => `\n\n${content.trim()}\n\n`,
  });
  service.addRule("table", {
    filter: "table",
    replacement: (content, node) => {
      if (isLayout(node)) return `\n\n${content}\n\n`;
      const [captionPart, ...rest] = content.split(/\n(?=\|)/);
      const body = rest.length ? rest.join("\n") : captionPart;
      const caption = rest.length && captionPart.trim() ? `${captionPart.trim()}\n\n` : "";
      return `\n\n${caption}${body.replace(/\n{2,}/g, "\n").trim()}\n\n`;
    },
  });
  // Escape only what would change the block structure at a line start.
  service.escape = (text: string) =>
    text
      .replace(/^(\s*)(#{1,6}\s|>|[-+*]\s|```|~~~|={3,}|-{3,})/gm, "$1\\$2")
      .replace(/^(\s*\d+)\.(\s)/gm, "$1\\.$2");
  return service;
}

let service: TurndownService | undefined;

/**
 * Converts an element (or an HTML string) to Markdown. The element is not
 * modified unless `mutate` is set (saves a copy when the caller owns it).
 *
 * @example
 * ```ts
 * import { htmlToMarkdown } from "./markdown.ts";
 * const md = htmlToMarkdown('<h2>Intro</h2><p>See <a href="/x">the <em>docs</em></a>.</p>');
 * console.assert(md === "## Intro\n\nSee the _docs_.");
 * ```
 */
export function htmlToMarkdown(
  input: Element | string,
  options: { mutate?: boolean } = {},
): string {
  const root = typeof input === "string"
    ? parseDocument(input).body
    : options.mutate
    ? input
    : input.cloneNode(true) as Element;
  markLayoutTables(root);
  service ??= createService();
  // turndown clones an element it is given; this one is ours to change already.
  Object.defineProperty(root, "cloneNode", { configurable: true, value: () => root });
  let markdown: string;
  try {
    markdown = service.turndown(root as unknown as TurndownService.Node);
  } finally {
    delete (root as { cloneNode?: unknown }).cloneNode;
  }
  return tidy(markdown);
}

/** Normalizes spacing: no trailing spaces, at most one blank line in a row. */
function tidy(markdown: string): string {
  const out: string[] = [];
  let inFence = false;
  let fenceMark = "";
  for (const line of markdown.split("\n")) {
    const fenceMatch = line.match(/^(`{3,}|~{3,})/);
    if (fenceMatch && (!inFence || line.trim() === fenceMark)) {
      inFence = !inFence;
      fenceMark = inFence ? fenceMatch[1] : "";
      out.push(line.trimEnd());
      continue;
    }
    out.push(inFence ? line : line.replace(/[ \t\u00a0]+$/, ""));
  }
  return out.join("\n").replace(/\n{3,}/g, "\n\n").trim();
}
