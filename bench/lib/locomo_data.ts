/**
 * The locomo-dev conversations (five of LoCoMo's ten: Maharana et al., 2024,
 * "Evaluating Very Long-Term Conversational Memory of LLM Agents", CC BY-NC
 * 4.0), read from `shared/testdata/locomo-dev/locomo-dev.json` beside the
 * repository or from `GLEANER_LOCOMO_DEV` (the folder). Measure only: the
 * data is never copied into the repository or a package.
 *
 * @module
 */

/** The folder of locomo-dev: `GLEANER_LOCOMO_DEV`, else `shared/testdata/locomo-dev` beside the checkout. */
export const LOCOMO_DEV_DIR: string = Deno.env.get("GLEANER_LOCOMO_DEV") ??
  decodeURIComponent(new URL("../../../shared/testdata/locomo-dev", import.meta.url).pathname);

/** The question categories of LoCoMo that have answers in the conversation. */
export const LOCOMO_CATEGORIES: Readonly<Record<number, string>> = {
  1: "multi_hop",
  2: "temporal",
  3: "open_domain",
  4: "single_hop",
};

/** One turn of a conversation. */
export interface LocomoTurn {
  /** `D<session>:<turn>`. */
  dia_id: string;
  /** Session number (1-based). */
  session: number;
  /** The session's date as written (`1:56 pm on 8 May, 2023`). */
  date_text: string;
  /** The session's date-time (ms since the epoch, read as UTC). */
  date: number;
  /** Who said it. */
  speaker: string;
  /** What was said. */
  text: string;
}

/** One question with the turns that answer it. */
export interface LocomoQuestion {
  /** The question as written. */
  question: string;
  /** 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop. */
  category: number;
  /** Indexes into the conversation's `turns` of its evidence (ids that name no turn skipped). */
  evidence: number[];
}

/** One conversation. */
export interface LocomoConversation {
  /** `conv-26`, … */
  id: string;
  /** The two speakers. */
  speakers: [string, string];
  /** Every turn, session by session, in order. */
  turns: LocomoTurn[];
  /** Questions of categories 1–4 with at least one evidence turn. */
  questions: LocomoQuestion[];
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/**
 * A LoCoMo session date (`1:56 pm on 8 May, 2023`) as ms since the epoch (UTC).
 *
 * @example
 * ```ts
 * import { parseLocomoDate } from "./locomo_data.ts";
 * console.assert(parseLocomoDate("1:56 pm on 8 May, 2023") === Date.UTC(2023, 4, 8, 13, 56));
 * ```
 */
export function parseLocomoDate(text: string): number {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i.exec(
    text.trim(),
  );
  if (!m) throw new Error(`unreadable session date: ${text}`);
  const month = MONTHS.indexOf(m[5].toLowerCase());
  if (month < 0) throw new Error(`unreadable month: ${text}`);
  const hour = Number(m[1]) % 12 + (m[3].toLowerCase() === "pm" ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
}

interface RawConversation {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: { question: string; category: number; evidence?: string[] }[];
}

/** Reads locomo-dev from `dir` (default {@link LOCOMO_DEV_DIR}). */
export function loadLocomo(dir: string = LOCOMO_DEV_DIR): LocomoConversation[] {
  const raw = JSON.parse(Deno.readTextFileSync(`${dir}/locomo-dev.json`)) as RawConversation[];
  return raw.map((c) => {
    const conv = c.conversation;
    const sessions = Object.keys(conv)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const turns: LocomoTurn[] = [];
    for (const s of sessions) {
      const dateText = String(conv[`session_${s}_date_time`]);
      const date = parseLocomoDate(dateText);
      for (const t of conv[`session_${s}`] as RawTurn[]) {
        turns.push({
          dia_id: t.dia_id,
          session: s,
          date_text: dateText,
          date,
          speaker: t.speaker,
          text: t.text,
        });
      }
    }
    const byId = new Map(turns.map((t, i) => [t.dia_id, i] as const));
    const questions: LocomoQuestion[] = [];
    for (const q of c.qa) {
      if (!(q.category in LOCOMO_CATEGORIES)) continue;
      const evidence = [
        ...new Set(
          // A few ids in the source are joined (`D8:6; D9:17`) or misspelt (`D:11:26`).
          (q.evidence ?? []).flatMap((ids) => ids.split(/[;,\s]+/)).flatMap((id) => {
            const i = byId.get(id.replace(/^D:(\d+:\d+)$/, "D$1"));
            return i === undefined ? [] : [i];
          }),
        ),
      ];
      if (evidence.length === 0) continue;
      questions.push({ question: q.question, category: q.category, evidence });
    }
    return { id: c.sample_id, speakers: [conv.speaker_a, conv.speaker_b], turns, questions };
  });
}
