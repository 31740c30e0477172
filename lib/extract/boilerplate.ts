/**
 * Boilerplate removal around a main-content extractor: {@link precleanDocument}
 * repairs and trims the page before the extractor scores it, and
 * {@link pruneContent} drops the blocks of its output that are not the
 * article (share bars, newsletter prompts, related links, captions, author
 * bios, cookie notices). Both only remove or move original nodes; text is
 * never rewritten.
 *
 * @module
 */
import { forEachElement } from "./dom.ts";

/** Class/id words that mark a block as page furniture rather than article text. */
const BOILER_HINT = new RegExp(
  "(?:^|[\\s_-])(?:" + [
    "share",
    "sharing",
    "sharebar",
    "social",
    "newsletter",
    "subscribe",
    "subscription",
    "signup",
    "related",
    "recommended",
    "recommendations",
    "readmore",
    "read-more",
    "more-stories",
    "promo",
    "advert",
    "advertisement",
    "ad",
    "ads",
    "sponsor",
    "sponsored",
    "outbrain",
    "taboola",
    "breadcrumb",
    "breadcrumbs",
    "tags",
    "tag-list",
    "author",
    "bio",
    "byline",
    "comments?",
    "disqus",
    "cookie",
    "consent",
    "gdpr",
    "popup",
    "modal",
    "caption",
    "credit",
    "credits",
    "copyright",
  ].join("|") + ")(?:$|[\\s_-])",
  "i",
);

/** Class/id words of image, video and embed blocks: what text they hold is a caption or credit. */
const MEDIA_HINT =
  /(?:^|[\s_-])(?:inline)?(?:image|img|photo|picture|media|gallery|video|figure|embed|slideshow)/i;

/** Lead-ins of a link to another article placed between paragraphs. */
const READ_ALSO =
  /^\s*(?:also read|read also|read more|see also|related|more|watch|listen|lesen sie auch|mehr dazu|auch interessant|lire aussi|à lire aussi|lee también|leer más)\s*[:|»>]/i;

/** First sentence of an author bio. */
const BIO =
  /^(?:[\p{Lu}][\p{L}.'’-]*\s+){1,4}(?:is|was|has been|joined)\b[^.]{0,200}\b(?:writer|journalist|editor|reporter|correspondent|author|founder|contributor|columnist|producer|analyst|freelancer|blogger|photographer|host)\b/u;

/** Class/id words of consent banners and dialogs, removed from the whole page. */
const CONSENT_HINT = /(?:^|\s)(?:cookie|consent|gdpr|onetrust|didomi|usercentrics|cmp[-_])/i;
const CONSENT_TEXT = /cookie|consent|privacy|datenschutz/i;
const COMMENTS_HINT = /(?:^|\s)(?:comments?(?:$|\s|[-_])|commentlist|disqus|respond(?:$|\s))/i;

function hints(el: Element): string {
  return `${el.getAttribute("id") ?? ""} ${el.getAttribute("class") ?? ""}`;
}

function textLength(el: Element): number {
  return (el.textContent ?? "").replace(/\s+/g, " ").trim().length;
}

/**
 * Repairs and trims a parsed page before main-content scoring: unwraps
 * `<html>`/`<body>` elements nested inside the body, puts React streamed
 * content (`<div hidden id="S:0">`) where its placeholder (`<template
 * id="B:0">`) was, and removes consent banners, dialogs and comment sections.
 * Mutates the document.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { precleanDocument } from "./boilerplate.ts";
 * const doc = parseDocument('<main><template id="B:0"></template></main><div hidden id="S:0"><p>Text</p></div>');
 * precleanDocument(doc);
 * console.assert(doc.querySelector("main p")?.textContent === "Text");
 * ```
 */
export function precleanDocument(doc: Document): void {
  const body = doc.body;
  if (!body) return;
  // One walk finds what each step needs (querySelectorAll compiles a selector and tests it on
  // every element); the candidates are looked up again only when the repairs moved nodes.
  const nestedRoots: Element[] = [];
  const streamedBlocks: Element[] = [];
  let candidates: Element[] = [];
  forEachElement(body, (el) => {
    const tag = el.tagName;
    if (tag === "HTML" || tag === "BODY" || tag === "HEAD") nestedRoots.push(el);
    if (
      tag === "DIV" && el.hasAttribute("hidden") && (el.getAttribute("id") ?? "").startsWith("S:")
    ) streamedBlocks.push(el);
    if (
      tag === "DIALOG" || el.hasAttribute("id") || el.hasAttribute("class") ||
      el.hasAttribute("role") || el.hasAttribute("aria-modal")
    ) candidates.push(el);
  });
  for (const nested of nestedRoots) {
    if (nested.tagName === "HEAD") {
      nested.remove();
      continue;
    }
    nested.replaceWith(...nested.childNodes);
  }
  for (const streamed of streamedBlocks) {
    if (nestedRoots.length && !body.contains(streamed)) continue;
    const slot = doc.getElementById(`B:${streamed.id.slice(2)}`);
    if (slot && slot.tagName === "TEMPLATE") {
      slot.replaceWith(...streamed.childNodes);
      streamed.remove();
    } else {
      streamed.removeAttribute("hidden");
    }
  }
  if (nestedRoots.length || streamedBlocks.length) {
    candidates = [...body.querySelectorAll("[id], [class], [role], [aria-modal], dialog")];
  }
  const total = textLength(body);
  for (const el of candidates) {
    if (!body.contains(el)) continue;
    const h = hints(el);
    const role = el.getAttribute("role");
    const dialog = el.tagName === "DIALOG" || role === "dialog" || role === "alertdialog" ||
      el.getAttribute("aria-modal") === "true";
    const consent = CONSENT_HINT.test(h) && CONSENT_TEXT.test(el.textContent ?? "");
    if (dialog || consent || COMMENTS_HINT.test(h)) {
      if (textLength(el) < total * 0.5) el.remove();
    }
  }
}

const BLOCKS = "div, section, aside, p, ul, ol, li, figure, figcaption, span, table, " +
  "header, footer, nav, h1, h2, h3, h4, h5, h6, blockquote, form, dl";

const PROMPT_TEXT = new RegExp(
  [
    "\\b(?:sign up|signup|subscribe|register)\\b[^.!?]*\\b(?:newsletter|e-?mails?|inbox|updates)\\b",
    "\\b(?:newsletter|e-?mails?|inbox)\\b[^.!?]*\\b(?:sign up|subscribe)\\b",
    "\\ball rights reserved\\b",
    "^\\s*(?:©|copyright\\b)",
  ].join("|"),
  "i",
);

function isLinkList(list: Element, len: number): boolean {
  const items = list.querySelectorAll("li");
  return items.length >= 3 && linkTextLength(list) >= len * 0.8;
}

/** Whether less than 300 characters of text follow `el` under `root`. */
function isTrailing(el: Element, root: Element): boolean {
  let n = 0;
  for (let node: Element | null = el; node && node !== root; node = node.parentElement) {
    for (let sib = node.nextSibling; sib; sib = sib.nextSibling) {
      n += (sib.textContent ?? "").replace(/\s+/g, " ").trim().length;
      if (n >= 300) return false;
    }
  }
  return true;
}

function linkTextLength(el: Element): number {
  let n = 0;
  for (const a of el.querySelectorAll("a")) n += textLength(a);
  return n;
}

/** Headings that open what follows the article: comments, related links, "read more". */
const COMMENTS_MARKER = new RegExp(
  "^(?:" + [
    "(?:\\d+\\s+)?comments",
    "\\d+\\s+(?:comments?|responses?|replies|reactions?)",
    "(?:\\d+\\s+)?(?:responses|replies) to\\b.*",
    "leave a (?:comment|reply)",
    "(?:join|add to) the (?:conversation|discussion)",
    "trackbacks?",
    "(?:\\d+\\s+)?kommentare",
    "(?:\\d+\\s+)?commentaires",
    "(?:\\d+\\s+)?comentarios",
  ].join("|") + ")[\\s:»›>(\\d)]*$",
  "i",
);
const RELATED_MARKER = new RegExp(
  "^(?:" + [
    "related(?: articles| posts| stories| content| reading| links| coverage)?",
    "(?:read|see) (?:more|also)",
    "more (?:from|on|stories|articles|news)\\b.*",
    "you (?:may|might) also (?:like|enjoy)",
    "recommended(?: for you| articles| stories)?",
    "popular(?: posts| stories| articles)?",
    "most (?:read|popular|viewed)",
    "trending(?: now)?",
    "mehr zum thema",
    "(?:das )?könnte (?:sie|dich) auch interessieren",
    "weitere artikel",
    "lesen sie auch",
    "auch interessant",
    "à lire aussi",
    "sur le même sujet",
    "noticias relacionadas",
    "te puede interesar",
  ].join("|") + ")\\s*:?$",
  "i",
);

function markerKind(el: Element, len: number): "comments" | "related" | null {
  if (len > 60) return null;
  const tag = el.tagName;
  if (!/^H[1-6]$/.test(tag) && tag !== "P" && tag !== "DIV" && tag !== "SPAN" && tag !== "STRONG") {
    return null;
  }
  if (el.querySelector("p, div, ul, ol, table") && !/^H[1-6]$/.test(tag)) return null;
  const text = (el.textContent ?? "").replace(/\s+/g, " ").trim();
  if (COMMENTS_MARKER.test(text)) return "comments";
  if (RELATED_MARKER.test(text)) return "related";
  return null;
}

/** Removes a "related" marker and the link lists and short teasers right after it. */
function dropRelated(marker: Element, root: Element): void {
  let node: Element | null = marker;
  while (node && node !== root && !node.nextElementSibling && node.parentElement !== root) {
    node = node.parentElement;
  }
  if (node === root) node = marker;
  let next = node === marker ? marker.nextElementSibling : node?.nextElementSibling ?? null;
  marker.remove();
  while (next) {
    const len = textLength(next);
    if (len > 0 && linkTextLength(next) < len * 0.5 && len > 120) break;
    const after: Element | null = next.nextElementSibling;
    next.remove();
    next = after;
  }
}

/** Removes `el` and everything after it (in document order) under `root`. */
function cutFrom(el: Element, root: Element): void {
  let node: Element | null = el;
  while (node && node !== root) {
    const parent: Element | null = node.parentElement;
    while (node.nextSibling) node.nextSibling.remove();
    if (node === el) node.remove();
    node = parent;
  }
}

function precedingTextLength(el: Element, root: Element): number {
  let n = 0;
  let node: Element | null = el;
  while (node && node !== root) {
    let sib = node.previousSibling;
    while (sib) {
      n += (sib.textContent ?? "").replace(/\s+/g, " ").trim().length;
      sib = sib.previousSibling;
    }
    node = node.parentElement;
  }
  return n;
}

/**
 * Drops the blocks of an extracted article that are page furniture: blocks
 * whose class/id says share, newsletter, related, ad, author, caption,
 * comments and the like; figure captions; short newsletter/sign-up/copyright
 * prompts; and paragraphs that are nothing but a link. Blocks holding a large
 * share of the article's text are kept whatever their class. Mutates `root`.
 *
 * @example
 * ```ts
 * import { parseDocument } from "./dom.ts";
 * import { pruneContent } from "./boilerplate.ts";
 * const body = parseDocument(
 *   '<div><p>Tides rise and fall twice a day.</p><div class="share-bar">Share</div></div>',
 * ).body;
 * pruneContent(body);
 * console.assert(body.textContent === "Tides rise and fall twice a day.");
 * ```
 */
export function pruneContent(root: Element): void {
  const total = textLength(root);
  for (const el of root.querySelectorAll(BLOCKS)) {
    if (!root.contains(el)) continue;
    const len = textLength(el);
    if (len === 0) continue;
    if (len > total * 0.3) continue;
    const tag = el.tagName;
    const marker = markerKind(el, len);
    if (marker === "comments" && precedingTextLength(el, root) >= 500) {
      cutFrom(el, root);
      continue;
    }
    if (marker === "related") {
      dropRelated(el, root);
      continue;
    }
    if ((tag === "UL" || tag === "OL") && isLinkList(el, len)) {
      el.remove();
      continue;
    }
    if (tag === "FIGCAPTION" || BOILER_HINT.test(hints(el))) {
      el.remove();
      continue;
    }
    if (len < 400 && tag !== "P" && MEDIA_HINT.test(hints(el))) {
      el.remove();
      continue;
    }
    const text = el.textContent ?? "";
    if (len < 250 && el.querySelector("a") && READ_ALSO.test(text)) {
      el.remove();
      continue;
    }
    if (
      len < 600 && (tag === "P" || tag === "DIV") && BIO.test(text.trim()) && isTrailing(el, root)
    ) {
      el.remove();
      continue;
    }
    if (len < 300 && (tag === "P" || tag === "DIV" || tag === "LI") && PROMPT_TEXT.test(text)) {
      el.remove();
      continue;
    }
    if ((tag === "P" || /^H[1-6]$/.test(tag)) && len > 0 && linkTextLength(el) >= len * 0.9) {
      el.remove();
    }
  }
}
