/**
 * Text metrics for benchmarks: Markdown → plain text, word n-gram F1,
 * percentiles.
 *
 * @module
 */

/**
 * Plain text of Markdown: fences, table rules, heading marks, list markers,
 * quote marks, emphasis and escapes removed.
 *
 * @example
 * ```ts
 * import { markdownToText } from "./text_metrics.ts";
 * console.assert(markdownToText("## A\n\n1. **b**") === "A\n\nb");
 * ```
 */
export function markdownToText(markdown: string): string {
  return markdown
    .split("\n")
    .filter((line) =>
      !/^\s*(`{3,}|~{3,})/.test(line) && !/^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*$/.test(line)
    )
    .map((line) =>
      line
        .replace(/^\s*#{1,6}\s+/, "")
        .replace(/^(\s*>)+\s?/, "")
        .replace(/^\s*(?:[-+*]|\d+\.)\s+/, "")
        .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, "$1")
        .replace(/(\*\*|__|~~)/g, "")
        .replace(/\|/g, " ")
    )
    .join("\n")
    .trim();
}

/** Lower-cased word tokens (Unicode letters and digits). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * F1 of word n-grams (multiset overlap) between a candidate and a reference.
 *
 * @example
 * ```ts
 * import { ngramF1 } from "./text_metrics.ts";
 * console.assert(ngramF1("a b c d e", "a b c d e") === 1);
 * ```
 */
export function ngramF1(candidate: string, reference: string, n = 4): number {
  const grams = (text: string) => {
    const w = words(text);
    const counts = new Map<string, number>();
    if (w.length < n && w.length > 0) counts.set(w.join(" "), 1);
    for (let i = 0; i + n <= w.length; i++) {
      const g = w.slice(i, i + n).join(" ");
      counts.set(g, (counts.get(g) ?? 0) + 1);
    }
    return counts;
  };
  const a = grams(candidate);
  const b = grams(reference);
  let totalA = 0, totalB = 0, overlap = 0;
  for (const v of a.values()) totalA += v;
  for (const v of b.values()) totalB += v;
  if (totalA === 0 && totalB === 0) return 1;
  if (totalA === 0 || totalB === 0) return 0;
  for (const [g, v] of a) overlap += Math.min(v, b.get(g) ?? 0);
  const precision = overlap / totalA;
  const recall = overlap / totalB;
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

/**
 * The p-th percentile (0..100) of numbers, nearest-rank.
 *
 * @example
 * ```ts
 * import { percentile } from "./text_metrics.ts";
 * console.assert(percentile([1, 2, 3, 4], 50) === 2);
 * ```
 */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}
