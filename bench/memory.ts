/**
 * Memory store benchmark, on real SQLite files with the static embedding
 * model: for synthetic stores of several sizes, save throughput (duplicate
 * check + insert, embedding timed apart), recall latency p50/p95 excluding
 * the query's embedding, database size; recall quality on a confusable set
 * (recall@5 and MRR, BM25 alone vs hybrid); tokens saved against resending
 * every memory.
 *
 * `deno task bench memory` runs sizes 100, 1,000, 10,000 and 20,000; choose
 * others with `deno task bench memory --sizes=100,100000` (`--queries=200`,
 * `--no-quality`), or run alone: `deno run -A bench/memory.ts --sizes 100000`.
 *
 * @module
 */
import { createStaticEmbedder } from "../lib/embed/static.ts";
import type { Embedder } from "../lib/embed/types.ts";
import { countTokens } from "../lib/text/tokens.ts";
import { renderRecall } from "../lib/memory/render.ts";
import { MemoryService } from "../lib/memory/service.ts";
import { openSqliteMemoryBackend, type SqliteMemoryBackend } from "../lib/memory/sqlite/backend.ts";
import type { NewMemoryRow } from "../lib/memory/types.ts";
import { confusableSet, syntheticMemories, syntheticQueries } from "./lib/memory_data.ts";
import { percentile } from "../testing/text_metrics.ts";

/** Options of {@link runMemoryBench}. */
export interface MemoryBenchOptions {
  /** Store sizes (memories). */
  sizes?: number[];
  /** Recall queries timed per size. */
  queries?: number;
  /** Memories per save batch. */
  batch?: number;
  /** Skip the quality part. */
  skipQuality?: boolean;
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

function fileSize(path: string): number {
  let total = 0;
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      total += Deno.statSync(path + suffix).size;
    } catch {
      // absent
    }
  }
  return total;
}

function stats(xs: number[]) {
  return { p50_ms: round(percentile(xs, 50), 3), p95_ms: round(percentile(xs, 95), 3) };
}

/** One store size: build, save throughput, recall latency, size, tokens saved. */
async function measureSize(embedder: Embedder, size: number, queries: number, batch: number) {
  const root = await Deno.makeTempDir({ prefix: "gleaner-memory-bench-" });
  const path = `${root}/memory.db`;
  // The index starts loading on the first vector search here (by default a process
  // answers its first two from vec0), so its load is timed apart below.
  const backend = openSqliteMemoryBackend(path, { vectorIndexAfter: 0 });
  const service = new MemoryService(backend, { embedder: () => Promise.resolve(embedder) });
  try {
    await service.ready();
    const contents = syntheticMemories(size, size);
    // Build: embed (timed apart), then insert in transactions of `batch` rows.
    let embedMs = 0;
    let insertMs = 0;
    for (let i = 0; i < contents.length; i += batch) {
      const slice = contents.slice(i, i + batch);
      let t = performance.now();
      const vectors = await embedder.embedDocuments(slice);
      embedMs += performance.now() - t;
      const rows: NewMemoryRow[] = slice.map((content, j) => ({
        content,
        kind: (i + j) % 200 === 0 ? "profile" : "episodic",
        session_id: null,
        tokens: countTokens(content),
        created_at: Date.now(),
        embedding: { model: embedder.id, vector: vectors[j] },
      }));
      t = performance.now();
      await backend.insert(rows);
      insertMs += performance.now() - t;
    }

    // The in-memory vector index starts loading on the first vector search of
    // a process and loads in slices between turns of the event loop (timed
    // here, apart, with the longest gap between ticks of a 1 ms timer meanwhile:
    // how long a server would keep a request waiting); the figures below are
    // with it loaded.
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now()), 1);
    const t0 = performance.now();
    await backend.vectorCandidates(new Float32Array(embedder.dimensions!).fill(1), 1, {});
    const index = await (backend as SqliteMemoryBackend).vectorIndexLoaded();
    const t1 = performance.now();
    clearInterval(timer);
    const indexLoadMs = t1 - t0;
    const marks = [t0, ...ticks.filter((t) => t > t0 && t < t1), t1];
    const longestStallMs = Math.max(...marks.slice(1).map((t, i) => t - marks[i]));

    // Save throughput at this size: the whole save path (duplicate check +
    // one transaction), vectors embedded beforehand and timed apart.
    const fresh = syntheticMemories(Math.min(batch, Math.max(100, size)), size + 1)
      .map((c) => `${c} (new)`);
    let t = performance.now();
    const freshVectors = await embedder.embedDocuments(fresh);
    const freshEmbedMs = performance.now() - t;
    t = performance.now();
    const saved = await service.save({ memories: fresh.map((content) => ({ content })) }, {
      vectors: freshVectors,
    });
    const saveMs = performance.now() - t;

    // Recall latency, query embedding excluded.
    const qs = syntheticQueries(queries, size + 2);
    const qv = await embedder.embedQueries(qs);
    for (let i = 0; i < Math.min(10, qs.length); i++) {
      await service.recall({ query: qs[i] }, { queryVector: qv[i] }); // warm-up
    }
    const hybrid: number[] = [];
    const lexical: number[] = [];
    const dense: number[] = [];
    let recallTokens = 0;
    for (let i = 0; i < qs.length; i++) {
      t = performance.now();
      const out = await service.recall({ query: qs[i] }, { queryVector: qv[i] });
      hybrid.push(performance.now() - t);
      recallTokens += countTokens(renderRecall(out));
      t = performance.now();
      await backend.lexicalCandidates(qs[i], 50, { kind: "episodic" });
      lexical.push(performance.now() - t);
      t = performance.now();
      await backend.vectorCandidates(qv[i], 50, { kind: "episodic" });
      dense.push(performance.now() - t);
    }
    const recent: number[] = [];
    for (let i = 0; i < Math.min(50, qs.length); i++) {
      t = performance.now();
      await service.recall({});
      recent.push(performance.now() - t);
    }
    (backend as SqliteMemoryBackend).db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const allTokens = countTokens(
      (await backend.list({ sort: "recent", limit: 1_000_000, offset: 0 })).items
        .map((m) => `- ${m.content}`).join("\n"),
    );
    return {
      memories: size,
      build: {
        insert_per_s: round(size / (insertMs / 1000), 0),
        embed_ms_per_1000: round(embedMs / size * 1000, 1),
      },
      vector_index: {
        load_ms: round(indexLoadMs, 1),
        load_longest_stall_ms: round(longestStallMs, 1),
        bytes: index?.bytes() ?? 0,
        bytes_per_memory: index?.size ? round(index.bytes() / index.size, 0) : 0,
        simd: index?.simd ?? false,
      },
      save: {
        batch: fresh.length,
        saved: saved.saved,
        per_s_excluding_embedding: round(fresh.length / (saveMs / 1000), 0),
        embed_ms: round(freshEmbedMs, 1),
        per_s_including_embedding: round(fresh.length / ((saveMs + freshEmbedMs) / 1000), 0),
      },
      recall_ms: { hybrid: stats(hybrid), recent: stats(recent) },
      retriever_ms: { bm25_top50: stats(lexical), vector_top50: stats(dense) },
      db_bytes: fileSize(path),
      tokens: {
        recall_mean: round(recallTokens / qs.length, 0),
        all_memories: allTokens,
        saved_ratio: round(1 - recallTokens / qs.length / allTokens, 4),
      },
    };
  } finally {
    await service.close();
    await Deno.remove(root, { recursive: true });
  }
}

function tally() {
  return { n: 0, hits1: 0, hits5: 0, rr: 0 };
}

/** Recall quality on the confusable set: BM25 alone vs hybrid, each half apart. */
async function measureQuality(embedder: Embedder) {
  const set = confusableSet(1_000);
  const out: Record<string, unknown> = {
    memories: set.memories.length,
    queries: set.cases.length,
  };
  // The default floor for the static model is 0.4 (see defaultDenseFloor) and
  // the default dense depth 20 (2 × top_k; 50 before); the others show why.
  // The depth was chosen on the even-numbered queries, which mix both halves;
  // the halves are fixed by template since (`ConfusableCase.half`): tune on
  // `tune`, report `report`, both printed apart.
  const variants: [string, number, number | undefined, number | undefined][] = [
    ["bm25", 0, undefined, undefined],
    ["hybrid", 0.5, undefined, undefined],
    ["dense_only", 1, undefined, undefined],
    ["hybrid_dense_depth_50", 0.5, undefined, 50],
    ["hybrid_floor_0.1", 0.5, 0.1, undefined],
    ["hybrid_floor_0.3", 0.5, 0.3, undefined],
    ["hybrid_floor_0.5", 0.5, 0.5, undefined],
    ["hybrid_floor_0.6", 0.5, 0.6, undefined],
  ];

  for (const [name, denseWeight, floor, depth] of variants) {
    const backend = openSqliteMemoryBackend(":memory:");
    const service = new MemoryService(backend, {
      embedder: () => Promise.resolve(embedder),
      denseWeight,
      ...(floor !== undefined ? { denseMinSimilarity: floor } : {}),
      ...(depth !== undefined ? { denseDepth: depth } : {}),
    });
    try {
      await service.ready();
      const vectors = await embedder.embedDocuments(set.memories);
      const rows = await backend.insert(set.memories.map((content, i) => ({
        content,
        kind: "episodic",
        session_id: null,
        tokens: countTokens(content),
        created_at: Date.now(),
        embedding: { model: embedder.id, vector: vectors[i] },
      })));
      const tallies = { all: tally(), tune: tally(), report: tally() };
      let tokens = 0;
      for (const c of set.cases) {
        const res = await service.recall({ query: c.query, top_k: 10 });
        const rank = res.memories.findIndex((m) => m.id === rows[c.answer].id);
        for (const t of [tallies.all, tallies[c.half]]) {
          t.n++;
          if (rank >= 0 && rank < 5) t.hits5++;
          if (rank === 0) t.hits1++;
          if (rank >= 0) t.rr += 1 / (rank + 1);
        }
        tokens += countTokens(renderRecall(res));
      }
      const n = set.cases.length;
      const summary = (t: ReturnType<typeof tally>) => ({
        questions: t.n,
        recall_at_1: round(t.hits1 / t.n, 3),
        recall_at_5: round(t.hits5 / t.n, 3),
        mrr_at_10: round(t.rr / t.n, 3),
      });
      out[name] = {
        ...summary(tallies.all),
        tune: summary(tallies.tune),
        report: summary(tallies.report),
        recall_tokens_mean: round(tokens / n, 0),
      };
    } finally {
      await service.close();
    }
  }
  out.all_memories_tokens = countTokens(set.memories.map((m) => `- ${m}`).join("\n"));
  return out;
}

/** Reads `--sizes=100,1000` (or `--sizes 100,1000`), `--queries=`, `--no-quality` from `args`. */
export function memoryBenchOptions(args: string[] = Deno.args): MemoryBenchOptions {
  const arg = (name: string) => {
    const eq = args.find((a) => a.startsWith(`--${name}=`));
    if (eq) return eq.slice(name.length + 3);
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const sizes = arg("sizes")?.split(",").filter(Boolean).map((s) => Number(s.replace(/_/g, "")));
  const queries = arg("queries");
  return {
    ...(sizes?.length ? { sizes } : {}),
    ...(queries ? { queries: Number(queries) } : {}),
    ...(args.includes("--no-quality") ? { skipQuality: true } : {}),
  };
}

/** Runs the memory benchmark; returns a JSON-ready object. */
export async function runMemoryBench(options: MemoryBenchOptions = {}): Promise<unknown> {
  const sizes = options.sizes ?? [100, 1_000, 10_000, 20_000];
  const queries = options.queries ?? 200;
  const batch = options.batch ?? 1_000;
  const embedder = await createStaticEmbedder();
  try {
    const result: Record<string, unknown> = {
      embedder: embedder.id,
      dimensions: embedder.dimensions,
      load_average: loadAverage(),
      sizes: [] as unknown[],
    };
    for (const size of sizes) {
      (result.sizes as unknown[]).push(await measureSize(embedder, size, queries, batch));
    }
    if (!options.skipQuality) result.quality = await measureQuality(embedder);
    return result;
  } finally {
    await embedder.close?.();
  }
}

function loadAverage(): number[] | undefined {
  try {
    return Deno.loadavg().map((x) => round(x, 2));
  } catch {
    return undefined;
  }
}

if (import.meta.main) {
  const result = await runMemoryBench(memoryBenchOptions());
  // deno-lint-ignore no-console
  console.log(JSON.stringify(result, null, 2));
}
