/**
 * Recalling memories: the profile pool inside its own budget, then BM25 and
 * vector candidates (each retriever's own top) fused with weighted RRF,
 * optionally lifted by recall frequency, labelled by relevance and trimmed
 * to `top_k` and the token budget; without a query, the newest first.
 *
 * @module
 */
import { getGleanerLogger } from "../log.ts";
import { isZeroVector } from "../embed/vector.ts";
import { fuseRankings, relevanceOf } from "../rank/fusion.ts";
import { checkIdText } from "../text/id_text.ts";
import { countTokens } from "../text/tokens.ts";
import { checkNoNul, round } from "./checks.ts";
import { namedAuthors, preferNamedAuthors } from "./conversation.ts";
import { preferTimeRange, questionTimeRange } from "./time_query.ts";
import type { MemoryContext } from "./context.ts";
import type { EmbedderReady } from "./reembed.ts";
import { renderContextMemory, renderProfileMemory, renderRecalledMemory } from "./render.ts";
import { renderedTokens } from "./rendered_tokens.ts";
import { traceMemoryEmbed, traceMemorySearch } from "./spans.ts";
import type {
  Memory,
  ProfileMemory,
  RecalledContext,
  RecalledMemory,
  RecallMemoriesInput,
  RecallMemoriesResult,
} from "./types.ts";

const log = getGleanerLogger("memory");

/** Default `top_k` of a recall. */
export const DEFAULT_TOP_K = 10;
/** Fewest BM25 candidates a recall fuses (else 4 × `top_k`). */
export const LEXICAL_DEPTH = 50;
/** Profile memories read per recall before checking whether more could fit. */
const PROFILE_PAGE = 64;
/** Most distinct authors a recall reads to see whether its query names one. */
const MAX_AUTHORS = 1_000;
/** Most profile memories a recall considers. */
const MAX_PROFILE_POOL = 2_000;
/** Tokens of the rendered elements' markup without their content. */
interface Overheads {
  /** A memory element (tags, ref, time): an entry whose content alone leaves less than half of this is not counted. */
  entry: number;
  /** A context element. */
  context: number;
  /** A profile element. */
  profile: number;
}

let overheads: Overheads | undefined;

/**
 * The markup's tokens, counted on first use rather than at import: counting
 * builds the o200k encoder (about 0.4 s of CPU), which a process that only
 * imports this module (a test, `--version`) should not pay.
 */
function overhead(): Overheads {
  return overheads ??= {
    entry: countTokens(
      '<memory index="10" ref="abcdefgh" relevance="medium" created_at="2026-01-01T00:00:00.000Z"></memory>',
    ),
    context: countTokens('<context of="10"></context>'),
    profile: countTokens('<memory ref="abcdefgh" created_at="2026-01-01T00:00:00.000Z"></memory>'),
  };
}

/** Per-call options of `MemoryService.recall` not exposed as tool arguments. */
export interface RecallOptions {
  /** Cancels the call. */
  signal?: AbortSignal;
  /** The query's vector, already embedded (benchmarks time recall without embedding). */
  queryVector?: Float32Array;
}

/**
 * Recalls memories. With a query: BM25 and vector candidates (each
 * retriever's own top), weighted RRF, relevance labels, trimmed to
 * `top_k` and `max_tokens`. Without: the newest first. The whole profile
 * pool is attached, trimmed to its own budget.
 */
export async function recallMemories(
  ctx: MemoryContext,
  input: RecallMemoriesInput,
  options: RecallOptions = {},
): Promise<RecallMemoriesResult> {
  checkIdText(input.session_id, "session_id");
  checkNoNul(input.query, "query");
  const topK = input.top_k ?? DEFAULT_TOP_K;
  const maxTokens = input.max_tokens ?? ctx.options.recallBudget;
  const ready = await ctx.embedding.prepare();
  const now = ctx.options.now();
  const scope = {
    kind: "episodic" as const,
    ...(input.session_id !== undefined ? { session_id: input.session_id } : {}),
  };
  const notices = ctx.embedding.notices(ready);

  const query = input.query?.trim() ?? "";
  // The reads that do not depend on each other run as two chains at once
  // (on a networked store each is a round trip): the profile pool then the
  // BM25 candidates, and the vector candidates (the query embedded
  // meanwhile) then the store's authors. Four statements at once cost
  // PostgreSQL twice the CPU of two at a time (24 vs 13 ms per recall at
  // 200,000 on 2 cores) and were slower at p50 and p95 (bench memory_backends).
  const k = Math.max(LEXICAL_DEPTH, topK * 4);
  const denseK = Math.max(ctx.options.denseDepth, topK * 2);
  const useDense = query !== "" && ready.embedder !== undefined && !ctx.embedding.running &&
    ctx.options.denseWeight > 0;
  const [[profileRead, lexical], [dense, storeAuthors]] = await Promise.all([
    (async () => {
      const profileRead = await readProfile(ctx);
      const lexical = query
        ? await traceMemorySearch(
          ctx.backend.engine,
          "bm25",
          () => ctx.backend.lexicalCandidates(query, k, scope),
        )
        : undefined;
      return [profileRead, lexical] as const;
    })(),
    (async () => {
      const dense = useDense
        ? await denseCandidates(ctx, ready, query, denseK, scope, options)
        : undefined;
      const storeAuthors = query && ctx.options.authorWeight > 0 && ctx.backend.authors
        ? await ctx.backend.authors(MAX_AUTHORS)
        : undefined;
      return [dense, storeAuthors] as const;
    })(),
  ]);
  const { profile, profileTokens, profileTotal } = profileRead;

  // Best first; search mode reads the memories a page at a time, as the budget takes them.
  let ranked: { id: number; score?: number; memory?: Memory | null }[];
  let matched: number;
  const retrievers: ("bm25" | "dense")[] = [];
  if (query && lexical) {
    // Candidate depth. BM25's list ends where matching ends; the dense
    // retriever ranks every memory (there is always a nearest), so its list
    // is cut at DENSE_DEPTH (40) or twice what the answer can show: on
    // the confusable queries of bench/memory.ts depths 20 and 50 tie, and on
    // locomo-dev 40 recalls more than 20 in every held-out conversation
    // (bench/locomo.ts); much deeper, weak matches pile up RRF credit on
    // look-alikes.
    retrievers.push("bm25");
    if (dense) retrievers.push("dense");
    const rankings = [{
      order: lexical.map((c) => c.id),
      weight: dense ? 1 - ctx.options.denseWeight : 1,
    }];
    if (dense) rankings.push({ order: dense, weight: ctx.options.denseWeight });
    let fused = fuseRankings(rankings, ctx.options.rrfK)
      .filter((f) => f.score >= ctx.options.minScore);
    matched = fused.length;
    // The matches' rows: their authors and recall counts are signals too.
    let rows: Map<number, Memory> | undefined;
    const range = ctx.options.timeWeight > 0 ? questionTimeRange(query, now) : undefined;
    // Whether the query may name an author: the store's authors when the
    // engine lists them (most stores have none, and most queries name none),
    // else the candidates' own.
    const byAuthor = ctx.options.authorWeight > 0 && fused.length > 1 &&
      (!storeAuthors || namedAuthors(query, storeAuthors).length > 0);
    if (fused.length > 1 && (ctx.options.accessWeight > 0 || byAuthor || range)) {
      rows = new Map(
        (await ctx.backend.getMany(fused.map((f) => f.key))).map((m) => [m.id, m] as const),
      );
    }
    if (rows && byAuthor) {
      const memoryRows = rows;
      fused = preferNamedAuthors(
        fused,
        (key) => memoryRows.get(key)?.author,
        query,
        ctx.options.authorWeight,
      );
    }
    if (rows && range) {
      const memoryRows = rows;
      fused = preferTimeRange(
        fused,
        (key) => {
          const at = memoryRows.get(key)?.occurred_at;
          return at ? Date.parse(at) : undefined;
        },
        range,
        ctx.options.timeWeight,
      );
    }
    // Recall frequency as one more signal, over the matches only (never a new candidate).
    if (rows && ctx.options.accessWeight > 0) {
      fused = liftByAccess(fused, rows, ctx.options.accessWeight);
    }
    ranked = fused.slice(0, Math.max(topK * 3, 30)).map((f) => ({
      id: f.key,
      score: f.score,
      ...(rows ? { memory: rows.get(f.key) ?? null } : {}),
    }));
  } else {
    const page = await traceMemorySearch(
      ctx.backend.engine,
      "recent",
      () =>
        ctx.backend.list({
          ...scope,
          sort: "recent",
          limit: Math.max(topK * 3, 30),
          offset: 0,
        }),
      (found) => found.items.length,
    );
    matched = page.total;
    ranked = page.items.map((memory) => ({ id: memory.id, memory }));
  }

  const memories: RecalledMemory[] = [];
  let tokens = 0;
  let overBudget = 0;
  const pageSize = topK + 5;
  for (let i = 0; i < ranked.length; i++) {
    if (memories.length >= topK) break;
    if (ranked[i].memory === undefined) {
      const page = ranked.slice(i, i + pageSize);
      const found = new Map(
        (await ctx.backend.getMany(page.map((r) => r.id))).map((m) => [m.id, m] as const),
      );
      for (const r of page) r.memory = found.get(r.id) ?? null;
    }
    if (!ranked[i].memory) continue; // deleted meanwhile
    const { memory, score } = ranked[i] as { memory: Memory; score?: number };
    const left = maxTokens - tokens;
    if (memory.tokens + overhead().entry / 2 > left) {
      overBudget++;
      continue;
    }
    const entry: RecalledMemory = {
      index: memories.length + 1,
      ref: memory.ref,
      id: memory.id,
      content: memory.content,
      session_id: memory.session_id,
      created_at: memory.created_at,
      updated_at: memory.updated_at,
      tokens: memory.tokens,
      ...(memory.occurred_at ? { occurred_at: memory.occurred_at } : {}),
      ...(memory.author ? { author: memory.author } : {}),
      ...(score !== undefined ? { score: round(score), relevance: relevanceOf(score) } : {}),
    };
    const cost = renderedTokens(renderRecalledMemory(entry));
    if (cost > left) {
      overBudget++;
      continue;
    }
    tokens += cost;
    memories.push(entry);
  }
  if (query && memories.length > 0) {
    tokens += await attachContext(ctx, memories, maxTokens - tokens);
  }
  if (overBudget > 0) {
    notices.push({
      code: "budget",
      message: `${matched} ${matched === 1 ? "memory" : "memories"} matched; ${memories.length} ` +
        `fit in max_tokens ${maxTokens}` +
        " (raise max_tokens or narrow the query for more).",
    });
  }
  if (memories.length > 0) await ctx.backend.markRecalled(memories.map((m) => m.id), now);
  return {
    mode: query ? "search" : "recent",
    current_time: new Date(now).toISOString(),
    retrievers,
    profile,
    profile_total: profileTotal,
    memories,
    matched,
    truncated: memories.length < matched,
    tokens: tokens + profileTokens,
    notices,
  };
}

/** The profile pool, newest first, inside its own budget, and the pool's size. */
async function readProfile(
  ctx: MemoryContext,
): Promise<{ profile: ProfileMemory[]; profileTokens: number; profileTotal: number }> {
  // Most pools fit in one small page; a larger one is read whole only if budget is left.
  const budget = ctx.options.profileMaxTokens;
  let pool = await ctx.backend.profilePool(PROFILE_PAGE);
  let profileTotal = pool.length;
  const profile: ProfileMemory[] = [];
  let profileTokens = 0;
  const takeProfile = (m: Memory) => {
    const left = budget - profileTokens;
    if (left < overhead().profile || m.tokens + overhead().profile / 2 > left) return;
    const entry = {
      ref: m.ref,
      id: m.id,
      content: m.content,
      created_at: m.created_at,
      updated_at: m.updated_at,
      tokens: m.tokens,
    };
    const cost = renderedTokens(renderProfileMemory(entry));
    if (cost > left) return;
    profileTokens += cost;
    profile.push(entry);
  };
  pool.forEach(takeProfile);
  if (pool.length === PROFILE_PAGE) {
    let whole = false;
    if (budget - profileTokens >= overhead().profile) {
      pool = await ctx.backend.profilePool(MAX_PROFILE_POOL);
      pool.slice(PROFILE_PAGE).forEach(takeProfile);
      whole = pool.length < MAX_PROFILE_POOL;
    }
    profileTotal = whole ? pool.length : (await ctx.backend.list({
      kind: "profile",
      sort: "recent",
      limit: 1,
      offset: 0,
    })).total;
  }
  return { profile, profileTokens, profileTotal };
}

/**
 * The dense retriever's ids above the similarity floor, best first: the
 * query embedded (unless its vector is given), then the nearest `k`; undefined
 * when the query could not be embedded or embeds to the zero vector.
 */
async function denseCandidates(
  ctx: MemoryContext,
  ready: EmbedderReady,
  query: string,
  k: number,
  scope: { kind: "episodic"; session_id?: string | null },
  options: RecallOptions,
): Promise<number[] | undefined> {
  let vector = options.queryVector;
  if (!vector && ready.embedder) {
    try {
      const embedder = ready.embedder;
      [vector] = await traceMemoryEmbed(
        embedder,
        "query",
        1,
        (usage) => embedder.embedQueries([query], options.signal, usage),
      );
    } catch (error) {
      if (options.signal?.aborted) throw error;
      log.warn("memory: query embedding failed, BM25 alone: {error}", {
        error: String(error),
      });
    }
  }
  if (!vector || isZeroVector(vector)) return undefined;
  const queryVector = vector;
  const near = await traceMemorySearch(
    ctx.backend.engine,
    "dense",
    () => ctx.backend.vectorCandidates(queryVector, k, scope),
  );
  const floor = ctx.options.denseMinSimilarity ?? defaultDenseFloor(ready.model);
  return near.filter((c) => c.score >= floor).map((c) => c.id);
}

/**
 * The matches of a recall reordered by `(1 - weight) × score + weight ×
 * recall_count / most`, where `most` is the highest `recall_count` among the
 * matches (a never-recalled memory adds nothing; when none was recalled the
 * order stays the query's). Scores stay the query's.
 */
function liftByAccess(
  fused: readonly { key: number; score: number }[],
  rows: ReadonlyMap<number, Memory>,
  weight: number,
): { key: number; score: number }[] {
  const countOf = (key: number) => rows.get(key)?.recall_count ?? 0;
  const most = fused.reduce((max, f) => Math.max(max, countOf(f.key)), 0);
  if (most === 0) return [...fused];
  const lifted = fused.map((f, order) => ({
    f,
    order,
    value: (1 - weight) * f.score + weight * countOf(f.key) / most,
  }));
  lifted.sort((a, b) => b.value - a.value || a.order - b.order);
  return lifted.map((l) => l.f);
}

/**
 * Attaches to each recalled conversation turn (a memory saved with an
 * `author` and a session), best first, its neighbours in its session
 * (`contextAfter` saved just after it, `contextBefore` just before, nearest
 * first, the next before the previous) while its own allowance
 * (`contextMaxTokens`) and the `left` of the budget allow; a memory already
 * shown (recalled, or the context of a better one) is not repeated. Context
 * never displaces a recalled memory. Returns the tokens it used.
 *
 * Best first, whole: on locomo-dev the turns around the best memory hold
 * most of what context finds (interleaving the hits' nearest neighbours
 * first, or ordering them by their own score, recalls less at the same
 * tokens; `bench/locomo.ts`).
 */
async function attachContext(
  ctx: MemoryContext,
  memories: RecalledMemory[],
  budgetLeft: number,
): Promise<number> {
  const { contextBefore, contextAfter } = ctx.options;
  const left = Math.min(budgetLeft, ctx.options.contextMaxTokens);
  if (
    !ctx.backend.sessionNeighbours || (contextBefore <= 0 && contextAfter <= 0) ||
    left < overhead().context
  ) return 0;
  // Conversation turns only: a memory saved with an author, in a session.
  const withSession = memories.filter((m) => m.session_id !== null && m.author !== undefined);
  if (withSession.length === 0) return 0;
  const near = await ctx.backend.sessionNeighbours(
    withSession.map((m) => m.id),
    contextBefore,
    contextAfter,
  );
  const shown = new Set(memories.map((m) => m.id));
  let used = 0;
  for (const m of withSession) {
    const around = near.get(m.id);
    if (!around) continue;
    // Nearest first, the next one before the previous one at each distance.
    const order: { n: Memory; position: "before" | "after" }[] = [];
    for (let d = 0; d < Math.max(around.after.length, around.before.length); d++) {
      if (around.after[d]) order.push({ n: around.after[d], position: "after" });
      if (around.before[d]) order.push({ n: around.before[d], position: "before" });
    }
    for (const { n, position } of order) {
      if (shown.has(n.id) || n.tokens + overhead().context / 2 > left - used) continue;
      const entry: RecalledContext = {
        ref: n.ref,
        id: n.id,
        content: n.content,
        position,
        ...(n.occurred_at ? { occurred_at: n.occurred_at } : {}),
        ...(n.author ? { author: n.author } : {}),
        tokens: n.tokens,
      };
      const cost = renderedTokens(renderContextMemory(entry, m));
      if (cost > left - used) continue;
      used += cost;
      shown.add(n.id);
      (m.context ??= []).push(entry);
    }
  }
  return used;
}

/** The dense candidate floor when none is configured (see `MemoryServiceOptions`). */
export function defaultDenseFloor(model: string | undefined): number {
  return model?.startsWith("static:") ? 0.4 : 0.2;
}
