/**
 * Provider layer benchmark, against fake providers on loopback:
 *
 * - `overhead`: p50/p90 of one Exa search through the role router (order,
 *   pacing, breaker, classification, normalization, domain filter) against
 *   the same raw HTTP call through the guarded fetcher, interleaved; the
 *   difference is what the router adds (target ≤ 1 ms at p50). Also the cost
 *   of normalizing one answer alone.
 * - `concurrent_429` and `concurrent_422_bad_key`: 200 concurrent searches
 *   while the first provider answers 429 (with `Retry-After`), then Brave's
 *   documented 422 for a wrong key: every request must be answered by the
 *   second, each answer naming it, and a second wave of 200 must not ask the
 *   first again (its breaker is open).
 * - `keyless`: searches with no key over the six keyless engines of the fake
 *   upstreams (two asked per search, rotating): calls and results per search,
 *   each engine's share of the calls, p50/p90; the same while DuckDuckGo
 *   answers its bot challenge (answered searches, calls that still reached
 *   DuckDuckGo); and sequential searches at the engines' own pace (one call a
 *   second each) to show what the rotation and the free-engine-first order
 *   save in waiting.
 *
 * Run alone: `deno run -A bench/providers.ts` (prints JSON).
 *
 * @module
 */
import { parseConfig } from "../lib/config/config.ts";
import { createFetcher } from "../lib/net/fetch.ts";
import { exaHits } from "../lib/search/providers/exa.ts";
import { createRoleRouter } from "../lib/search/roles.ts";
import {
  DOCUMENTED_FAILURES,
  type FakeProviders,
  startFakeProviders,
} from "../testing/fixtures/fake_providers.ts";
import { percentile } from "../testing/text_metrics.ts";
import {
  fakeUpstreamConfig,
  type FakeUpstreams,
  startFakeUpstreams,
} from "../testing/fixtures/upstreams.ts";

const ROUNDS = 300;
const CONCURRENT = 200;

function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    p50_ms: round(percentile(sorted, 50)),
    p90_ms: round(percentile(sorted, 90)),
    mean_ms: round(values.reduce((a, b) => a + b, 0) / values.length),
  };
}

/**
 * 200 concurrent searches (brave first, exa second) while `arm` makes brave
 * fail, then a second wave of 200: what was answered, by whom, and how many
 * calls each upstream received.
 */
async function concurrentFallback(
  fakes: FakeProviders,
  braveLabel: string,
  arm: () => void,
): Promise<Record<string, unknown>> {
  arm();
  const before = fakes.requests.length;
  const config = parseConfig(fakes.config({ brave: "b", exa: "e" }, {
    search_order: ["brave", "exa"],
  }));
  const roles = createRoleRouter({
    config,
    fetcher: createFetcher(config.network),
  });
  const started = performance.now();
  const settled = await Promise.allSettled(
    Array.from(
      { length: CONCURRENT },
      (_, i) => roles.search({ query: `concurrent ${i}`, max_results: 3 }),
    ),
  );
  const wall = performance.now() - started;
  const served: Record<string, number> = {};
  let namedProvider = 0;
  let fellBack = 0;
  const errors: Record<string, number> = {};
  for (const s of settled) {
    if (s.status === "rejected") {
      const code = String((s.reason as { code?: string }).code ?? "unknown");
      errors[code] = (errors[code] ?? 0) + 1;
      continue;
    }
    served[s.value.provider] = (served[s.value.provider] ?? 0) + 1;
    if (s.value.provider) namedProvider++;
    if (s.value.fallback_from.length > 0) fellBack++;
  }
  const upstream = fakes.requests.slice(before);
  // A second wave after the first 429s: brave is cooling down (Retry-After), not asked.
  const beforeSecond = fakes.requests.length;
  const second = await Promise.allSettled(
    Array.from(
      { length: CONCURRENT },
      (_, i) => roles.search({ query: `second wave ${i}`, max_results: 3 }),
    ),
  );
  const secondUpstream = fakes.requests.slice(beforeSecond);
  return {
    requests: CONCURRENT,
    answered: settled.filter((s) => s.status === "fulfilled").length,
    lost: settled.filter((s) => s.status === "rejected").length,
    errors,
    served_by: served,
    answers_naming_provider: namedProvider,
    answers_with_fallback_from: fellBack,
    upstream_calls: {
      [braveLabel]: upstream.filter((r) => r.provider === "brave").length,
      exa: upstream.filter((r) => r.provider === "exa").length,
    },
    wall_ms: Math.round(wall),
    second_wave: {
      answered: second.filter((s) => s.status === "fulfilled").length,
      brave_calls: secondUpstream.filter((r) => r.provider === "brave").length,
      exa_calls: secondUpstream.filter((r) => r.provider === "exa").length,
    },
    note:
      "all 200 calls are sent before the first failure returns, so each asks brave once and falls back to exa; the second wave skips brave while its breaker is open (429: Retry-After 30 s; 422 bad key: at once). The guarded fetcher allows network.per_host_concurrency (2) connections to one host, so the 200 calls queue there.",
  };
}

/** `rounds` sequential keyless searches: calls, results, per-engine shares and times. */
async function keylessRounds(
  fakes: FakeUpstreams,
  rounds: number,
  settings: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const config = parseConfig(fakeUpstreamConfig(fakes, settings));
  const roles = createRoleRouter({ config, fetcher: createFetcher(config.network) });
  const before = fakes.requests.length;
  const ms: number[] = [];
  let answered = 0;
  let results = 0;
  let calls = 0;
  const outcomes: Record<string, number> = {};
  const started = performance.now();
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    try {
      const out = await roles.search({ query: `keyless ${i}`, max_results: 10 });
      answered++;
      results += out.results.length;
      calls += out.attempts.length;
      for (const a of out.attempts) {
        outcomes[`${a.backend}:${a.outcome}`] = (outcomes[`${a.backend}:${a.outcome}`] ?? 0) + 1;
      }
    } catch {
      // Counted as not answered.
    }
    ms.push(performance.now() - t);
  }
  const upstream = fakes.requests.slice(before);
  const share: Record<string, number> = {};
  for (const r of upstream) {
    const engine = r.backend.startsWith("duckduckgo") ? "duckduckgo" : r.backend;
    share[engine] = (share[engine] ?? 0) + 1;
  }
  return {
    searches: rounds,
    answered,
    results_per_search: Math.round((results / Math.max(1, answered)) * 10) / 10,
    engine_calls_per_search: Math.round((calls / rounds) * 100) / 100,
    upstream_requests: share,
    outcomes,
    ...stats(ms),
    wall_ms: Math.round(performance.now() - started),
  };
}

/** The keyless pool's measurements (see the module doc). */
async function keylessBench(): Promise<Record<string, unknown>> {
  const fakes = await startFakeUpstreams();
  try {
    const normal = await keylessRounds(fakes, 120);
    fakes.setMode("duckduckgo", "captcha");
    const walled = await keylessRounds(fakes, 120);
    fakes.setMode("duckduckgo", "ok");
    const paced = await keylessRounds(fakes, 12, { defaultPace: true });
    return {
      normal,
      duckduckgo_bot_wall: walled,
      own_pace_12_sequential: paced,
      note:
        "fake engines on loopback answer at once; the first two groups pace the engines at 1000 calls/s, the last at their own pace (1/s, Wikipedia 2/s). With DuckDuckGo walled, its first 202 opens its breaker for the cool-down (60 s), so later searches do not ask it.",
    };
  } finally {
    await fakes.close();
  }
}

/** Runs the measurements. */
export async function runProvidersBench(): Promise<unknown> {
  const fakes = startFakeProviders();
  try {
    // ---- overhead ----
    const config = parseConfig(fakes.config({ exa: "bench-key", brave: "bench-key" }, {
      search_order: ["exa"],
    }));
    const fetcher = createFetcher(config.network);
    const roles = createRoleRouter({ config, fetcher });
    const body = {
      query: "sqlite wal",
      numResults: 3,
      type: "auto",
      contents: { highlights: true },
    };
    const raw = async () => {
      const res = await fetcher.fetch(`${fakes.baseUrl("exa")}/search`, {
        method: "POST",
        headers: { "x-api-key": "bench-key", "Content-Type": "application/json" },
        body: JSON.stringify(body),
        robots: false,
      });
      return JSON.parse(res.text());
    };
    const routed = () => roles.search({ query: "sqlite wal", max_results: 3 });
    for (let i = 0; i < 30; i++) {
      await raw();
      await routed();
    }
    const rawMs: number[] = [];
    const routedMs: number[] = [];
    let parsed: { results: unknown } = { results: [] };
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate which goes first, so drift in machine load hits both alike.
      const order = i % 2 === 0 ? [raw, routed] : [routed, raw];
      for (const run of order) {
        const t = performance.now();
        const value = await run();
        const ms = performance.now() - t;
        if (run === raw) {
          parsed = value as { results: unknown };
          rawMs.push(ms);
        } else routedMs.push(ms);
      }
    }
    const paired = routedMs.map((ms, i) => ms - rawMs[i]).sort((a, b) => a - b);
    const normalizeMs: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const t = performance.now();
      exaHits(parsed.results);
      normalizeMs.push(performance.now() - t);
    }
    const rawStats = stats(rawMs);
    const routedStats = stats(routedMs);
    const overhead = {
      rounds: ROUNDS,
      raw_http: rawStats,
      routed: routedStats,
      added_p50_ms: Math.round((routedStats.p50_ms - rawStats.p50_ms) * 1000) / 1000,
      added_paired_median_ms: Math.round(percentile(paired, 50) * 1000) / 1000,
      load_average: Deno.loadavg()[0],
      normalize_one_answer: stats(normalizeMs),
      target_added_p50_ms: 1,
    };

    // ---- 200 concurrent searches, the first provider failing: 429, then a bad key ----
    const concurrent429 = await concurrentFallback(fakes, "brave_429", () => {
      fakes.setMode("brave", "ratelimit");
    });
    fakes.setMode("brave", "ok");
    // Brave's documented 422 for a wrong key (SUBSCRIPTION_TOKEN_INVALID): the breaker opens on
    // the first, so the second wave never asks Brave again.
    const badKey = DOCUMENTED_FAILURES.brave!.find((f) => f.status === 422)!;
    const concurrentBadKey = await concurrentFallback(fakes, "brave_422_bad_key", () => {
      fakes.reply("brave", { status: badKey.status, body: badKey.body, headers: badKey.headers });
    });
    return {
      overhead,
      concurrent_429: concurrent429,
      concurrent_422_bad_key: concurrentBadKey,
      keyless: await keylessBench(),
    };
  } finally {
    await fakes.close();
  }
}

if (import.meta.main) {
  Deno.stdout.writeSync(
    new TextEncoder().encode(JSON.stringify(await runProvidersBench(), null, 2) + "\n"),
  );
}
