/**
 * Splits page Markdown into small, heading-aware units (about two sentences,
 * 40–80 words) whose text is an exact slice of the page Markdown.
 *
 * The work is written once as steps ({@link Steps}): {@link chunkMarkdown}
 * runs them at once, {@link chunkMarkdownPaced} pauses between them with
 * the shared pacer, so a server keeps answering while a huge page is cut
 * (a 200,000-character page took hundreds of milliseconds in one go).
 *
 * @module
 */
import { runPaced, runSteps, type Steps } from "../async/pace.ts";
import { isLowSurrogate } from "./tokens.ts";

/** A unit of page text: `markdown.slice(start, end) === text`. */
export interface Unit {
  /** The original text, unedited. */
  text: string;
  /** Offset of the first character in the page Markdown. */
  start: number;
  /** Offset after the last character. */
  end: number;
  /** Heading path above the unit, outermost first. */
  headings: string[];
}

/** Sizes used by {@link chunkMarkdown}. */
export interface ChunkOptions {
  /** A unit smaller than this takes in the next block of its section (default 40 words). */
  minWords?: number;
  /** Units grow up to this many words when possible (default 80 words). */
  maxWords?: number;
  /** Code blocks up to this many characters stay whole (default 2400). */
  maxCodeChars?: number;
}

type BlockKind = "heading" | "code" | "table" | "item" | "para";

interface Block {
  kind: BlockKind;
  start: number;
  end: number;
  level?: number;
  title?: string;
  /** Line ranges (tables and code). */
  lines?: [number, number][];
}

interface Span {
  start: number;
  end: number;
  words: number;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const HEADING = /^#{1,6}\s/;
const TABLE_ROW = /^\s*\|/;
const ITEM = /^(\s*)(?:[-+*]|\d{1,9}[.)])\s+/;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const ABBREVIATIONS = new Set([
  "mr",
  "mrs",
  "ms",
  "dr",
  "prof",
  "sr",
  "jr",
  "st",
  "vs",
  "etc",
  "e.g",
  "i.e",
  "fig",
  "no",
  "inc",
  "ltd",
  "co",
  "u.s",
  "jan",
  "feb",
  "mar",
  "apr",
  "jun",
  "jul",
  "aug",
  "sep",
  "sept",
  "oct",
  "nov",
  "dec",
]);

/**
 * Approximate word count: whitespace-separated words, with CJK characters
 * counted as half a word each.
 *
 * @example
 * ```ts
 * import { wordCount } from "./chunk.ts";
 * console.assert(wordCount("two words") === 2);
 * ```
 */
export function wordCount(text: string): number {
  let cjk = 0;
  const stripped = text.replace(CJK, () => {
    cjk++;
    return " ";
  });
  const words = stripped.match(/[^\s#|>*_`~-]+/g)?.length ?? 0;
  return words + cjk / 2;
}

/** Texts longer than this are counted in slices, with a step between two slices. */
const WORD_SLICE_CHARS = 2048;

/**
 * A character where no word goes on: one that {@link wordCount} skips, or a
 * CJK character (counted on its own).
 */
const WORD_STOP =
  /[\s#|>*_`~\-]|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/**
 * {@link wordCount} in steps: a long text is counted in slices of about
 * {@link WORD_SLICE_CHARS} characters, each cut where a {@link WORD_STOP}
 * character starts, so no word spans two slices and the sum is exact.
 */
function* countWords(text: string): Steps<number> {
  if (text.length <= WORD_SLICE_CHARS) return wordCount(text);
  let total = 0;
  const stop = new RegExp(WORD_STOP.source, WORD_STOP.flags);
  for (let from = 0; from < text.length;) {
    let to = from + WORD_SLICE_CHARS;
    if (to < text.length) {
      stop.lastIndex = to;
      const m = stop.exec(text);
      to = m && m.index > from ? m.index : text.length;
    }
    total += wordCount(text.slice(from, to));
    from = to;
    yield;
  }
  return total;
}

interface Line {
  start: number;
  end: number;
  text: string;
}

function splitLines(md: string): Line[] {
  const lines: Line[] = [];
  let pos = 0;
  while (pos <= md.length) {
    const nl = md.indexOf("\n", pos);
    const end = nl === -1 ? md.length : nl;
    lines.push({ start: pos, end, text: md.slice(pos, end) });
    if (nl === -1) break;
    pos = nl + 1;
  }
  return lines;
}

const isBlank = (l: Line) => l.text.trim() === "";
const indentOf = (t: string) => t.length - t.trimStart().length;
const startsBlock = (t: string) =>
  FENCE.test(t) || HEADING.test(t) || TABLE_ROW.test(t) || ITEM.test(t);

/** Blocks parsed between two steps. */
const BLOCKS_PER_STEP = 64;

function* parseBlocks(md: string): Steps<Block[]> {
  const lines = splitLines(md);
  yield;
  const blocks: Block[] = [];
  let i = 0;
  for (let step = 1; i < lines.length; step++) {
    if (step % BLOCKS_PER_STEP === 0) yield;
    const line = lines[i];
    const t = line.text;
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = t.match(FENCE);
    if (fence) {
      const mark = fence[1];
      const close = new RegExp(`^\\s{0,3}${mark[0] === "`" ? "`" : "~"}{${mark.length},}\\s*$`);
      let j = i + 1;
      while (j < lines.length && !close.test(lines[j].text)) j++;
      const last = Math.min(j, lines.length - 1);
      blocks.push({
        kind: "code",
        start: line.start,
        end: lines[last].end,
        lines: lines.slice(i, last + 1).map((l) => [l.start, l.end]),
      });
      i = last + 1;
      continue;
    }
    if (HEADING.test(t)) {
      const level = t.match(/^#+/)![0].length;
      const title = t.replace(/^#+\s+/, "").replace(/\s+#+\s*$/, "").replace(/\[edit\]$/i, "")
        .trim();
      blocks.push({ kind: "heading", start: line.start, end: line.end, level, title });
      i++;
      continue;
    }
    if (TABLE_ROW.test(t)) {
      let j = i;
      while (j < lines.length && TABLE_ROW.test(lines[j].text)) j++;
      blocks.push({
        kind: "table",
        start: line.start,
        end: lines[j - 1].end,
        lines: lines.slice(i, j).map((l) => [l.start, l.end]),
      });
      i = j;
      continue;
    }
    const item = t.match(ITEM);
    let j = i + 1;
    if (item) {
      const indent = item[1].length;
      while (j < lines.length) {
        const next = lines[j];
        if (isBlank(next)) {
          let k = j + 1;
          while (k < lines.length && isBlank(lines[k])) k++;
          if (
            k < lines.length && indentOf(lines[k].text) > indent && !ITEM.test(lines[k].text) &&
            !FENCE.test(lines[k].text)
          ) {
            j = k;
            continue;
          }
          break;
        }
        if (startsBlock(next.text)) break;
        j++;
      }
    } else {
      while (j < lines.length && !isBlank(lines[j]) && !startsBlock(lines[j].text)) j++;
    }
    blocks.push({ kind: item ? "item" : "para", start: line.start, end: lines[j - 1].end });
    i = j;
  }
  return blocks;
}

/** Trims whitespace off a span of `md`. */
function trimSpan(md: string, start: number, end: number): [number, number] {
  while (start < end && /\s/.test(md[start])) start++;
  while (end > start && /\s/.test(md[end - 1])) end--;
  return [start, end];
}

const SENTENCE_END = /[.!?…。！？](?:\[\d+\])*["'”’)\]]*(?:\[\d+\])*(?=\s+|$)|[。！？]/gu;

/** Sentence spans of md[start, end). */
function* sentences(md: string, start: number, end: number): Steps<Span[]> {
  const text = md.slice(start, end);
  const out: Span[] = [];
  let from = 0;
  let step = 0;
  // A pattern of its own: while this one pauses, another page may be cut.
  const re = new RegExp(SENTENCE_END.source, SENTENCE_END.flags);
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (++step % BLOCKS_PER_STEP === 0) yield;
    const stop = m.index + m[0].length;
    const before = text.slice(from, m.index + 1).match(/([^\s(]+)\.$/)?.[1]?.toLowerCase();
    const after = text.slice(stop).match(/^\s*(\S)/)?.[1] ?? "";
    if (before && (ABBREVIATIONS.has(before) || /^\p{L}$/u.test(before))) continue;
    if (after && /\p{Ll}/u.test(after)) continue;
    const [s, e] = trimSpan(md, start + from, start + stop);
    if (e > s) out.push({ start: s, end: e, words: yield* countWords(md.slice(s, e)) });
    from = stop;
  }
  const [s, e] = trimSpan(md, start + from, end);
  if (e > s) out.push({ start: s, end: e, words: yield* countWords(md.slice(s, e)) });
  return out;
}

/**
 * Splits a very long sentence at whitespace every `maxWords` words. A run
 * without whitespace worth more than `maxWords` words (CJK text) is cut every `maxWords` characters (never inside a
 * surrogate pair): a CJK character costs about a token, as a word does,
 * though it counts as half a word. Kept whole, a 200,000-character CJK
 * paragraph became one unit that no budget could hold.
 */
function* hardSplit(md: string, span: Span, maxWords: number): Steps<Span[]> {
  const out: Span[] = [];
  const re = /\S+/g;
  const text = md.slice(span.start, span.end);
  const runChars = Math.max(1, Math.floor(maxWords));
  let count = 0;
  let pieceStart = -1;
  let lastEnd = 0;
  let step = 0;
  const flush = () => {
    if (pieceStart >= 0 && lastEnd > pieceStart) {
      out.push({ start: span.start + pieceStart, end: span.start + lastEnd, words: count });
    }
    pieceStart = -1;
    count = 0;
  };
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (++step % BLOCKS_PER_STEP === 0) yield;
    const words = Math.max(1, yield* countWords(m[0]));
    if (words > maxWords) {
      flush();
      const end = m.index + m[0].length;
      for (let at = m.index; at < end;) {
        let next = Math.min(end, at + runChars);
        if (next < end && isLowSurrogate(text, next)) next++;
        // Weighed a word per character, so that grouping does not merge the cuts again.
        out.push({ start: span.start + at, end: span.start + next, words: next - at });
        at = next;
        if (++step % BLOCKS_PER_STEP === 0) yield;
      }
      lastEnd = end;
      continue;
    }
    if (count >= maxWords) flush();
    if (pieceStart < 0) pieceStart = m.index;
    count += words;
    lastEnd = m.index + m[0].length;
  }
  flush();
  return out;
}

/** Groups sentences: about two sentences, between minWords and maxWords. */
function* sentenceGroups(
  md: string,
  start: number,
  end: number,
  o: Required<ChunkOptions>,
): Steps<Span[]> {
  const groups: Span[] = [];
  let cur: (Span & { n: number }) | null = null;
  for (const s0 of yield* sentences(md, start, end)) {
    for (const s of s0.words > o.maxWords * 1.5 ? yield* hardSplit(md, s0, o.maxWords) : [s0]) {
      if (cur && (cur.words + s.words > o.maxWords || (cur.n >= 2 && cur.words >= o.minWords))) {
        groups.push(cur);
        cur = null;
      }
      cur = cur
        ? { start: cur.start, end: s.end, words: cur.words + s.words, n: cur.n + 1 }
        : { ...s, n: 1 };
    }
  }
  if (cur) groups.push(cur);
  return groups.map(({ start, end, words }) => ({ start, end, words }));
}

/** Splits line ranges into pieces whose size stays under `limit` (by measure). */
function lineGroups(
  lines: [number, number][],
  limit: number,
  measure: (s: number, e: number) => number,
): [number, number][] {
  const out: [number, number][] = [];
  let cur: [number, number] | null = null;
  let size = 0;
  for (const [s, e] of lines) {
    const n = measure(s, e);
    if (cur && size + n > limit) {
      out.push(cur);
      cur = null;
      size = 0;
    }
    cur = cur ? [cur[0], e] : [s, e];
    size += n;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Splits page Markdown into units. Headings start a new unit and go into the
 * heading path (a heading with nothing under it becomes a unit of its own);
 * fenced code stays whole (huge blocks split between lines); tables split
 * between rows; short list items stay whole.
 *
 * @example
 * ```ts
 * import { chunkMarkdown } from "./chunk.ts";
 * const md = "# Tides\n\nTides rise. They fall.\n\n## Moon\n\nThe Moon pulls the sea.";
 * const units = chunkMarkdown(md);
 * console.assert(units.every((u) => md.slice(u.start, u.end) === u.text));
 * console.assert(units[1].headings.join(" > ") === "Tides > Moon");
 * ```
 */
export function chunkMarkdown(markdown: string, options: ChunkOptions = {}): Unit[] {
  return runSteps(chunkSteps(markdown, options));
}

/**
 * {@link chunkMarkdown} that pauses with the shared pacer (`async/pace.ts`)
 * between bounded steps: the same units, while a server keeps answering.
 *
 * @example
 * ```ts
 * import { chunkMarkdown, chunkMarkdownPaced } from "./chunk.ts";
 * const md = "# Tides\n\n" + "Tides rise. They fall twice a day.\n\n".repeat(2000);
 * const units = await chunkMarkdownPaced(md);
 * console.assert(JSON.stringify(units) === JSON.stringify(chunkMarkdown(md)));
 * ```
 */
export function chunkMarkdownPaced(markdown: string, options: ChunkOptions = {}): Promise<Unit[]> {
  return runPaced(chunkSteps(markdown, options));
}

function* chunkSteps(markdown: string, options: ChunkOptions): Steps<Unit[]> {
  const o: Required<ChunkOptions> = {
    minWords: options.minWords ?? 40,
    maxWords: options.maxWords ?? 80,
    maxCodeChars: options.maxCodeChars ?? 2400,
  };
  const blocks = yield* parseBlocks(markdown);
  const units: Unit[] = [];
  let path: { level: number; title: string }[] = [];
  let pending: Span | null = null;
  const headings = () => path.map((h) => h.title);
  const emit = (start: number, end: number) => {
    const [s, e] = trimSpan(markdown, start, end);
    if (e > s) units.push({ text: markdown.slice(s, e), start: s, end: e, headings: headings() });
  };
  const flush = () => {
    if (pending) emit(pending.start, pending.end);
    pending = null;
  };
  for (let b = 0; b < blocks.length; b++) {
    if (b % BLOCKS_PER_STEP === 0) yield;
    const block = blocks[b];
    if (block.kind === "heading") {
      flush();
      path = path.filter((h) => h.level < block.level!);
      const next = blocks[b + 1];
      if (!next || next.kind === "heading") emit(block.start, block.end);
      path.push({ level: block.level!, title: block.title! });
      continue;
    }
    if (block.kind === "code") {
      flush();
      if (block.end - block.start <= o.maxCodeChars) emit(block.start, block.end);
      else {
        for (
          const [s, e] of lineGroups(block.lines!, (o.maxCodeChars * 2) / 3, (s, e) => e - s + 1)
        ) {
          emit(s, e);
        }
      }
      continue;
    }
    if (block.kind === "table") {
      flush();
      const measure = (s: number, e: number) => Math.max(1, wordCount(markdown.slice(s, e)));
      for (const [s, e] of lineGroups(block.lines!, o.maxWords, measure)) {
        // A huge row (a layout table holding a whole article) splits like prose.
        if (measure(s, e) <= o.maxWords * 1.5) emit(s, e);
        else for (const g of yield* sentenceGroups(markdown, s, e, o)) emit(g.start, g.end);
      }
      continue;
    }
    const words = yield* countWords(markdown.slice(block.start, block.end));
    const pieces = words <= o.maxWords
      ? [{ start: block.start, end: block.end, words }]
      : yield* sentenceGroups(markdown, block.start, block.end, o);
    for (const piece of pieces) {
      const p = pending as Span | null;
      if (p && p.words < o.minWords && p.words + piece.words <= o.maxWords) {
        pending = { start: p.start, end: piece.end, words: p.words + piece.words };
      } else {
        flush();
        pending = piece;
      }
    }
  }
  flush();
  return units;
}
