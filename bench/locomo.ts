/**
 * Memory recall judged on real conversations: locomo-dev (five LoCoMo
 * conversations, questions written by people with the turns that answer
 * them; LoCoMo, Maharana et al., 2024, CC BY-NC 4.0; `bench/lib/locomo_data.ts`
 * reads it). Each conversation is one user's store (a real SQLite file
 * through the real {@link MemoryService} with the static model); every turn
 * is saved as one memory, one `save` call per session, `session_id` the
 * session. Each question of categories 1–4 is recalled across the whole
 * store with `top_k` 5 and 10 and the default budget. Two ways of saving a
 * turn are measured: `fields` (the text, with the session's date as
 * `occurred_at` and the speaker as `author`) and `text` (the procedure of
 * locomo-dev's README: `[<session date>] <speaker>: <text>` as the content).
 *
 * Reported: recall@5 and recall@10 (the share of a question's evidence turns
 * among the memories a recall with `top_k` 5 / 10 returns, their attached
 * context included, averaged over questions) overall, by
 * category (multi-hop, temporal, open-domain, single-hop) and by
 * conversation; the tokens of each recall as the model receives it
 * (`renderRecall`, o200k); recall latency p50/p95 in process (query
 * embedding included); and plain Okapi BM25 (k1 1.2, b 0.75, lowercase word
 * tokens) over the same turns beside it.
 *
 * `deno task bench locomo`, or alone: `deno run -A bench/locomo.ts`.
 *
 * @module
 */
import { createStaticEmbedder } from "../lib/embed/static.ts";
import type { Embedder } from "../lib/embed/types.ts";
import { countTokens } from "../lib/text/tokens.ts";
import { renderRecall } from "../lib/memory/render.ts";
import { MemoryService, type MemoryServiceOptions } from "../lib/memory/service.ts";
import { openSqliteMemoryBackend } from "../lib/memory/sqlite/backend.ts";
import type { RecallMemoriesResult, SaveMemoryInput } from "../lib/memory/types.ts";
import {
  loadLocomo,
  LOCOMO_CATEGORIES,
  type LocomoConversation,
  type LocomoQuestion,
  type LocomoTurn,
} from "./lib/locomo_data.ts";
import { percentile, words } from "../testing/text_metrics.ts";

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

/** Options of {@link runLocomoBench}. */
export interface LocomoBenchOptions {
  /** The locomo-dev folder (default `LOCOMO_DEV_DIR`). */
  dir?: string;
  /** Only these conversations (default all five). */
  conversations?: string[];
  /** Service settings to measure (default: the defaults). */
  service?: MemoryServiceOptions;
  /**
   * Also choose settings by leave-one-conversation-out cross-validation over
   * {@link CV_GRID} (on the `fields` stores, at `maxTokens` or the default
   * budget, within {@link CV_TOKEN_TARGET} tokens per recall); several minutes more.
   */
  crossValidate?: boolean;
  /** `max_tokens` of each recall (default: the service's budget). */
  maxTokens?: number;
  /** How turns are saved (default both, `fields` first). */
  formats?: TurnFormat[];
}

/** How a turn is saved: date and speaker as fields, or written into the text. */
export type TurnFormat = "fields" | "text";

/**
 * A turn as one memory: `fields`, the text with `occurred_at` (the session's
 * date) and `author` (the speaker); `text`, `[<session date>] <speaker>: <text>`
 * (the README's procedure). `session_id` is the session.
 */
export function turnMemory(turn: LocomoTurn, format: TurnFormat): SaveMemoryInput {
  const session_id = `session-${turn.session}`;
  return format === "fields"
    ? {
      content: turn.text,
      session_id,
      occurred_at: new Date(turn.date).toISOString(),
      author: turn.speaker,
    }
    : { content: `[${turn.date_text}] ${turn.speaker}: ${turn.text}`, session_id };
}

/** Recall of one group of questions (and the tokens of its recalls at 10, when measured). */
interface Summary {
  questions: number;
  recall_at_5: number;
  recall_at_10: number;
  tokens_per_recall_at_10?: number;
}

/** Sums of one group of questions. */
class Tally {
  questions = 0;
  r5 = 0;
  r10 = 0;
  tokens10 = 0;
  add(r5: number, r10: number, tokens10?: number) {
    this.questions++;
    this.r5 += r5;
    this.r10 += r10;
    this.tokens10 += tokens10 ?? 0;
  }
  summary(): Summary {
    const n = Math.max(1, this.questions);
    return {
      questions: this.questions,
      recall_at_5: round(this.r5 / n),
      recall_at_10: round(this.r10 / n),
      ...(this.tokens10 > 0 ? { tokens_per_recall_at_10: Math.round(this.tokens10 / n) } : {}),
    };
  }
}

/** Tallies overall, by category and by conversation. */
class Tallies {
  all = new Tally();
  byCategory = new Map<number, Tally>();
  byConversation = new Map<string, Tally>();
  add(conversation: string, q: LocomoQuestion, r5: number, r10: number, tokens10?: number) {
    this.all.add(r5, r10, tokens10);
    const cat = this.byCategory.get(q.category) ?? new Tally();
    cat.add(r5, r10, tokens10);
    this.byCategory.set(q.category, cat);
    const conv = this.byConversation.get(conversation) ?? new Tally();
    conv.add(r5, r10, tokens10);
    this.byConversation.set(conversation, conv);
  }
  summary() {
    const byCategory: Record<string, unknown> = {};
    for (const [n, name] of Object.entries(LOCOMO_CATEGORIES)) {
      const t = this.byCategory.get(Number(n));
      if (t) byCategory[name] = t.summary();
    }
    const byConversation: Record<string, Summary> = {};
    for (const [id, t] of [...this.byConversation].sort()) byConversation[id] = t.summary();
    return { ...this.all.summary(), by_category: byCategory, by_conversation: byConversation };
  }
}

/** Ids of the memories a recall returns: the recalled ones and their context. */
function returnedIds(out: RecallMemoriesResult): number[] {
  return out.memories.flatMap((m) => [m.id, ...(m.context ?? []).map((c) => c.id)]);
}

/** Share of `evidence` (turn indexes) among `got`. */
function share(evidence: readonly number[], got: ReadonlySet<number>): number {
  return evidence.filter((i) => got.has(i)).length / evidence.length;
}

/**
 * Plain Okapi BM25 (k1 1.2, b 0.75) over lowercase word tokens, the
 * reference beside Gleaner's recall.
 */
class PlainBm25 {
  #docs: Map<string, number>[] = [];
  #lengths: number[] = [];
  #df = new Map<string, number>();
  #avg = 0;
  constructor(texts: readonly string[]) {
    for (const text of texts) {
      const tf = new Map<string, number>();
      const ws = words(text);
      for (const w of ws) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const w of tf.keys()) this.#df.set(w, (this.#df.get(w) ?? 0) + 1);
      this.#docs.push(tf);
      this.#lengths.push(ws.length);
    }
    this.#avg = this.#lengths.reduce((a, b) => a + b, 0) / Math.max(1, texts.length);
  }
  top(query: string, k: number): number[] {
    const n = this.#docs.length;
    const terms = [...new Set(words(query))];
    const scores = this.#docs.map((tf, i) => {
      let s = 0;
      for (const t of terms) {
        const f = tf.get(t);
        if (!f) continue;
        const df = this.#df.get(t)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        s += idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * this.#lengths[i] / this.#avg));
      }
      return { i, s };
    });
    return scores.filter((x) => x.s > 0).sort((a, b) => b.s - a.s || a.i - b.i).slice(0, k)
      .map((x) => x.i);
  }
}

/** Saves one conversation into a fresh store at `path`; answers each turn's memory id. */
async function build(
  path: string,
  embedder: Embedder,
  conv: LocomoConversation,
  format: TurnFormat,
): Promise<{ ids: number[]; duplicates: number }> {
  const service = new MemoryService(openSqliteMemoryBackend(path), {
    embedder: () => Promise.resolve(embedder),
  });
  const ids: number[] = [];
  let duplicates = 0;
  try {
    await service.ready();
    const sessions = [...new Set(conv.turns.map((t) => t.session))];
    for (const s of sessions) {
      const turns = conv.turns.filter((t) => t.session === s);
      const out = await service.save({ memories: turns.map((t) => turnMemory(t, format)) });
      duplicates += out.duplicates;
      for (const r of out.results) ids.push(r.id);
    }
  } finally {
    await service.close();
  }
  return { ids, duplicates };
}

/** The stores of every conversation saved as one format: each file and its turns' memory ids. */
export type Stores = Map<string, { path: string; ids: number[] }>;

/** Builds a store per conversation, its turns saved as `format`. */
export async function buildAll(
  root: string,
  embedder: Embedder,
  conversations: readonly LocomoConversation[],
  format: TurnFormat,
): Promise<{ stores: Stores; duplicates: number }> {
  const stores: Stores = new Map();
  let duplicates = 0;
  for (const conv of conversations) {
    const path = `${root}/${conv.id}-${format}.db`;
    const built = await build(path, embedder, conv, format);
    duplicates += built.duplicates;
    stores.set(conv.id, { path, ids: built.ids });
  }
  return { stores, duplicates };
}

/**
 * Gleaner's recall of every question on the built stores, with `settings`;
 * with `vectors` (each question's, embedded once) the recalls skip the
 * query embedding (a grid of settings runs faster; latency then leaves it out).
 */
export async function recallAll(
  stores: Stores,
  embedder: Embedder,
  conversations: readonly LocomoConversation[],
  settings: MemoryServiceOptions | undefined,
  maxTokens: number | undefined,
  vectors?: ReadonlyMap<string, Float32Array>,
): Promise<Record<string, unknown> & { by_conversation: Record<string, Summary> }> {
  const budget = maxTokens !== undefined ? { max_tokens: maxTokens } : {};
  const tallies = new Tallies();
  const latencies: number[] = [];
  let questions = 0;
  let tokens5 = 0;
  let tokens10 = 0;
  let returned10 = 0;
  // GLEANER_LOCOMO_DUMP=<file>: every recall's memories and their context, in order (to check
  // that a speed change recalls the same: `diff` two dumps).
  const dump = Deno.env.get("GLEANER_LOCOMO_DUMP");
  const order = (out: RecallMemoriesResult) =>
    out.memories.map((m) => [m.id, m.tokens, ...(m.context ?? []).map((c) => c.id)]);
  for (const conv of conversations) {
    const { path, ids } = stores.get(conv.id)!;
    // A turn saved as a duplicate of an earlier one counts as found with it;
    // a recalled memory's context counts as returned.
    const turnsOf = (out: RecallMemoriesResult) => {
      const got = new Set(returnedIds(out));
      return new Set(ids.flatMap((id, i) => got.has(id) ? [i] : []));
    };
    const service = new MemoryService(openSqliteMemoryBackend(path), {
      ...settings,
      embedder: () => Promise.resolve(embedder),
    });
    try {
      await service.ready();
      // Warm-up: the vector index and the tokenizer.
      for (const q of conv.questions.slice(0, 5)) await service.recall({ query: q.question });
      for (const q of conv.questions) {
        const t = performance.now();
        const given = vectors?.get(q.question);
        const options = given ? { queryVector: given } : {};
        const out10 = await service.recall({ query: q.question, top_k: 10, ...budget }, options);
        latencies.push(performance.now() - t);
        const out5 = await service.recall({ query: q.question, top_k: 5, ...budget }, options);
        const rendered10 = countTokens(renderRecall(out10));
        if (dump) {
          const line = {
            conv: conv.id,
            question: q.question,
            at10: order(out10),
            at5: order(out5),
          };
          Deno.writeTextFileSync(dump, JSON.stringify(line) + "\n", { append: true });
        }
        tokens10 += rendered10;
        tokens5 += countTokens(renderRecall(out5));
        returned10 += returnedIds(out10).length;
        questions++;
        tallies.add(
          conv.id,
          q,
          share(q.evidence, turnsOf(out5)),
          share(q.evidence, turnsOf(out10)),
          rendered10,
        );
      }
    } finally {
      await service.close();
    }
  }
  return {
    ...tallies.summary(),
    tokens_per_recall_at_5: Math.round(tokens5 / questions),
    tokens_per_recall_at_10: Math.round(tokens10 / questions),
    turns_per_recall_at_10: round(returned10 / questions, 1),
    recall_latency_ms: {
      p50: round(percentile(latencies, 50), 2),
      p95: round(percentile(latencies, 95), 2),
    },
  };
}

/**
 * The settings the cross-validation chooses among (numeric
 * `MemoryServiceOptions`): the context's allowance and reach; the other
 * conversation settings stay at their defaults (chosen earlier the same way:
 * time weight 3, dense depth 40).
 */
export const CV_GRID: readonly MemoryServiceOptions[] = [[2, 2], [3, 3]].flatMap((
  [contextBefore, contextAfter],
) =>
  [0, 150, 200, 230, 260, 300].map((contextMaxTokens) => ({
    contextMaxTokens,
    contextBefore,
    contextAfter,
  }))
);

/** Tokens per recall (`top_k` 10, rendered) the cross-validation's choice may cost on the four. */
export const CV_TOKEN_TARGET = 1_000;

/**
 * Leave one conversation out: for each conversation, the settings of
 * {@link CV_GRID} with the best recall@10 on the other four among those
 * whose recalls there cost at most {@link CV_TOKEN_TARGET} tokens on average
 * (at the default budget unless `maxTokens`), measured on it; the held-out
 * figures pooled over all questions. Query vectors are embedded once.
 */
async function crossValidate(
  stores: Stores,
  embedder: Embedder,
  conversations: readonly LocomoConversation[],
  maxTokens: number | undefined,
): Promise<Record<string, unknown>> {
  const vectors = new Map<string, Float32Array>();
  for (const q of conversations.flatMap((c) => c.questions)) {
    if (!vectors.has(q.question)) {
      vectors.set(q.question, (await embedder.embedQueries([q.question]))[0]);
    }
  }
  const runs: { settings: MemoryServiceOptions; byConversation: Record<string, Summary> }[] = [];
  for (const settings of CV_GRID) {
    const out = await recallAll(stores, embedder, conversations, settings, maxTokens, vectors);
    runs.push({ settings, byConversation: out.by_conversation });
  }
  const pooled = (
    r: Record<string, Summary>,
    ids: string[],
    key: "recall_at_5" | "recall_at_10" | "tokens_per_recall_at_10",
  ) => {
    const n = ids.reduce((sum, id) => sum + r[id].questions, 0);
    return ids.reduce((sum, id) => sum + (r[id][key] ?? 0) * r[id].questions, 0) / n;
  };
  const folds: Record<string, unknown> = {};
  let r5 = 0;
  let r10 = 0;
  let tokens = 0;
  let n = 0;
  for (const held of conversations.map((c) => c.id)) {
    const others = conversations.map((c) => c.id).filter((id) => id !== held);
    const within = runs.filter((r) =>
      pooled(r.byConversation, others, "tokens_per_recall_at_10") <= CV_TOKEN_TARGET
    );
    const best = (within.length ? within : runs).reduce((a, b) =>
      pooled(b.byConversation, others, "recall_at_10") >
          pooled(a.byConversation, others, "recall_at_10")
        ? b
        : a
    );
    const figure = best.byConversation[held];
    folds[held] = { chosen: best.settings, ...figure };
    r5 += figure.recall_at_5 * figure.questions;
    r10 += figure.recall_at_10 * figure.questions;
    tokens += (figure.tokens_per_recall_at_10 ?? 0) * figure.questions;
    n += figure.questions;
  }
  return {
    max_tokens: maxTokens ?? "default",
    token_target: CV_TOKEN_TARGET,
    grid: runs.map((r) => ({
      ...r.settings,
      recall_at_10: round(pooled(r.byConversation, Object.keys(r.byConversation), "recall_at_10")),
      tokens_per_recall_at_10: Math.round(
        pooled(r.byConversation, Object.keys(r.byConversation), "tokens_per_recall_at_10"),
      ),
    })),
    held_out: {
      questions: n,
      recall_at_5: round(r5 / n),
      recall_at_10: round(r10 / n),
      tokens_per_recall_at_10: Math.round(tokens / n),
    },
    folds,
  };
}

/**
 * Builds the stores and measures recall; returns a JSON-ready object.
 *
 * @example
 * ```ts ignore
 * import { runLocomoBench } from "./locomo.ts";
 * console.log(JSON.stringify(await runLocomoBench(), null, 2));
 * ```
 */
export async function runLocomoBench(
  options: LocomoBenchOptions = {},
): Promise<Record<string, unknown>> {
  const all = loadLocomo(options.dir);
  const conversations = options.conversations
    ? all.filter((c) => options.conversations!.includes(c.id))
    : all;
  const formats = options.formats ?? ["fields", "text"];
  const embedder = await createStaticEmbedder();
  const root = await Deno.makeTempDir({ prefix: "gleaner-locomo-bench-" });
  try {
    const result: Record<string, unknown> = {
      data: "locomo-dev (LoCoMo, Maharana et al., 2024, CC BY-NC 4.0)",
      embedder: embedder.id,
      conversations: conversations.map((c) => c.id),
      turns: conversations.reduce((n, c) => n + c.turns.length, 0),
      questions: conversations.reduce((n, c) => n + c.questions.length, 0),
    };
    for (const format of formats) {
      const { stores, duplicates } = await buildAll(root, embedder, conversations, format);
      result[`gleaner_${format}`] = {
        ...await recallAll(stores, embedder, conversations, options.service, options.maxTokens),
        duplicate_turns: duplicates,
      };
      if (options.crossValidate && format === "fields") {
        result.cross_validation = await crossValidate(
          stores,
          embedder,
          conversations,
          options.maxTokens,
        );
      }
    }

    // Plain BM25 over the turns as text.
    const tallies = new Tallies();
    for (const conv of conversations) {
      const index = new PlainBm25(conv.turns.map((t) => turnMemory(t, "text").content));
      for (const q of conv.questions) {
        const top = index.top(q.question, 10);
        tallies.add(
          conv.id,
          q,
          share(q.evidence, new Set(top.slice(0, 5))),
          share(q.evidence, new Set(top)),
        );
      }
    }
    result.bm25 = tallies.summary();
    return result;
  } finally {
    await embedder.close?.();
    await Deno.remove(root, { recursive: true });
  }
}

/**
 * The options of `deno task bench locomo` from its arguments:
 * `--conversations=conv-26,conv-30`, `--formats=fields`,
 * `--set=authorWeight:0.3,denseWeight:0.5` (numeric service settings),
 * `--max-tokens=930` (each recall's budget), `--cv` (cross-validation).
 */
export function locomoBenchOptions(args: string[] = Deno.args): LocomoBenchOptions {
  const arg = (name: string) =>
    args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const conversations = arg("conversations")?.split(",").filter(Boolean);
  const formats = arg("formats")?.split(",").filter((f): f is TurnFormat =>
    f === "fields" || f === "text"
  );
  // `--set=authorWeight=0.3,denseWeight=0.5`: service settings to measure.
  const service = Object.fromEntries(
    (arg("set") ?? "").split(",").filter(Boolean).map((kv) => {
      const [k, v] = kv.split(":");
      return [k, Number(v)];
    }),
  ) as MemoryServiceOptions;
  return {
    ...(conversations?.length ? { conversations } : {}),
    ...(formats?.length ? { formats } : {}),
    ...(Object.keys(service).length ? { service } : {}),
    ...(arg("max-tokens") ? { maxTokens: Number(arg("max-tokens")) } : {}),
    ...(args.includes("--cv") ? { crossValidate: true } : {}),
  };
}

if (import.meta.main) {
  const out = await runLocomoBench(locomoBenchOptions());
  Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(out, null, 2) + "\n"));
}
