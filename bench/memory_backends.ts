/**
 * Recall latency of the memory backends at scale: the same synthetic store
 * (default 100,000 memories, embedded with the shipped static model) loaded
 * into SQLite and into PostgreSQL (a throwaway cluster with pgvector), then
 * `MemoryService.recall` timed per query (profile pool, BM25 and vector
 * candidates, weighted RRF, `getMany`, budget, `markRecalled`), with the
 * query vector computed before the clock starts; the two retrievers' own
 * candidate queries are timed too. PostgreSQL is bulk-loaded without its HNSW index,
 * which is built afterwards (load time includes the build); steady-state
 * inserts (batches of 100 into the full store) are measured separately.
 *
 * `deno task bench memory_backends --backend=postgres --memories=100000`
 * (`--backend=sqlite|postgres|both`, default both; `--queries=200`; `--k=50`).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { createFastStaticEmbedder } from "../lib/embed/static_fast.ts";
import type { Embedder } from "../lib/embed/types.ts";
import { openSqliteMemoryBackend } from "../lib/memory/sqlite/backend.ts";
import { PostgresMemoryDatabase } from "../lib/memory/postgres/backend.ts";
import { inTransaction } from "../lib/memory/postgres/client.ts";
import { ensureVectorIndex, vectorIndexName } from "../lib/memory/postgres/schema.ts";
import { MemoryService } from "../lib/memory/service.ts";
import type { MemoryBackend, NewMemoryRow } from "../lib/memory/types.ts";
import { startPostgres } from "../testing/fixtures/postgres.ts";
import { rng } from "../lib/memory/testdata/rng.ts";

const MODEL_DIR = new URL("../models/static/", import.meta.url).pathname;
const BATCH = 1000;
/** Standing facts about the user (the profile pool every recall attaches). */
const PROFILE_MEMORIES = 50;

/** Options of {@link runMemoryBackendBench}. */
export interface MemoryBackendBenchOptions {
  /** Engines to measure. */
  backends: ("sqlite" | "postgres")[];
  /** Memories in the store. */
  memories: number;
  /** Timed recalls (after 20 warm-up ones). */
  queries: number;
  /** Candidates per retriever. */
  k: number;
}

/** Reads `--backend=`, `--memories=`, `--queries=`, `--k=` from `args`. */
export function benchOptions(args: string[] = Deno.args): MemoryBackendBenchOptions {
  const { values } = parseArgs({
    args: args.filter((a) => a.startsWith("--")),
    options: {
      backend: { type: "string", default: "both" },
      memories: { type: "string", default: "100000" },
      queries: { type: "string", default: "200" },
      k: { type: "string", default: "50" },
    },
    strict: false,
  });
  const b = String(values.backend);
  return {
    backends: b === "both" ? ["sqlite", "postgres"] : [b as "sqlite" | "postgres"],
    memories: Number(values.memories),
    queries: Number(values.queries),
    k: Number(values.k),
  };
}

export interface Corpus {
  rows: NewMemoryRow[];
  queries: string[];
}

/**
 * Synthetic memories from the static model's rank-ordered vocabulary: 400
 * topics of 25 mid-frequency words; each memory mixes words of one topic
 * with Zipf-distributed common words. Queries take 3–5 topic words and 2
 * common words of a stored memory.
 */
export async function makeCorpus(n: number, queries: number): Promise<Corpus> {
  const tok = JSON.parse(await Deno.readTextFile(`${MODEL_DIR}tokenizer.json`));
  const words = Object.entries(tok.model.vocab as Record<string, number>)
    .sort((a, b) => a[1] - b[1])
    .map(([w]) => w)
    .filter((w) => /^[a-z]{3,14}$/.test(w));
  const rand = rng(42);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const common = () => words[Math.min(1999, Math.floor(Math.exp(rand() * Math.log(2000))))];
  const mid = words.slice(2000, 25_000);
  const topics = Array.from({ length: 400 }, () => Array.from({ length: 25 }, () => pick(mid)));
  const t0 = Date.UTC(2025, 0, 1);
  const rows: NewMemoryRow[] = [];
  const topicWords: string[][] = [];
  for (let i = 0; i < n; i++) {
    const topic = pick(topics);
    const len = 12 + Math.floor(rand() * 19);
    const own: string[] = [];
    const text: string[] = [];
    for (let j = 0; j < len; j++) {
      if (rand() < 0.4) {
        const w = pick(topic);
        own.push(w);
        text.push(w);
      } else text.push(common());
    }
    topicWords.push(own.length ? own : [pick(topic)]);
    rows.push({
      content: text.join(" "),
      kind: i < PROFILE_MEMORIES ? "profile" : "episodic",
      session_id: rand() < 0.5 ? `s${Math.floor(rand() * 50)}` : null,
      tokens: len,
      created_at: t0 + i * 60_000,
    });
  }
  const qs = Array.from({ length: queries + 20 }, () => {
    const own = topicWords[Math.floor(rand() * n)];
    const q = Array.from({ length: 3 + Math.floor(rand() * 3) }, () => pick(own));
    q.push(common(), common());
    return q.join(" ");
  });
  return { rows, queries: qs };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[Math.max(0, i)] * 100) / 100;
}

function summary(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  return { p50_ms: percentile(s, 50), p95_ms: percentile(s, 95), p99_ms: percentile(s, 99) };
}

/** Exact top-k ids by dot product (vectors are unit length). */
function exactTop(vectors: Float32Array[], ids: number[], q: Float32Array, k: number): number[] {
  const scored = vectors.map((v, i) => {
    let dot = 0;
    for (let d = 0; d < q.length; d++) dot += v[d] * q[d];
    return { id: ids[i], dot };
  });
  scored.sort((a, b) => b.dot - a.dot);
  return scored.slice(0, k).map((s) => s.id);
}

async function measure(
  backend: MemoryBackend,
  embedder: Embedder,
  corpus: Corpus,
  vectors: Float32Array[],
  queryVectors: Float32Array[],
  opts: MemoryBackendBenchOptions,
  bulk?: { before(): Promise<void>; after(): Promise<void> },
) {
  await backend.useEmbeddingModel(embedder.id, embedder.dimensions);
  await bulk?.before();
  const loadStart = performance.now();
  const ids: number[] = [];
  for (let i = 0; i < corpus.rows.length; i += BATCH) {
    const batch = corpus.rows.slice(i, i + BATCH).map((r, j) => ({
      ...r,
      embedding: { model: embedder.id, vector: vectors[i + j] },
    }));
    for (const m of await backend.insert(batch)) ids.push(m.id);
  }
  await bulk?.after();
  const loadS = (performance.now() - loadStart) / 1000;
  // Recall through the shared memory service, with the query vector given
  // (query embedding excluded from the clock).
  const service = new MemoryService(backend, { embedder: () => Promise.resolve(embedder) });
  await service.ready();
  const scope = { kind: "episodic" as const };
  const recall = async (i: number) => {
    const r = await service.recall(
      { query: corpus.queries[i], top_k: 10 },
      { queryVector: queryVectors[i] },
    );
    return r.memories.length;
  };
  for (let i = 0; i < 20; i++) await recall(i);
  const total: number[] = [];
  const lexical: number[] = [];
  const dense: number[] = [];
  let empty = 0;
  for (let i = 20; i < corpus.queries.length; i++) {
    let s = performance.now();
    if ((await recall(i)) === 0) empty++;
    total.push(performance.now() - s);
    s = performance.now();
    await backend.lexicalCandidates(corpus.queries[i], opts.k, scope);
    lexical.push(performance.now() - s);
    s = performance.now();
    await backend.vectorCandidates(queryVectors[i], opts.k, scope);
    dense.push(performance.now() - s);
  }
  // Approximate-search quality: overlap of the top 10 with the exact top 10.
  let hit = 0;
  const sample = Math.min(30, queryVectors.length);
  for (let i = 0; i < sample; i++) {
    const exact = new Set(exactTop(vectors, ids, queryVectors[i], 10));
    const got = await backend.vectorCandidates(queryVectors[i], 10, {});
    hit += got.filter((c) => exact.has(c.id)).length;
  }
  // Steady-state inserts into the full store (index maintained row by row).
  const extra = corpus.rows.slice(0, BATCH).map((r, j) => ({
    ...r,
    created_at: r.created_at - 86_400_000,
    embedding: { model: embedder.id, vector: vectors[j] },
  }));
  const steadyStart = performance.now();
  for (let i = 0; i < extra.length; i += 100) await backend.insert(extra.slice(i, i + 100));
  const steadyS = (performance.now() - steadyStart) / 1000;

  return {
    memories: ids.length,
    load_s: Math.round(loadS * 10) / 10,
    load_inserts_per_s: Math.round(ids.length / loadS),
    steady_inserts_per_s: Math.round(extra.length / steadyS),
    recall: summary(total),
    lexical_candidates: summary(lexical),
    vector_candidates: summary(dense),
    vector_recall_at_10: Math.round((hit / (sample * 10)) * 1000) / 1000,
    queries: total.length,
    queries_without_results: empty,
  };
}

/** The 1-minute load average (the machine is shared: figures scale with it). */
async function loadAverage(): Promise<number | undefined> {
  try {
    return Number((await Deno.readTextFile("/proc/loadavg")).split(" ")[0]);
  } catch {
    return undefined;
  }
}

/** Runs the benchmark; one JSON-able result per engine. */
export async function runMemoryBackendBench(
  opts: MemoryBackendBenchOptions = benchOptions(),
): Promise<Record<string, unknown>> {
  const embedder = await createFastStaticEmbedder({ dir: MODEL_DIR, id: "static:bench" });
  const corpus = await makeCorpus(opts.memories, opts.queries);
  const vectors: Float32Array[] = [];
  for (let i = 0; i < corpus.rows.length; i += 5000) {
    vectors.push(
      ...await embedder.embedDocuments(corpus.rows.slice(i, i + 5000).map((r) => r.content)),
    );
  }
  const queryVectors = await embedder.embedQueries(corpus.queries);
  const out: Record<string, unknown> = {
    setup: {
      load_average_at_start: await loadAverage(),
      memories: opts.memories,
      k: opts.k,
      dimensions: embedder.dimensions,
      note: "recall = MemoryService.recall({ query, top_k: 10 }) with the query vector given " +
        "(query embedding excluded): profile pool, BM25 + vector candidates (k 50), RRF, " +
        "getMany, budget, markRecalled",
    },
  };
  for (const engine of opts.backends) {
    if (engine === "sqlite") {
      const dir = await Deno.makeTempDir({ prefix: "gleaner-bench-mem-" });
      const backend = openSqliteMemoryBackend(`${dir}/memory.db`);
      try {
        out.sqlite = await measure(backend, embedder, corpus, vectors, queryVectors, opts);
      } finally {
        await backend.close();
        await Deno.remove(dir, { recursive: true });
      }
    } else {
      await using server = await startPostgres({
        settings: { shared_buffers: "512MB", maintenance_work_mem: "512MB" },
      });
      const db = await PostgresMemoryDatabase.open({ url: server.url });
      try {
        // Bulk load as one would import: without the HNSW index, built afterwards.
        const bulk = {
          before: async () => {
            await db.pool.query(`DROP INDEX IF EXISTS ${vectorIndexName(embedder.dimensions)}`);
          },
          after: async () => {
            await inTransaction(db.pool, (c) => ensureVectorIndex(c, embedder.dimensions));
            await db.pool.query("ANALYZE gleaner_memory");
          },
        };
        out.postgres = {
          ...await measure(
            db.backend("bench"),
            embedder,
            corpus,
            vectors,
            queryVectors,
            opts,
            bulk,
          ),
          server: "PostgreSQL 15 + pgvector 0.8.1 on loopback, shared_buffers 512MB, " +
            "fsync off, hnsw m=16 ef_construction=64 ef_search=100",
        };
      } finally {
        await db.close();
      }
    }
  }
  await embedder.close?.();
  out.load_average_at_end = await loadAverage();
  return out;
}
