/**
 * Memory backends at scale: the same synthetic store (default 100,000
 * memories, embedded with the shipped static model) loaded into SQLite and
 * into PostgreSQL (a throwaway cluster with pgvector), then:
 *
 * - `MemoryService.recall` timed per query with the query vector computed
 *   before the clock starts, and each stage of it timed apart (every call the
 *   service makes to the store: profile pool, BM25 and vector candidates,
 *   authors, `getMany`, neighbours, `markRecalled`, some of them at once;
 *   `in_process` is the wall time outside all of them: fusion, token
 *   counting, rendering); the two retrievers are also timed alone.
 * - Steady-state inserts into the full store (batches of 100): one instance,
 *   and two instances at once; on PostgreSQL with fsync off and, after a
 *   restart of the server, on (`fsync`, `synchronous_commit`, `full_page_writes`).
 *   On PostgreSQL a save stages its vector and each instance's indexer moves
 *   it into the HNSW index in the background: after each insert run, the
 *   vectors still staged at the last acknowledged save and the seconds the
 *   indexers took to catch up (`*_index_catch_up`).
 * - Concurrent saves: `--clients` clients each saving one memory at a time
 *   through `MemoryService` on two instances (50 saves each), with group
 *   commit and with each save committed alone; every acknowledged save read
 *   back (on PostgreSQL with fsync on).
 * - A mixed load: `--clients` clients (default 20) saving one memory or
 *   recalling (half each) through two store instances for `--seconds`
 *   (default 20): throughput, p50/p95/p99 per operation, errors, and every
 *   acknowledged save read back from a fresh instance (lost must be 0). On
 *   PostgreSQL it runs with fsync on.
 * - The server's settings printed.
 *
 * PostgreSQL is bulk-loaded without its HNSW index, which is built afterwards
 * from the staged vectors (load time includes the build and a `VACUUM (ANALYZE)`).
 *
 * `deno task bench memory_backends --backend=postgres --memories=100000`
 * (`--backend=sqlite|postgres|both`, default both; `--queries=200`; `--k=50`;
 * `--clients=20`; `--seconds=20`, 0 skips the mixed load).
 *
 * `--pg-data=<folder>` keeps PostgreSQL's loaded cluster: right after the
 * load (and its index build and `VACUUM (ANALYZE)`) the server is stopped, its data
 * folder copied to `<folder>/<key>` (the key names the mode, the corpus and a
 * digest of every row) and started again; a later run with the same key
 * starts on a copy of that folder and skips the load (`load_s` is then null).
 * Either way recall is timed after that restart, so a saving run and a
 * reusing run measure the same state. A 1,000,000-row load takes about
 * 25 minutes; a copy under a minute.
 *
 * Tenant mode (PostgreSQL): `--tenants=1000 --tenant-memories=2000` loads the
 * `--memories` rows into one table shared by that many tenants (written
 * interleaved, as tenants write at once), one of them holding
 * `--tenant-memories`, and times that tenant's recall there and in a
 * database holding it alone (hosted mode's promise: within ×1.5), each in
 * the same two states: the first pass after a server restart, and warm.
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { createFastStaticEmbedder } from "../lib/embed/static_fast.ts";
import type { Embedder } from "../lib/embed/types.ts";
import { openSqliteMemoryBackend } from "../lib/memory/sqlite/backend.ts";
import { PostgresMemoryDatabase } from "../lib/memory/postgres/backend.ts";
import { inTransaction } from "../lib/memory/postgres/client.ts";
import { ensureVectorIndex, vectorIndexName } from "../lib/memory/postgres/schema.ts";
import { MemoryService } from "../lib/memory/service.ts";
import type { MemoryBackend, NewMemoryRow } from "../lib/memory/types.ts";
import { isSavedData, type PostgresServer, startPostgres } from "../testing/fixtures/postgres.ts";
import { rng } from "../lib/memory/testdata/rng.ts";
import { treeCpuMs } from "./lib/proc.ts";

const MODEL_DIR = new URL("../models/static/", import.meta.url).pathname;
const BATCH = 1000;
/** Standing facts about the user (the profile pool every recall attaches). */
const PROFILE_MEMORIES = 50;
/** Single-memory saves per client in the concurrent saves measure. */
const SAVES_PER_CLIENT = 50;

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
  /** Clients of the mixed load. */
  clients: number;
  /** Seconds the mixed load runs (0: skipped). */
  seconds: number;
  /** Tenants sharing the PostgreSQL table (tenant mode when above 1). */
  tenants: number;
  /** Memories of the measured tenant in tenant mode. */
  tenantMemories: number;
  /**
   * PostgreSQL: a folder where the loaded cluster is kept (one sub-folder per
   * corpus and mode), so that a later run with the same corpus starts on a
   * copy of it instead of loading again.
   */
  pgData?: string;
}

/**
 * Reads `--backend=`, `--memories=`, `--queries=`, `--k=`, `--clients=`,
 * `--seconds=`, `--tenants=`, `--tenant-memories=` from `args`.
 */
export function benchOptions(args: string[] = Deno.args): MemoryBackendBenchOptions {
  const { values } = parseArgs({
    args: args.filter((a) => a.startsWith("--")),
    options: {
      backend: { type: "string", default: "both" },
      memories: { type: "string", default: "100000" },
      queries: { type: "string", default: "200" },
      k: { type: "string", default: "50" },
      clients: { type: "string", default: "20" },
      seconds: { type: "string", default: "20" },
      tenants: { type: "string", default: "1" },
      "tenant-memories": { type: "string", default: "2000" },
      "pg-data": { type: "string" },
    },
    strict: false,
  });
  const b = String(values.backend);
  return {
    backends: b === "both" ? ["sqlite", "postgres"] : [b as "sqlite" | "postgres"],
    memories: Number(values.memories),
    queries: Number(values.queries),
    k: Number(values.k),
    clients: Number(values.clients),
    seconds: Number(values.seconds),
    tenants: Number(values.tenants),
    tenantMemories: Number(values["tenant-memories"]),
    pgData: typeof values["pg-data"] === "string" ? values["pg-data"] : undefined,
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

/** The store calls of one recall: time per method, and the intervals they spanned. */
interface StageClock {
  /** Milliseconds per method name. */
  ms: Map<string, number>;
  /** [start, end] of every call (calls run at once overlap). */
  spans: [number, number][];
}

/**
 * `backend` with every method call timed into `clock` (by method name). Each
 * call goes to the real backend unchanged: this only reads the clock. A
 * SQLite call does its work before it returns (its promise is already
 * settled), so it is timed to its return; a PostgreSQL call until it settles.
 */
function timedBackend(backend: MemoryBackend, clock: StageClock): MemoryBackend {
  const syncWork = backend.engine === "sqlite";
  return new Proxy(backend, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function" || typeof prop !== "string" || prop === "close") {
        return value;
      }
      return async (...args: unknown[]) => {
        const start = performance.now();
        let end = start;
        try {
          const pending = value.apply(target, args);
          end = performance.now();
          const out = await pending;
          if (!syncWork) end = performance.now();
          return out;
        } finally {
          clock.ms.set(prop, (clock.ms.get(prop) ?? 0) + end - start);
          clock.spans.push([start, end]);
        }
      };
    },
  });
}

/** Milliseconds covered by at least one of `spans`. */
function covered(spans: [number, number][]): number {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let [from, to] = [-Infinity, -Infinity];
  for (const [s, e] of sorted) {
    if (s > to) {
      if (to > from) total += to - from;
      [from, to] = [s, e];
    } else to = Math.max(to, e);
  }
  if (to > from) total += to - from;
  return total;
}

/** Rows `from` … `from + n` of the corpus, with their vectors, created a day earlier. */
function extraRows(
  corpus: Corpus,
  vectors: Float32Array[],
  embedder: Embedder,
  from: number,
  n: number,
  tag: string,
): NewMemoryRow[] {
  return Array.from({ length: n }, (_, j) => {
    const i = (from + j) % corpus.rows.length;
    const r = corpus.rows[i];
    return {
      ...r,
      content: `${r.content} ${tag}${j}`,
      kind: "episodic" as const,
      created_at: r.created_at - 86_400_000,
      embedding: { model: embedder.id, vector: vectors[i] },
    };
  });
}

/**
 * After steady inserts on PostgreSQL: the vectors still staged when the last
 * save was acknowledged, and the seconds until the indexers of `dbs` (one
 * per instance, running since the first save) had moved them all into the
 * HNSW index.
 */
async function indexCatchUp(
  dbs: PostgresMemoryDatabase[],
): Promise<{ staged_at_last_save: number; catch_up_s: number }> {
  const staged = await dbs[0].indexer.backlog();
  const start = performance.now();
  await Promise.all(dbs.map((db) => db.indexer.drain()));
  return {
    staged_at_last_save: staged,
    catch_up_s: Math.round((performance.now() - start) / 100) / 10,
  };
}

/**
 * Inserts `perInstance` rows into each of `instances` at once, in batches of
 * 100 (each batch one acknowledged transaction); memories per second overall.
 */
async function steadyInserts(
  instances: MemoryBackend[],
  corpus: Corpus,
  vectors: Float32Array[],
  embedder: Embedder,
  perInstance: number,
  tag: string,
): Promise<number> {
  const start = performance.now();
  await Promise.all(instances.map(async (backend, n) => {
    const rows = extraRows(corpus, vectors, embedder, n * perInstance, perInstance, `${tag}${n}x`);
    for (let i = 0; i < rows.length; i += 100) await backend.insert(rows.slice(i, i + 100));
  }));
  return Math.round((instances.length * perInstance) / ((performance.now() - start) / 1000));
}

/**
 * Single-memory saves through `MemoryService` (what an agent's `save` call
 * is), `clients` clients at once over two store instances, `perClient` saves
 * each: with group commit (the saves running at once share a transaction)
 * and with each save committed alone (`groupCommitRows: 1`). Every
 * acknowledged save is read back through `check` (a fresh instance).
 */
async function concurrentSaves(
  instances: MemoryBackend[],
  check: MemoryBackend,
  embedder: Embedder,
  corpus: Corpus,
  vectors: Float32Array[],
  clients: number,
  perClient: number,
) {
  const out: Record<string, unknown> = { clients, saves_per_client: perClient };
  // As a long-running server serves them: SQLite's in-memory vector indexes
  // loaded first (a batch of 16 checks starts the load), the wait reported.
  const started = performance.now();
  for (const backend of instances) {
    const loaded = (backend as { vectorIndexLoaded?: () => Promise<unknown> }).vectorIndexLoaded;
    if (!loaded || !backend.nearestMany) continue;
    await backend.nearestMany(vectors.slice(0, 16), vectors.slice(0, 16).map(() => ({})), 2);
    await loaded.call(backend);
  }
  out.vector_index_wait_s = Math.round((performance.now() - started) / 100) / 10;
  for (const [name, groupCommitRows] of [["alone", 1], ["grouped", undefined]] as const) {
    const services = instances.map((b) =>
      new MemoryService(b, { embedder: () => Promise.resolve(embedder), groupCommitRows })
    );
    for (const s of services) await s.ready();
    const acked: number[] = [];
    const ms: number[] = [];
    let errors = 0;
    const start = performance.now();
    await Promise.all(Array.from({ length: clients }, async (_, c) => {
      const service = services[c % services.length];
      for (let n = 0; n < perClient; n++) {
        const i = (c * perClient + n) % corpus.rows.length;
        const t = performance.now();
        try {
          const r = await service.save(
            { memories: [{ content: `${corpus.rows[i].content} ${name}${c}x${n}` }] },
            { vectors: [vectors[i]] },
          );
          for (const x of r.results) if (x.status === "saved") acked.push(x.id);
          ms.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }));
    const seconds = (performance.now() - start) / 1000;
    let found = 0;
    for (let i = 0; i < acked.length; i += 1000) {
      found += (await check.getMany(acked.slice(i, i + 1000))).length;
    }
    out[name] = {
      saves_per_s: Math.round(acked.length / seconds),
      save: summary(ms),
      errors,
      acknowledged_saves: acked.length,
      lost_acknowledged_saves: acked.length - found,
    };
  }
  return out;
}

/**
 * The mixed load: `clients` clients, client i on instance i mod 2, each
 * saving one memory or recalling (half each) until `seconds` have passed.
 * Every acknowledged save is then read back through `check` (a fresh instance).
 */
async function mixedLoad(
  instances: MemoryBackend[],
  check: MemoryBackend,
  embedder: Embedder,
  corpus: Corpus,
  vectors: Float32Array[],
  queryVectors: Float32Array[],
  opts: MemoryBackendBenchOptions,
) {
  const services = instances.map((b) =>
    new MemoryService(b, { embedder: () => Promise.resolve(embedder) })
  );
  for (const s of services) await s.ready();
  const saves: number[] = [];
  const recalls: number[] = [];
  const errors: Record<string, number> = {};
  const acked: number[] = [];
  const deadline = performance.now() + opts.seconds * 1000;
  const start = performance.now();
  await Promise.all(Array.from({ length: opts.clients }, async (_, c) => {
    const service = services[c % services.length];
    const rand = rng(1000 + c);
    for (let n = 0; performance.now() < deadline; n++) {
      const t = performance.now();
      try {
        if (rand() < 0.5) {
          const i = Math.floor(rand() * corpus.rows.length);
          const out = await service.save(
            { memories: [{ content: `${corpus.rows[i].content} mixed${c}x${n}` }] },
            { vectors: [vectors[i]] },
          );
          for (const r of out.results) if (r.status === "saved") acked.push(r.id);
          saves.push(performance.now() - t);
        } else {
          const i = Math.floor(rand() * corpus.queries.length);
          await service.recall({ query: corpus.queries[i], top_k: 10 }, {
            queryVector: queryVectors[i],
          });
          recalls.push(performance.now() - t);
        }
      } catch (error) {
        const code = (error as { code?: string }).code ?? String(error).slice(0, 80);
        errors[code] = (errors[code] ?? 0) + 1;
      }
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  let found = 0;
  for (let i = 0; i < acked.length; i += 1000) {
    found += (await check.getMany(acked.slice(i, i + 1000))).length;
  }
  return {
    clients: opts.clients,
    instances: instances.length,
    seconds: Math.round(seconds * 10) / 10,
    operations_per_s: Math.round((saves.length + recalls.length) / seconds),
    saves_per_s: Math.round(saves.length / seconds),
    recalls_per_s: Math.round(recalls.length / seconds),
    save: summary(saves),
    recall: summary(recalls),
    errors: Object.values(errors).reduce((a, b) => a + b, 0),
    error_codes: errors,
    acknowledged_saves: acked.length,
    lost_acknowledged_saves: acked.length - found,
  };
}

/** Recall stages as timed by {@link timedBackend}, in the order recall calls them. */
const STAGES = [
  "profilePool",
  "lexicalCandidates",
  "vectorCandidates",
  "authors",
  "getMany",
  "sessionNeighbours",
  "markRecalled",
  "list",
];

/** The corpus as stored: ids in corpus order, and the load's seconds (null: a kept cluster). */
interface Loaded {
  ids: number[];
  loadS: number | null;
}

/**
 * Inserts the corpus into `backend` in batches of {@link BATCH}; `bulk` runs
 * before and after (PostgreSQL: the HNSW index dropped, then built). The
 * seconds include `bulk.after`.
 */
async function loadCorpus(
  backend: MemoryBackend,
  embedder: Embedder,
  corpus: Corpus,
  vectors: Float32Array[],
  bulk?: { before(): Promise<void>; after(): Promise<void> },
): Promise<Loaded> {
  await backend.useEmbeddingModel(embedder.id, embedder.dimensions);
  await bulk?.before();
  const start = performance.now();
  const ids: number[] = [];
  for (let i = 0; i < corpus.rows.length; i += BATCH) {
    const batch = corpus.rows.slice(i, i + BATCH).map((r, j) => ({
      ...r,
      embedding: { model: embedder.id, vector: vectors[i + j] },
    }));
    for (const m of await backend.insert(batch)) ids.push(m.id);
  }
  await bulk?.after();
  return { ids, loadS: (performance.now() - start) / 1000 };
}

/**
 * The sub-folder of `--pg-data` for this mode and corpus: the mode's figures,
 * the embedder and an FNV-1a digest of every row's content, kind, session and time.
 */
function keptClusterKey(mode: string, corpus: Corpus, embedder: Embedder): string {
  let h = 0x811c9dc5;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  };
  for (const r of corpus.rows) {
    mix(`${r.content}\u0000${r.kind}\u0000${r.session_id}\u0000${r.created_at}\n`);
  }
  const digest = (h >>> 0).toString(16).padStart(8, "0");
  return `${mode}-${corpus.rows.length}-${embedder.id}-${digest}`.replace(/[^A-Za-z0-9.-]+/g, "_");
}

/**
 * The bench's cluster for `mode`: started on the copy kept under `--pg-data`
 * when there is one (`reuse`), else empty; `kept` is where a fresh load is saved.
 */
async function benchCluster(
  mode: string,
  corpus: Corpus,
  embedder: Embedder,
  opts: MemoryBackendBenchOptions,
): Promise<{ server: PostgresServer; kept?: string; reuse: boolean }> {
  const kept = opts.pgData && `${opts.pgData}/${keptClusterKey(mode, corpus, embedder)}`;
  const reuse = kept ? await isSavedData(kept) : false;
  const server = await startPostgres({
    settings: { shared_buffers: "512MB", maintenance_work_mem: "512MB" },
    data: reuse ? kept : undefined,
  });
  return { server, kept: kept || undefined, reuse };
}

async function measure(
  backend: MemoryBackend,
  embedder: Embedder,
  corpus: Corpus,
  vectors: Float32Array[],
  queryVectors: Float32Array[],
  opts: MemoryBackendBenchOptions,
  load: Loaded,
  serverPid?: number,
) {
  await backend.useEmbeddingModel(embedder.id, embedder.dimensions);
  const { ids, loadS } = load;
  // Recall through the shared memory service, with the query vector given
  // (query embedding excluded from the clock), each store call timed apart.
  const clock: StageClock = { ms: new Map(), spans: [] };
  const stages = clock.ms;
  const service = new MemoryService(timedBackend(backend, clock), {
    embedder: () => Promise.resolve(embedder),
  });
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
  // SQLite's in-memory vector index loads in the background once searches
  // ask for it (searches read sqlite-vec meanwhile): recall is timed on the
  // loaded index, as a long-running server serves it; the wait is reported.
  const indexStart = performance.now();
  const loaded = await (backend as { vectorIndexLoaded?: () => Promise<unknown> })
    .vectorIndexLoaded?.();
  const indexWaitS = (performance.now() - indexStart) / 1000;
  const total: number[] = [];
  const cpu: number[] = [];
  const byStage = new Map<string, number[]>([...STAGES, "in_process"].map((s) => [s, []]));
  const lexical: number[] = [];
  const dense: number[] = [];
  let empty = 0;
  let serverCpu: number | null = serverPid ? 0 : null;
  for (let i = 20; i < corpus.queries.length; i++) {
    stages.clear();
    clock.spans.length = 0;
    const serverStart = serverCpu === null ? null : treeCpuMs(serverPid ?? null);
    const cpuStart = process.cpuUsage();
    let s = performance.now();
    if ((await recall(i)) === 0) empty++;
    const took = performance.now() - s;
    const used = process.cpuUsage(cpuStart);
    const serverEnd = serverStart === null ? null : treeCpuMs(serverPid ?? null);
    serverCpu = serverStart === null || serverEnd === null || serverCpu === null
      ? null
      : serverCpu + serverEnd - serverStart;
    total.push(took);
    cpu.push((used.user + used.system) / 1000);
    // The store calls overlap (recall reads at once): what is left of the
    // wall time outside all of them is the service's own work.
    const inStore = covered(clock.spans);
    for (const name of stages.keys()) if (!byStage.has(name)) byStage.set(name, []);
    for (const [name, list] of byStage) {
      list.push(name === "in_process" ? took - inStore : stages.get(name) ?? 0);
    }
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
  const extra = extraRows(corpus, vectors, embedder, 0, BATCH, "steady");
  const steadyStart = performance.now();
  for (let i = 0; i < extra.length; i += 100) await backend.insert(extra.slice(i, i + 100));
  const steadyS = (performance.now() - steadyStart) / 1000;

  return {
    memories: ids.length,
    load_s: loadS === null ? null : Math.round(loadS * 10) / 10,
    load_inserts_per_s: loadS === null ? null : Math.round(ids.length / loadS),
    steady_inserts_per_s: Math.round(extra.length / steadyS),
    ...(loaded !== undefined
      ? { vector_index_wait_after_warm_up_s: Math.round(indexWaitS * 10) / 10 }
      : {}),
    recall: summary(total),
    // CPU time of this process per recall: on a shared machine, the part of
    // the wall time that is work rather than waiting for a core (for SQLite,
    // all of it; for PostgreSQL, the client's share only).
    recall_process_cpu: summary(cpu),
    // The server's CPU time (every PostgreSQL process, from /proc in 10 ms
    // ticks: only the mean over the recalls is meaningful).
    ...(serverCpu !== null
      ? { recall_server_cpu_mean_ms: Math.round((serverCpu / total.length) * 100) / 100 }
      : {}),
    recall_stages: Object.fromEntries(
      [...byStage].filter(([, ms]) => ms.some((x) => x > 0)).map(([name, ms]) => [
        name,
        summary(ms),
      ]),
    ),
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

/** Server settings that decide the figures. */
const PG_SETTINGS = [
  "server_version",
  "shared_buffers",
  "work_mem",
  "maintenance_work_mem",
  "effective_cache_size",
  "max_connections",
  "fsync",
  "synchronous_commit",
  "full_page_writes",
  "wal_level",
  "max_wal_size",
  "checkpoint_timeout",
  "autovacuum",
  "jit",
];

async function pgSettings(db: PostgresMemoryDatabase): Promise<Record<string, string>> {
  const { rows } = await db.pool.query<{ name: string; setting: string; unit: string | null }>(
    `SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1::text[])
     UNION ALL SELECT 'pgvector', extversion, NULL FROM pg_extension WHERE extname = 'vector'
     UNION ALL SELECT 'hnsw.ef_search', current_setting('hnsw.ef_search', true), NULL
     UNION ALL SELECT 'hnsw.iterative_scan', current_setting('hnsw.iterative_scan', true), NULL`,
    [PG_SETTINGS],
  );
  const out: Record<string, string> = {};
  for (const r of rows) out[r.name] = r.unit ? `${r.setting} (${r.unit})` : r.setting;
  return out;
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
        "getMany, budget, markRecalled; recall_stages = each store call of it, in_process = the rest",
    },
  };
  for (const engine of opts.backends) {
    if (engine === "sqlite") {
      const dir = await Deno.makeTempDir({ prefix: "gleaner-bench-mem-" });
      const path = `${dir}/memory.db`;
      const backend = openSqliteMemoryBackend(path);
      try {
        const result: Record<string, unknown> = await measure(
          backend,
          embedder,
          corpus,
          vectors,
          queryVectors,
          opts,
          await loadCorpus(backend, embedder, corpus, vectors),
        );
        const second = openSqliteMemoryBackend(path);
        try {
          result.steady_inserts_two_instances_per_s = await steadyInserts(
            [backend, second],
            corpus,
            vectors,
            embedder,
            500,
            "pair",
          );
          const check = openSqliteMemoryBackend(path);
          try {
            result.concurrent_saves = await concurrentSaves(
              [backend, second],
              check,
              embedder,
              corpus,
              vectors,
              opts.clients,
              SAVES_PER_CLIENT,
            );
          } finally {
            await check.close();
          }
          if (opts.seconds > 0) {
            const check = openSqliteMemoryBackend(path);
            try {
              result.mixed_load = await mixedLoad(
                [backend, second],
                check,
                embedder,
                corpus,
                vectors,
                queryVectors,
                opts,
              );
            } finally {
              await check.close();
            }
          }
        } finally {
          await second.close();
        }
        result.settings = {
          journal_mode: "wal",
          synchronous: "normal (durable at each commit against a crash of the process)",
        };
        out.sqlite = result;
      } finally {
        await backend.close();
        await Deno.remove(dir, { recursive: true });
      }
    } else if (opts.tenants > 1) {
      out.postgres_tenants = await measureTenants(embedder, corpus, vectors, queryVectors, opts);
    } else {
      out.postgres = await measurePostgres(embedder, corpus, vectors, queryVectors, opts);
    }
  }
  await embedder.close?.();
  out.load_average_at_end = await loadAverage();
  return out;
}

async function measurePostgres(
  embedder: Embedder,
  corpus: Corpus,
  vectors: Float32Array[],
  queryVectors: Float32Array[],
  opts: MemoryBackendBenchOptions,
): Promise<Record<string, unknown>> {
  const { server: started, kept, reuse } = await benchCluster("plain", corpus, embedder, opts);
  await using server = started;
  const result: Record<string, unknown> = {};
  let db = await PostgresMemoryDatabase.open({ url: server.url });
  let open = true;
  /** Closes `db`, runs `work` on the server (a save, a restart) and opens a new `db`. */
  const reopenAround = async (work: () => Promise<void>) => {
    await db.close();
    open = false;
    await work();
    db = await PostgresMemoryDatabase.open({ url: server.url });
    open = true;
  };
  try {
    let loaded: Loaded;
    if (reuse) {
      const { rows } = await db.pool.query<{ id: string }>(
        "SELECT id FROM gleaner_memory WHERE tenant = 'bench' ORDER BY id LIMIT $1",
        [corpus.rows.length],
      );
      loaded = { ids: rows.map((r) => Number(r.id)), loadS: null };
    } else {
      // Bulk load as one would import: without the HNSW index, built afterwards.
      loaded = await loadCorpus(db.backend("bench"), embedder, corpus, vectors, {
        before: async () => {
          await db.pool.query(`DROP INDEX IF EXISTS ${vectorIndexName(embedder.dimensions)}`);
        },
        after: async () => {
          // Staged vectors moved while there is no HNSW index to maintain, then the build.
          await db.indexer.drain();
          await inTransaction(db.pool, (c) => ensureVectorIndex(c, embedder.dimensions));
          // What autovacuum does after a bulk load, done before the clock starts rather than during it.
          await db.pool.query("VACUUM (ANALYZE) gleaner_memory");
        },
      });
      if (kept) await reopenAround(() => server.saveData(kept));
    }
    if (kept) result.kept_cluster = { folder: kept, reused: reuse };
    result.settings_fsync_off = await pgSettings(db);
    Object.assign(
      result,
      await measure(
        db.backend("bench"),
        embedder,
        corpus,
        vectors,
        queryVectors,
        opts,
        loaded,
        await postmasterPid(server.socketDir),
      ),
    );
    result.steady_index_catch_up = await indexCatchUp([db]);
    const second = await PostgresMemoryDatabase.open({ url: server.url });
    try {
      result.steady_inserts_two_instances_per_s = {
        fsync_off: await steadyInserts(
          [db.backend("bench"), second.backend("bench")],
          corpus,
          vectors,
          embedder,
          500,
          "pairoff",
        ),
      };
      result.two_instances_index_catch_up = { fsync_off: await indexCatchUp([db, second]) };
    } finally {
      await second.close();
    }
    // Durable writes: the same server restarted with fsync on.
    await reopenAround(() =>
      server.restart({ fsync: "on", synchronous_commit: "on", full_page_writes: "on" })
    );
    result.settings_fsync_on = await pgSettings(db);
    const other = await PostgresMemoryDatabase.open({ url: server.url });
    try {
      const pair = [db.backend("bench"), other.backend("bench")];
      (result.steady_inserts_two_instances_per_s as Record<string, number>).fsync_on =
        await steadyInserts(pair, corpus, vectors, embedder, 500, "pairon");
      (result.two_instances_index_catch_up as Record<string, unknown>).fsync_on =
        await indexCatchUp([db, other]);
      const checkSaves = await PostgresMemoryDatabase.open({ url: server.url });
      try {
        result.concurrent_saves_fsync_on = await concurrentSaves(
          pair,
          checkSaves.backend("bench"),
          embedder,
          corpus,
          vectors,
          opts.clients,
          SAVES_PER_CLIENT,
        );
      } finally {
        await checkSaves.close();
      }
      if (opts.seconds > 0) {
        const check = await PostgresMemoryDatabase.open({ url: server.url });
        try {
          result.mixed_load_fsync_on = await mixedLoad(
            pair,
            check.backend("bench"),
            embedder,
            corpus,
            vectors,
            queryVectors,
            opts,
          );
        } finally {
          await check.close();
        }
      }
    } finally {
      await other.close();
    }
    result.server = "PostgreSQL on loopback (throwaway cluster), hnsw m=16 ef_construction=64; " +
      "recall and bulk load with fsync off, then restarted with fsync on for the durable writes";
  } finally {
    if (open) await db.close();
  }
  return result;
}

/** The server's main process (first line of `postmaster.pid` in the fixture's data folder). */
async function postmasterPid(dir: string): Promise<number | undefined> {
  try {
    const pid = Number((await Deno.readTextFile(`${dir}/data/postmaster.pid`)).split("\n")[0]);
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Recall latency of `backend` (query vector given), after 20 warm-up recalls. */
async function recallLatency(
  backend: MemoryBackend,
  embedder: Embedder,
  corpus: Corpus,
  queryVectors: Float32Array[],
) {
  const service = new MemoryService(backend, { embedder: () => Promise.resolve(embedder) });
  await service.ready();
  const ms: number[] = [];
  let empty = 0;
  for (let i = 0; i < corpus.queries.length; i++) {
    const s = performance.now();
    const r = await service.recall({ query: corpus.queries[i], top_k: 10 }, {
      queryVector: queryVectors[i],
    });
    if (i >= 20) {
      ms.push(performance.now() - s);
      if (r.memories.length === 0) empty++;
    }
  }
  return { ...summary(ms), queries_without_results: empty };
}

/**
 * Tenant mode: the measured tenant `t0` holds rows 0, s, 2s, … of the corpus
 * (`--tenant-memories` of them), the other tenants the rest, written in
 * rounds of up to 20 rows per tenant so every tenant's rows are spread over
 * the table; then t0's recall in the shared table and in a database with t0 alone.
 */
async function measureTenants(
  embedder: Embedder,
  corpus: Corpus,
  vectors: Float32Array[],
  queryVectors: Float32Array[],
  opts: MemoryBackendBenchOptions,
): Promise<Record<string, unknown>> {
  const mode = `tenants${opts.tenants}x${opts.tenantMemories}`;
  const { server: started, kept, reuse } = await benchCluster(mode, corpus, embedder, opts);
  await using server = started;
  const n = corpus.rows.length;
  const own = Math.min(opts.tenantMemories, n);
  const stride = Math.max(1, Math.floor(n / own));
  const rowsOf = new Map<string, NewMemoryRow[]>();
  let mine = 0;
  corpus.rows.forEach((r, i) => {
    const tenant = i % stride === 0 && mine < own
      ? (mine++, "t0")
      : `t${1 + (i % (opts.tenants - 1))}`;
    const list = rowsOf.get(tenant) ?? [];
    list.push({ ...r, embedding: { model: embedder.id, vector: vectors[i] } });
    rowsOf.set(tenant, list);
  });
  const withDatabase = async <T>(url: string, work: (db: PostgresMemoryDatabase) => Promise<T>) => {
    const db = await PostgresMemoryDatabase.open({ url });
    try {
      return await work(db);
    } finally {
      await db.close();
    }
  };
  const load = (url: string, tenants: string[]) =>
    withDatabase(url, async (db) => {
      for (const t of tenants) {
        await db.backend(t).useEmbeddingModel(embedder.id, embedder.dimensions);
      }
      await db.pool.query(`DROP INDEX IF EXISTS ${vectorIndexName(embedder.dimensions)}`);
      const start = performance.now();
      for (let round = 0;; round++) {
        const work = tenants
          .map((t) => ({ t, rows: rowsOf.get(t)!.slice(round * 20, round * 20 + 20) }))
          .filter((w) => w.rows.length > 0);
        if (work.length === 0) break;
        for (let i = 0; i < work.length; i += 8) {
          await Promise.all(work.slice(i, i + 8).map((w) => db.backend(w.t).insert(w.rows)));
        }
      }
      await db.indexer.drain();
      await inTransaction(db.pool, (c) => ensureVectorIndex(c, embedder.dimensions));
      // What autovacuum does after a bulk load, done before the clock starts rather than during it.
      await db.pool.query("VACUUM (ANALYZE) gleaner_memory");
      return Math.round((performance.now() - start) / 100) / 10;
    });
  // Each store measured in the same two states: its first pass after a server
  // restart (the buffer pool empty, the OS cache as the load left it), then a
  // second pass over the same queries (its pages in the buffer pool).
  const passes = async (url: string) => {
    await server.restart();
    return await withDatabase(url, async (db) => ({
      first: await recallLatency(db.backend("t0"), embedder, corpus, queryVectors),
      warm: await recallLatency(db.backend("t0"), embedder, corpus, queryVectors),
    }));
  };
  const aloneUrl = server.url.replace(/\/postgres$/, "/alone");
  let sharedLoad: number | null = null;
  if (!reuse) {
    sharedLoad = await load(server.url, [...rowsOf.keys()]);
    await withDatabase(server.url, (db) => db.pool.query("CREATE DATABASE alone"));
    await load(aloneUrl, ["t0"]);
    if (kept) await server.saveData(kept);
  }
  const inShared = await passes(server.url);
  const byItself = await passes(aloneUrl);
  const ratio = (pass: "first" | "warm") =>
    Math.round((inShared[pass].p95_ms / byItself[pass].p95_ms) * 100) / 100;
  return {
    tenants: rowsOf.size,
    memories: n,
    tenant_memories: own,
    load_s: sharedLoad,
    ...(kept ? { kept_cluster: { folder: kept, reused: reuse } } : {}),
    recall_in_shared_table: inShared,
    recall_alone: byItself,
    p95_ratio_first_pass: ratio("first"),
    p95_ratio_warm: ratio("warm"),
    note: "first = the first pass after a server restart, warm = a second pass over the same " +
      "queries; the shared table holds every tenant's rows interleaved as they were written",
  };
}
