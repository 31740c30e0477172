/**
 * Conversational memory benchmark: a long multi-session conversation (the
 * seeded synthetic one of `bench/lib/conversation_data.ts`, whose module doc
 * gives the procedure), each turn saved as one memory (`User: …` /
 * `Assistant: …`, `session_id` the session) through the real
 * {@link MemoryService} on a real SQLite file with the static model, session
 * by session. Each question is asked across all sessions (`top_k` 10);
 * reported per half (`tune`, `report`) and per question kind: recall@5 and
 * recall@10 (the share of a question's answer-bearing turns among the first
 * 5 / 10 recalled, averaged over the questions), and the tokens of each recall
 * as the model receives it (`renderRecall`), hybrid (the default) against
 * BM25 alone on the same store.
 *
 * `deno task bench conversation`, or alone: `deno run -A bench/conversation.ts [--seed 19]`.
 *
 * @module
 */
import { createStaticEmbedder } from "../lib/embed/static.ts";
import { countTokens } from "../lib/text/tokens.ts";
import { renderRecall } from "../lib/memory/render.ts";
import { MemoryService } from "../lib/memory/service.ts";
import { openSqliteMemoryBackend } from "../lib/memory/sqlite/backend.ts";
import { conversation, type ConversationQuestion } from "./lib/conversation_data.ts";

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Options of {@link runConversationBench}. */
export interface ConversationBenchOptions {
  /** Seed of the conversation (default 19). */
  seed?: number;
}

interface Tally {
  questions: number;
  r5: number;
  r10: number;
}

/**
 * Builds the conversation's store and measures recall; returns a JSON-ready object.
 *
 * @example
 * ```ts ignore
 * import { runConversationBench } from "./conversation.ts";
 * console.log(JSON.stringify(await runConversationBench(), null, 2));
 * ```
 */
export async function runConversationBench(
  options: ConversationBenchOptions = {},
): Promise<Record<string, unknown>> {
  const conv = conversation(options.seed ?? 19);
  const embedder = await createStaticEmbedder();
  const root = await Deno.makeTempDir({ prefix: "gleaner-conversation-bench-" });
  const path = `${root}/memory.db`;
  const result: Record<string, unknown> = {
    embedder: embedder.id,
    sessions: conv.sessions,
    turns: conv.turns.length,
    questions: conv.questions.length,
    halves: {
      tune: conv.questions.filter((q) => q.half === "tune").length,
      report: conv.questions.filter((q) => q.half === "report").length,
    },
    recall_top_k: 10,
  };
  try {
    // Save: one call per session, one memory per turn.
    const ids: number[] = [];
    let duplicates = 0;
    {
      const service = new MemoryService(openSqliteMemoryBackend(path), {
        embedder: () => Promise.resolve(embedder),
      });
      try {
        await service.ready();
        for (let s = 1; s <= conv.sessions; s++) {
          const turns = conv.turns.filter((t) => t.session === s);
          const out = await service.save({
            memories: turns.map((t) => ({
              content: `${t.speaker === "user" ? "User" : "Assistant"}: ${t.text}`,
              session_id: `session-${String(s).padStart(2, "0")}`,
            })),
          });
          duplicates += out.duplicates;
          for (const r of out.results) ids.push(r.id);
        }
      } finally {
        await service.close();
      }
    }
    result.saved = ids.length - duplicates;
    result.duplicates = duplicates;
    result.all_turns_tokens = countTokens(
      conv.turns.map((t) => `- ${t.speaker === "user" ? "User" : "Assistant"}: ${t.text}`)
        .join("\n"),
    );

    for (const [mode, denseWeight] of [["hybrid", undefined], ["bm25", 0]] as const) {
      const service = new MemoryService(openSqliteMemoryBackend(path), {
        embedder: () => Promise.resolve(embedder),
        ...(denseWeight !== undefined ? { denseWeight } : {}),
      });
      try {
        await service.ready();
        const tallies = new Map<string, Tally>();
        const add = (key: string, r5: number, r10: number) => {
          const t = tallies.get(key) ?? { questions: 0, r5: 0, r10: 0 };
          t.questions++;
          t.r5 += r5;
          t.r10 += r10;
          tallies.set(key, t);
        };
        let tokens = 0;
        for (const q of conv.questions) {
          const out = await service.recall({ query: q.question, top_k: 10 });
          tokens += countTokens(renderRecall(out));
          const got = out.memories.map((m) => m.id);
          const [r5, r10] = [5, 10].map((k) => share(q, ids, got.slice(0, k)));
          for (const key of [q.half, `${q.half}/${q.kind}`]) add(key, r5, r10);
        }
        const entry: Record<string, unknown> = {};
        for (const half of ["tune", "report"]) {
          const t = tallies.get(half)!;
          const kinds: Record<string, unknown> = {};
          for (const kind of ["fact", "fact_keyword", "current", "first"]) {
            const k = tallies.get(`${half}/${kind}`);
            if (k) kinds[kind] = summary(k);
          }
          entry[half] = { ...summary(t), by_kind: kinds };
        }
        entry.tokens_per_recall_mean = Math.round(tokens / conv.questions.length);
        result[mode] = entry;
      } finally {
        await service.close();
      }
    }
    return result;
  } finally {
    await embedder.close?.();
    await Deno.remove(root, { recursive: true });
  }
}

/** Share of the question's answer turns whose memory is among `got`. */
function share(q: ConversationQuestion, ids: number[], got: number[]): number {
  const want = q.answers.map((turn) => ids[turn]);
  return want.filter((id) => got.includes(id)).length / want.length;
}

function summary(t: Tally) {
  return {
    questions: t.questions,
    recall_at_5: round(t.r5 / t.questions),
    recall_at_10: round(t.r10 / t.questions),
  };
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--seed");
  const out = await runConversationBench(at >= 0 ? { seed: Number(Deno.args[at + 1]) } : {});
  Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(out, null, 2) + "\n"));
}
