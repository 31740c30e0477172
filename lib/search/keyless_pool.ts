/**
 * The keyless pool: how one search spreads over the keyless web engines
 * (DuckDuckGo, Mojeek, Brave's HTML page, Yahoo, Yandex, Wikipedia) without
 * leaning on any one of them. The role router (`roles.ts`) asks
 * `search.keyless_engines_per_query` engines at once (two by default) and
 * replaces each that fails, answers nothing or is cooling down by the next,
 * until that many answered with results or every engine was asked; this
 * module decides the order and merges the answers.
 *
 * - **Runs**: neighbours in the search order that are keyless engines form
 *   one pool ({@link poolRuns}); every other provider keeps its own place.
 * - **Order** ({@link poolOrder}): the engines not cooling down in their
 *   breaker, rotated on by as many places as each search asks engines, so
 *   consecutive searches start at different engines and each engine sees an
 *   even share of the traffic; then engines whose pace (their rate gate)
 *   lets them answer now before those that would have to wait.
 * - **Merge** ({@link mergeHits}): reciprocal rank fusion over the engines'
 *   lists (`../rank/fusion.ts`), so the first results of each engine
 *   alternate and a page several engines found rises; duplicates are one
 *   result (same page across `http`/`https`, `www.`, a trailing slash or a
 *   fragment), keeping the copy with the longer snippet and naming every
 *   engine that found it in `provider_data.found_by`.
 *
 * @module
 */
import { fuseRankings } from "../rank/fusion.ts";
import { resultKey } from "./domains.ts";
import type { Provider, ProviderHit } from "./providers/types.ts";

/**
 * The candidates of a search as steps: neighbouring keyless engines in one
 * step (a pool), every other provider alone.
 *
 * @example
 * ```ts
 * import { poolRuns } from "./keyless_pool.ts";
 * const p = (name: string, keylessEngine = false) => ({ name, keylessEngine }) as never;
 * const runs = poolRuns([p("exa"), p("duckduckgo", true), p("mojeek", true), p("searxng")]);
 * console.assert(runs.map((r: { name: string }[]) => r.map((x) => x.name).join("+")).join() === "exa,duckduckgo+mojeek,searxng");
 * ```
 */
export function poolRuns(candidates: readonly Provider[]): Provider[][] {
  const steps: Provider[][] = [];
  for (const provider of candidates) {
    const last = steps.at(-1);
    if (provider.keylessEngine && last?.[0]?.keylessEngine) last.push(provider);
    else steps.push([provider]);
  }
  return steps;
}

/**
 * The order a pool asks its engines in: rotated by `turn`, then the engines
 * that could be sent now (`delayOf` 0) first, each group in rotation order.
 *
 * @example
 * ```ts
 * import { poolOrder } from "./keyless_pool.ts";
 * const engines = ["a", "b", "c", "d"].map((name) => ({ name }) as never);
 * const names = (list: { name: string }[]) => list.map((e) => e.name).join("");
 * console.assert(names(poolOrder(engines, 1, () => 0)) === "bcda");
 * console.assert(names(poolOrder(engines, 1, (e) => (e.name === "b" ? 500 : 0))) === "cdab");
 * ```
 */
export function poolOrder(
  engines: readonly Provider[],
  turn: number,
  delayOf: (engine: Provider) => number,
): Provider[] {
  if (engines.length === 0) return [];
  const start = ((turn % engines.length) + engines.length) % engines.length;
  const rotated = [...engines.slice(start), ...engines.slice(0, start)];
  const waits = new Map(rotated.map((engine) => [engine, Math.max(0, delayOf(engine))]));
  return rotated
    .map((engine, index) => ({ engine, index, wait: waits.get(engine)! }))
    .sort((a, b) => a.wait - b.wait || a.index - b.index)
    .map((entry) => entry.engine);
}

/**
 * The key two engines' copies of one page share: the result key
 * (`./domains.ts`: fragment and trailing slash dropped) without the scheme
 * and a leading `www.`.
 *
 * @example
 * ```ts
 * import { mergeKey } from "./keyless_pool.ts";
 * console.assert(mergeKey("http://www.deno.com/x/") === mergeKey("https://deno.com/x#top"));
 * console.assert(mergeKey("ftp://deno.com/") === undefined);
 * ```
 *
 * @internal exported for tests only
 */
export function mergeKey(url: string): string | undefined {
  const key = resultKey(url);
  return key?.replace(/^https?:\/\//, "").replace(/^www\./, "");
}

/**
 * Merges the engines' answers (each best first) into one list of at most
 * `max` hits; see the module doc.
 *
 * @example
 * ```ts
 * import { mergeHits } from "./keyless_pool.ts";
 * const hit = (url: string, source: string) => ({ title: url, url, snippet: "", source });
 * const merged = mergeHits([
 *   [hit("https://a.example/", "mojeek"), hit("https://b.example/", "mojeek")],
 *   [hit("https://c.example/", "yahoo"), hit("https://b.example/", "yahoo")],
 * ], 10);
 * console.assert(merged[0].url === "https://b.example/");
 * console.assert(merged.map((h) => h.url).join() === "https://b.example/,https://a.example/,https://c.example/");
 * ```
 */
export function mergeHits(lists: readonly (readonly ProviderHit[])[], max: number): ProviderHit[] {
  const kept = new Map<string, ProviderHit>();
  const finders = new Map<string, string[]>();
  const orders = lists.map((list) => {
    const order: string[] = [];
    for (const hit of list) {
      const key = mergeKey(hit.url);
      if (!key) continue;
      order.push(key);
      const have = kept.get(key);
      if (!have || hit.snippet.length > have.snippet.length) kept.set(key, hit);
      const found = finders.get(key) ?? [];
      if (!found.includes(hit.source)) found.push(hit.source);
      finders.set(key, found);
    }
    return { order, weight: 1 };
  });
  return fuseRankings(orders).slice(0, max).map(({ key }) => {
    const hit = kept.get(key)!;
    const found = finders.get(key)!;
    return found.length > 1
      ? { ...hit, provider_data: { ...hit.provider_data, found_by: found } }
      : hit;
  });
}
