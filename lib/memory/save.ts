/**
 * Saving memories: the checks of each item, the duplicates (the same text in
 * the same scope, decided by the backend inside its write transaction, or an
 * earlier item of the batch), and the `similar_to` and `consider_splitting`
 * notices.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import { cosine, isZeroVector } from "../embed/vector.ts";
import { checkIdText } from "../text/id_text.ts";
import { countTokens } from "../text/tokens.ts";
import { checkAuthor, checkKind, checkNoNul, round } from "./checks.ts";
import { parseOccurredAt } from "./time.ts";
import type { MemoryContext } from "./context.ts";
import { normalizeMemoryText, scopeKey } from "./text.ts";
import { traceMemoryEmbed, traceMemorySearch, traceMemoryStore } from "./spans.ts";
import { VectorIndex } from "./vector/vector_index.ts";
import type {
  InsertedMemory,
  Memory,
  MemoryCandidate,
  MemoryNotice,
  MemoryScope,
  NewMemoryRow,
  SaveMemoriesInput,
  SaveMemoriesResult,
  SaveMemoryItemResult,
} from "./types.ts";

const log = getGleanerLogger("memory");

/** Per-call options of `MemoryService.save` not exposed as tool arguments. */
export interface SaveOptions {
  /** Cancels the call. */
  signal?: AbortSignal;
  /** The contents' vectors, already embedded in input order (benchmarks time saving without embedding). */
  vectors?: Float32Array[];
}

/**
 * Saves memories in one transaction (all or none). A memory is skipped as
 * a duplicate only when it says the same thing as a live memory in the
 * same scope (same `session_id`, or both without), or as an earlier item
 * of the batch: the same text after trimming white space
 * ({@link normalizeMemoryText}; case, punctuation, word order, numbers,
 * dates, times, codes, versions and names all count). The backend decides that inside its
 * write transaction, so concurrent saves of the same text store it once.
 * Every other memory is saved: with a `similar_to` notice naming the
 * nearest memory when the cosine is ≥ `reviewSimilarity` (0.80; from
 * `duplicateSimilarity`, 0.95, the notice says `near_duplicate: true`),
 * and a `consider_splitting` notice when over `splitTokens` (800). Empty
 * content is `invalid_arguments`.
 */
export async function saveMemories(
  ctx: MemoryContext,
  input: SaveMemoriesInput,
  options: SaveOptions = {},
): Promise<SaveMemoriesResult> {
  const signal = options.signal;
  const items = input.memories.map((m, index) => {
    checkKind(m.kind, `memories.${index}.kind`);
    checkIdText(m.session_id, `memories.${index}.session_id`);
    checkNoNul(m.content, `memories.${index}.content`);
    if (typeof m.content !== "string" || m.content.trim() === "") {
      throw new GleanerError(
        "invalid_arguments",
        `memories.${index}.content: must not be empty`,
        {
          details: { field: `memories.${index}.content` },
        },
      );
    }
    const author = checkAuthor(m.author, `memories.${index}.author`);
    const occurredAt = m.occurred_at === undefined
      ? undefined
      : parseOccurredAt(m.occurred_at, `memories.${index}.occurred_at`);
    return {
      index,
      content: m.content,
      kind: m.kind ?? "episodic",
      session_id: m.session_id ?? null,
      tokens: countTokens(m.content),
      occurred_at: occurredAt ?? null,
      author: author ?? null,
    };
  });
  const ready = await ctx.embedding.prepare();
  let vectors: (Float32Array | undefined)[] = items.map(() => undefined);
  let embedFailed = false;
  if (options.vectors && options.vectors.length === items.length && ready.embedder) {
    vectors = options.vectors;
  } else if (ready.embedder && items.length > 0) {
    try {
      const embedder = ready.embedder;
      vectors = await traceMemoryEmbed(
        embedder,
        "document",
        items.length,
        (usage) => embedder.embedDocuments(items.map((i) => i.content), signal, usage),
      );
    } catch (error) {
      if (signal?.aborted) throw error;
      embedFailed = true;
      log.warn("memory: embedding failed, saving without vectors: {error}", {
        error: String(error),
      });
    }
  }
  signal?.throwIfAborted();

  const notices: MemoryNotice[] = [];
  const results: (SaveMemoryItemResult | undefined)[] = items.map(() => undefined);
  // A later item of the batch that says the same as an earlier one (same
  // scope) repeats it: only the first goes to the store.
  const firstOf = new Map<string, number>();
  const repeats = new Map<number, number>();
  const distinct: number[] = [];
  for (const item of items) {
    const key = `${scopeKey(item.session_id)} ${normalizeMemoryText(item.content)}`;
    const earlier = firstOf.get(key);
    if (earlier !== undefined) repeats.set(item.index, earlier);
    else {
      firstOf.set(key, item.index);
      distinct.push(item.index);
    }
  }

  // The nearest memory of each distinct item (cosine ≥ reviewSimilarity),
  // stored or earlier in this batch, for the `similar_to` notice only.
  const checked = distinct.filter((i) => {
    const vector = vectors[i];
    return vector && !isZeroVector(vector);
  });
  const stored = await nearestStored(
    ctx,
    checked.map((i) => vectors[i]!),
    checked.map((i) => ({ session_id: items[i].session_id })),
  );
  const storedBest = new Map(checked.map((i, n) => [i, stored[n]] as const));
  const nearest = new Map<number, { similarity: number; id?: number; batchIndex?: number }>();
  // Distinct items of this batch so far, searched like the store.
  let batch: VectorIndex | undefined;
  const earlier: number[] = [];
  for (const i of distinct) {
    const item = items[i];
    const vector = vectors[i];
    if (vector && !isZeroVector(vector)) {
      let best: { similarity: number; id?: number; batchIndex?: number } | undefined;
      const top = storedBest.get(i);
      if (top) best = { similarity: top.score, id: top.id };
      if (!batch && earlier.length > 0) {
        // Built at the first item that has earlier ones to compare with.
        batch = new VectorIndex(vector.length);
        for (const j of earlier) {
          const v = vectors[j];
          if (v && v.length === vector.length && !isZeroVector(v)) {
            batch.upsert(j, items[j].kind, items[j].session_id, v);
          }
        }
      }
      if (batch && batch.dimensions === vector.length) {
        const [near] = batch.search(vector, 1, { session_id: item.session_id });
        if (near && (!best || near.score > best.similarity)) {
          best = { similarity: near.score, batchIndex: near.id };
        }
      }
      if (best && best.similarity >= ctx.options.reviewSimilarity) nearest.set(i, best);
      if (batch && batch.dimensions === vector.length) {
        batch.upsert(i, item.kind, item.session_id, vector);
      }
    }
    earlier.push(i);
  }

  // The store decides what is new, inside its write transaction.
  const now = ctx.options.now();
  const rows: NewMemoryRow[] = distinct.map((i) => {
    const item = items[i];
    const vector = vectors[i];
    return {
      content: item.content,
      kind: item.kind,
      session_id: item.session_id,
      tokens: item.tokens,
      created_at: now,
      occurred_at: item.occurred_at,
      author: item.author,
      ...(vector && ready.model ? { embedding: { model: ready.model, vector } } : {}),
    };
  });
  const outcomes: InsertedMemory[] = await traceMemoryStore(
    ctx.backend.engine,
    "INSERT",
    rows.length,
    async (span) => {
      // Committed with the saves running at once (one transaction), acknowledged after it.
      const out = await ctx.writes.insert(rows);
      span.set({ "gleaner.memory.duplicates": out.filter((o) => o.duplicate).length });
      return out;
    },
  );
  // The memory each distinct item is now: the one it saved, or the one it repeats.
  const byIndex = new Map<number, Memory>();
  let saved = 0;
  distinct.forEach((i, n) => {
    const { memory, duplicate } = outcomes[n];
    byIndex.set(i, memory);
    if (!duplicate) saved++;
    results[i] = {
      index: i,
      status: duplicate ? "duplicate" : "saved",
      ref: memory.ref,
      id: memory.id,
      tokens: items[i].tokens,
    };
  });
  for (const [i, first] of repeats) {
    const memory = byIndex.get(first)!;
    results[i] = {
      index: i,
      status: "duplicate",
      ref: memory.ref,
      id: memory.id,
      tokens: items[i].tokens,
    };
  }

  // Memories the `similar_to` notices name that are not of this batch.
  const existing = new Map(
    (await ctx.backend.getMany(
      [...nearest.entries()].flatMap(([i, n]) =>
        results[i]!.status === "saved" && n.id !== undefined ? [n.id] : []
      ),
    )).map((m) => [m.id, m] as const),
  );
  for (const item of items) {
    const i = item.index;
    const result = results[i]!;
    if (result.status === "duplicate") {
      // The cosine when it is known: the vectors of both texts are at hand.
      const first = repeats.get(i);
      const near = first === undefined ? storedBest.get(i) : undefined;
      const a = vectors[i];
      const b = first !== undefined ? vectors[first] : undefined;
      const similarity = near?.id === result.id
        ? round(near.score)
        : a && b && a.length === b.length && !isZeroVector(a) && !isZeroVector(b)
        ? round(cosine(a, b))
        : undefined;
      notices.push({
        code: "duplicate",
        message: `Memory ${i} was not saved: it duplicates ${result.ref} ` +
          "(the same text after trimming white space).",
        index: i,
        ref: result.ref,
        ...(similarity !== undefined ? { similarity } : {}),
      });
      continue;
    }
    const near = nearest.get(i);
    if (near) {
      const target = near.batchIndex !== undefined
        ? byIndex.get(near.batchIndex)
        : existing.get(near.id!);
      const similarity = round(near.similarity);
      const nearDuplicate = near.similarity >= ctx.options.duplicateSimilarity;
      notices.push(
        target
          ? {
            code: "similar_to",
            message: nearDuplicate
              ? `Memory ${i} was saved but is very likely the same fact as ${target.ref} ` +
                `(similarity ${similarity}); update that one instead, or delete this one.`
              : `Memory ${i} was saved but is similar to ${target.ref} ` +
                `(similarity ${similarity}); update that one instead if it is the same fact.`,
            index: i,
            ref: target.ref,
            similarity,
            near_duplicate: nearDuplicate,
          }
          : {
            // The memory it resembled was deleted meanwhile (another call).
            code: "similar_to",
            message: `Memory ${i} was saved; it resembled a memory deleted meanwhile.`,
            index: i,
            similarity,
            near_duplicate: nearDuplicate,
          },
      );
    }
    const splitTokens = ctx.options.splitTokens;
    if (item.tokens > splitTokens) {
      notices.push({
        code: "consider_splitting",
        message: `Memory ${i} has ${item.tokens} tokens (over ${splitTokens}): ` +
          "consider splitting it into smaller facts so recall can return just the relevant one.",
        index: i,
      });
    }
  }
  if (embedFailed) {
    notices.push({
      code: "no_embedder",
      message: "Embedding failed: memories were saved without vectors and will be embedded later.",
    });
    ctx.embedding.start(ready);
  }
  const final = results as SaveMemoryItemResult[];
  return {
    results: final,
    saved,
    duplicates: final.filter((r) => r.status === "duplicate").length,
    notices: [...notices, ...ctx.embedding.notices(ready)],
  };
}

/**
 * The nearest stored memory (cosine ≥ `reviewSimilarity`) of each
 * vector in its scope: one batch call when the engine has one, else one
 * `k = 1` search per vector.
 */
async function nearestStored(
  ctx: MemoryContext,
  vectors: Float32Array[],
  scopes: MemoryScope[],
): Promise<(MemoryCandidate | undefined)[]> {
  if (vectors.length === 0) return [];
  return await traceMemorySearch(
    ctx.backend.engine,
    "similar",
    // Checked with the saves running at once (one pass over the vectors).
    () => ctx.similar.run(vectors.map((vector, i) => ({ vector, scope: scopes[i] }))),
    (found) => found.filter((c) => c !== undefined).length,
  );
}
