/**
 * The time a question names, read as a range of `occurred_at`: a day
 * ("on 1 May, 2022", "May 3, 2023", "2023-05-03"), a month ("in May 2023"),
 * a year ("in 2022"), or a time relative to the recall's clock ("yesterday",
 * "last week", "last month", "last year"). Conversation turns tell what
 * happened shortly before they were said, so a range runs on for
 * {@link TELL_LAG_MS} after its end.
 *
 * @module
 */

const DAY = 86_400_000;

/**
 * How long after an event a turn that tells it may be said (the range's tail).
 *
 * @internal exported for tests only
 */
export const TELL_LAG_MS: number = 14 * DAY;

const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};

const MONTH =
  "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const DAY_NUM = "(\\d{1,2})(?:st|nd|rd|th)?";
const YEAR = "((?:19|20)\\d{2})";

const DAY_MONTH_YEAR = new RegExp(`\\b${DAY_NUM}\\s+(?:of\\s+)?${MONTH}\\.?,?\\s+${YEAR}\\b`, "i");
const MONTH_DAY_YEAR = new RegExp(`\\b${MONTH}\\.?\\s+${DAY_NUM},?\\s+${YEAR}\\b`, "i");
const ISO_DAY = /\b((?:19|20)\d{2})-(\d{2})-(\d{2})\b/;
const MONTH_YEAR = new RegExp(`\\b${MONTH}\\.?,?\\s+(?:of\\s+)?${YEAR}\\b`, "i");
const YEAR_ALONE = /\b(?:in|during|of|since|by)\s+((?:19|20)\d{2})\b/i;

/** A span of `occurred_at` (ms since the epoch): `start` inclusive, `end` exclusive. */
export interface TimeRange {
  /** First instant. */
  start: number;
  /** First instant after. */
  end: number;
}

function monthOf(name: string): number {
  return MONTHS[name.slice(0, 3).toLowerCase()];
}

function validDay(year: number, month: number, day: number): boolean {
  return day >= 1 && day <= new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/**
 * The range of time `query` names, its tail ({@link TELL_LAG_MS}) included,
 * or `undefined` when it names none. `now` (ms) anchors relative times.
 *
 * @example
 * ```ts
 * import { questionTimeRange, TELL_LAG_MS } from "./time_query.ts";
 * const may = questionTimeRange("What did Maria do in May 2023?", 0)!;
 * console.assert(may.start === Date.UTC(2023, 4, 1));
 * console.assert(may.end === Date.UTC(2023, 5, 1) + TELL_LAG_MS);
 * console.assert(questionTimeRange("What is Maria's dog called?", 0) === undefined);
 * ```
 */
export function questionTimeRange(query: string, now: number): TimeRange | undefined {
  const span = (start: number, end: number) => ({ start, end: end + TELL_LAG_MS });
  let m = DAY_MONTH_YEAR.exec(query);
  if (m) {
    const [day, month, year] = [Number(m[1]), monthOf(m[2]), Number(m[3])];
    if (validDay(year, month, day)) {
      return span(Date.UTC(year, month, day), Date.UTC(year, month, day + 1));
    }
  }
  m = MONTH_DAY_YEAR.exec(query);
  if (m) {
    const [month, day, year] = [monthOf(m[1]), Number(m[2]), Number(m[3])];
    if (validDay(year, month, day)) {
      return span(Date.UTC(year, month, day), Date.UTC(year, month, day + 1));
    }
  }
  m = ISO_DAY.exec(query);
  if (m) {
    const [year, month, day] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
    if (month >= 0 && month < 12 && validDay(year, month, day)) {
      return span(Date.UTC(year, month, day), Date.UTC(year, month, day + 1));
    }
  }
  m = MONTH_YEAR.exec(query);
  if (m) {
    const [month, year] = [monthOf(m[1]), Number(m[2])];
    return span(Date.UTC(year, month, 1), Date.UTC(year, month + 1, 1));
  }
  m = YEAR_ALONE.exec(query);
  if (m) return span(Date.UTC(Number(m[1]), 0, 1), Date.UTC(Number(m[1]) + 1, 0, 1));
  const today = Math.floor(now / DAY) * DAY;
  const text = query.toLowerCase();
  if (/\byesterday\b/.test(text)) return span(today - DAY, today);
  if (/\btoday\b/.test(text)) return span(today, today + DAY);
  if (/\b(last|past|previous)\s+week(end)?\b/.test(text)) return span(today - 7 * DAY, today);
  if (/\b(last|past|previous)\s+month\b/.test(text)) return span(today - 31 * DAY, today);
  if (/\b(last|past|previous)\s+year\b/.test(text)) return span(today - 366 * DAY, today);
  return undefined;
}

/**
 * The matches of a recall reordered with the time the query names: the
 * fused score of a memory whose `occurred_at` falls in `range` is multiplied
 * by `1 + weight` (when none or all of them fall in it, the order stays the
 * query's). Scores stay the query's.
 */
export function preferTimeRange(
  fused: readonly { key: number; score: number }[],
  occurredAt: (key: number) => number | undefined,
  range: TimeRange,
  weight: number,
): { key: number; score: number }[] {
  if (weight <= 0) return [...fused];
  const inside = (key: number) => {
    const at = occurredAt(key);
    return at !== undefined && at >= range.start && at < range.end;
  };
  const hits = fused.filter((f) => inside(f.key)).length;
  if (hits === 0 || hits === fused.length) return [...fused];
  const lifted = fused.map((f, order) => ({
    f,
    order,
    value: inside(f.key) ? f.score * (1 + weight) : f.score,
  }));
  lifted.sort((a, b) => b.value - a.value || a.order - b.order);
  return lifted.map((l) => l.f);
}
