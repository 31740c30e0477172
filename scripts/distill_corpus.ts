/**
 * Training texts and teacher outputs for `scripts/distill_static_model.ts`.
 *
 * The texts come only from corpora the project may train on:
 *
 * - `shared/testdata/extraction-dev`, ground-truth `article_body` of the
 *   `wcxb` (CC BY 4.0), `fundus-eval` and `fundus-fixtures` (MIT) parts; never
 *   the `dragnet` part (AGPL-3.0);
 * - `shared/testdata/readability-test-pages` (Apache-2.0), `expected.html`
 *   of the pages whose questions in `bench/questions.json` are all in the
 *   `tune` half. Pages of the `report` half, and pages with no question (they
 *   can be distractors of a `report` question), are never read.
 *
 * Each text is a sentence or a paragraph of 4 to 64 words (USE-lite's input is
 * cut at 64 words by Gleaner too), kept only when most of its words are in the
 * student's vocabulary (the multilingual fundus pages are mostly left out
 * that way). The texts are shuffled with a fixed seed, so any prefix of the
 * list is a random sample and the teacher can stop and resume anywhere.
 *
 * The teacher's vectors are cached in a folder (default `.cache/distill/`,
 * git-ignored) as raw little-endian float32 rows of 512 beside a JSON-lines
 * file of the texts in the same order; a run appends what is missing.
 *
 * @module
 */
import { createUseLiteEmbedder } from "../lib/embed/use_lite.ts";
import { rng, shuffle } from "../lib/memory/testdata/rng.ts";

/** Dimension of the teacher's vectors. */
export const TEACHER_DIMS = 512;
/** Longest text given to the teacher (words), as `rank.rerank: "use-lite"` does. */
export const MAX_WORDS = 64;
/** Shortest text kept (words). */
export const MIN_WORDS = 4;
/** Least share of a text's words that must be in the vocabulary. */
export const MIN_KNOWN = 0.8;

const TESTDATA = decodeURIComponent(new URL("../../shared/testdata/", import.meta.url).pathname);
const READABILITY = `${TESTDATA}readability-test-pages`;
const EXTRACTION_DEV = `${TESTDATA}extraction-dev`;

/** Parts of extraction-dev that may be trained on, with their licence files. */
export const EXTRACTION_DEV_PARTS: Record<string, string> = {
  "wcxb": "LICENSES/wcxb-CC-BY-4.0.txt",
  "fundus-eval": "LICENSES/fundus-evaluation-MIT.txt",
  "fundus-fixtures": "LICENSES/fundus-MIT.txt",
};

function decodeEntities(text: string): string {
  const named: Record<string, string> = {
    amp: "&",
    lt: "<",
    gt: ">",
    quot: '"',
    apos: "'",
    nbsp: " ",
    mdash: "—",
    ndash: "–",
    rsquo: "’",
    lsquo: "‘",
    rdquo: "”",
    ldquo: "“",
    hellip: "…",
  };
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (all, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X"
        ? parseInt(body.slice(2), 16)
        : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000
        ? String.fromCodePoint(code)
        : " ";
    }
    return named[body.toLowerCase()] ?? all;
  });
}

/** Paragraph texts of an `expected.html` (block elements become breaks). */
function htmlParagraphs(html: string): string[] {
  const text = html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, " ")
    .replace(
      /<\/?(p|div|li|h[1-6]|blockquote|pre|tr|td|th|br|section|article|figure)[^>]*>/gi,
      "\n\n",
    )
    .replace(/<[^>]+>/g, " ");
  return decodeEntities(text).split(/\n\s*\n/).map((p) => p.replace(/\s+/g, " ").trim()).filter(
    Boolean,
  );
}

/** Sentences of a paragraph (a plain splitter: end mark, space, capital or quote). */
function sentences(paragraph: string): string[] {
  return paragraph.split(/(?<=[.!?]["”’)]?)\s+(?=["“‘(]?[A-Z0-9])/).map((s) => s.trim())
    .filter(Boolean);
}

/** Pages of the readability corpus whose questions are all in the `tune` half. */
export async function tunePages(): Promise<string[]> {
  const questions = JSON.parse(
    await Deno.readTextFile(new URL("../bench/questions.json", import.meta.url)),
  ) as { page: string; half: string }[];
  const halves = new Map<string, Set<string>>();
  for (const q of questions) {
    if (!halves.has(q.page)) halves.set(q.page, new Set());
    halves.get(q.page)!.add(q.half);
  }
  return [...halves].filter(([, h]) => h.size === 1 && h.has("tune")).map(([p]) => p).sort();
}

/** Counts of the corpus, for the model's README. */
export interface CorpusStats {
  /** Documents read per source. */
  documents: Record<string, number>;
  /** Texts kept per source. */
  texts: Record<string, number>;
}

/**
 * Every training text (deduplicated, shuffled with `seed`), with counts.
 * `known(word)` tells whether a lower-cased word is in the student's vocabulary.
 */
export async function trainingTexts(
  known: (word: string) => boolean,
  seed: number,
): Promise<{ texts: string[]; stats: CorpusStats }> {
  const documents: Record<string, number> = {};
  const kept: Record<string, number> = {};
  const seen = new Set<string>();
  const texts: string[] = [];
  const add = (source: string, text: string) => {
    const words = text.split(/\s+/).filter(Boolean);
    if (words.length < MIN_WORDS) return;
    const capped = words.slice(0, MAX_WORDS).join(" ");
    const tokens = capped.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    if (tokens.length < MIN_WORDS) return;
    const hits = tokens.filter(known).length;
    if (hits / tokens.length < MIN_KNOWN) return;
    if (seen.has(capped)) return;
    seen.add(capped);
    texts.push(capped);
    kept[source] = (kept[source] ?? 0) + 1;
  };
  const addParagraphs = (source: string, paragraphs: string[]) => {
    documents[source] = (documents[source] ?? 0) + 1;
    for (const p of paragraphs) {
      const parts = sentences(p);
      for (const s of parts) add(source, s);
      if (parts.length > 1) add(source, p);
    }
  };
  for (const page of await tunePages()) {
    const html = await Deno.readTextFile(`${READABILITY}/${page}/expected.html`);
    addParagraphs("readability-test-pages (tune half)", htmlParagraphs(html));
  }
  const truth = await Deno.readTextFile(`${EXTRACTION_DEV}/truth.jsonl`);
  for (const line of truth.split("\n")) {
    if (!line.trim()) continue;
    const row = JSON.parse(line) as { source_dataset: string; article_body: string };
    if (!(row.source_dataset in EXTRACTION_DEV_PARTS)) continue;
    addParagraphs(
      `extraction-dev ${row.source_dataset}`,
      row.article_body.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, " ").trim()).filter(Boolean),
    );
  }
  shuffle(rng(seed), texts);
  return { texts, stats: { documents, texts: kept } };
}

/** A cache of teacher vectors: texts (JSON lines) and float32 rows in the same order. */
export interface TeacherCache {
  /** Texts done, in order. */
  texts: string[];
  /** Their vectors, `texts.length * 512` floats. */
  vectors: Float32Array;
}

/** Reads a cache (`name.jsonl` + `name.f32`), cut to the rows present in both. */
export async function readCache(dir: string, name: string): Promise<TeacherCache> {
  let texts: string[] = [];
  let bytes = new Uint8Array(0);
  try {
    texts = (await Deno.readTextFile(`${dir}/${name}.jsonl`)).split("\n").filter(Boolean).map((
      l,
    ) => JSON.parse(l));
    bytes = await Deno.readFile(`${dir}/${name}.f32`);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const rows = Math.min(texts.length, Math.floor(bytes.length / (TEACHER_DIMS * 4)));
  const vectors = new Float32Array(rows * TEACHER_DIMS);
  new Uint8Array(vectors.buffer).set(bytes.subarray(0, rows * TEACHER_DIMS * 4));
  return { texts: texts.slice(0, rows), vectors };
}

/**
 * Embeds with the teacher every text of `wanted` past the cached prefix, up to
 * `limit` texts in all, appending to the cache every batch; returns the cache.
 * The cache must be a prefix of `wanted` (else it is rebuilt from scratch).
 */
export async function fillCache(
  dir: string,
  name: string,
  wanted: string[],
  limit: number,
  progress: (done: number, total: number, perSecond: number) => void,
): Promise<TeacherCache> {
  await Deno.mkdir(dir, { recursive: true });
  let cache = await readCache(dir, name);
  const prefixOk = cache.texts.every((t, i) => wanted[i] === t);
  if (!prefixOk) cache = { texts: [], vectors: new Float32Array(0) };
  // Cut the files to the rows both hold (a run stopped mid-write leaves one longer).
  await Deno.writeTextFile(
    `${dir}/${name}.jsonl`,
    cache.texts.map((t) => JSON.stringify(t) + "\n").join(""),
  );
  await Deno.writeFile(`${dir}/${name}.f32`, new Uint8Array(cache.vectors.buffer));
  const target = Math.min(limit, wanted.length);
  if (cache.texts.length >= target) {
    // Exactly the first `limit`: a longer cache (a later, bigger run) gives the same build.
    return {
      texts: cache.texts.slice(0, target),
      vectors: cache.vectors.slice(0, target * TEACHER_DIMS),
    };
  }
  const teacher = await createUseLiteEmbedder({ maxWords: MAX_WORDS, batchSize: 32, lruSize: 0 });
  const started = performance.now();
  const startCount = cache.texts.length;
  try {
    const batch = 256;
    for (let i = cache.texts.length; i < target; i += batch) {
      const texts = wanted.slice(i, Math.min(target, i + batch));
      const vectors = await teacher.embedDocuments(texts);
      const flat = new Float32Array(texts.length * TEACHER_DIMS);
      vectors.forEach((v, k) => flat.set(v, k * TEACHER_DIMS));
      await Deno.writeFile(`${dir}/${name}.f32`, new Uint8Array(flat.buffer), { append: true });
      await Deno.writeTextFile(
        `${dir}/${name}.jsonl`,
        texts.map((t) => JSON.stringify(t) + "\n").join(""),
        { append: true },
      );
      const done = i + texts.length;
      progress(done, target, (done - startCount) / ((performance.now() - started) / 1000));
    }
  } finally {
    await teacher.close?.();
  }
  const done = await readCache(dir, name);
  return {
    texts: done.texts.slice(0, target),
    vectors: done.vectors.slice(0, target * TEACHER_DIMS),
  };
}
