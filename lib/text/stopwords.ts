/**
 * Common English words that full-text scoring leaves out: they match most
 * texts, add almost nothing to BM25 and make every query score everything.
 * One list for passage ranking (`lib/rank/bm25.ts`) and memory search
 * (`lib/memory/text.ts`). It includes the fragments a contraction leaves when
 * text is split on letters and digits (`don't` → `don`, `t`).
 *
 * @example
 * ```ts
 * import { STOPWORDS } from "./stopwords.ts";
 * console.assert(STOPWORDS.has("the") && STOPWORDS.has("don"));
 * console.assert(!STOPWORDS.has("deploy"));
 * ```
 *
 * @module
 */

/** The stop-words (lower case). */
export const STOPWORDS: ReadonlySet<string> = new Set(
  ("a about above after again against all am an and any are as at be because been before being " +
    "below between both but by can could did do does doing down during each few for from further " +
    "had has have having he her here hers herself him himself his how i if in into is it its itself " +
    "just me more most my myself no nor not now of off on once only or other our ours ourselves out " +
    "over own same she should so some such than that the their theirs them themselves then there " +
    "these they this those through to too under until up very was we were what when where which " +
    "while who whom why will with would you your yours yourself yourselves s t don isn aren wasn " +
    "weren doesn didn won shouldn").split(" "),
);
