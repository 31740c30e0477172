/**
 * `deno task bench`: every benchmark, one JSON document on stdout.
 * Pass names to run a subset: `deno task bench pipeline extraction`; `--name=value`
 * arguments are options read by the benchmarks themselves. The sweeps of
 * {@link ON_REQUEST} (half an hour or more) run only when named.
 *
 * @module
 */
import { runBodyLimitBench } from "./body_limit.ts";
import { runBrowserBench, runBrowserContentionBench } from "./browser.ts";
import { runContainmentBench } from "./containment.ts";
import { runConversationBench } from "./conversation.ts";
import { rerankBenchOptions, runRerankBench } from "./rerank.ts";
import { runDeepResearchBench } from "./deep_research.ts";
import { runDegradeBench } from "./degrade.ts";
import { evidenceBenchOptions, runEvidenceBench } from "./evidence.ts";
import { runExtractionBench } from "./extraction.ts";
import { locomoBenchOptions, runLocomoBench } from "./locomo.ts";
import { mcpRecallOptions, runMcpRecallBench } from "./mcp_recall.ts";
import { memoryBenchOptions, runMemoryBench } from "./memory.ts";
import { runMemoryBackendBench } from "./memory_backends.ts";
import { runPipelineBench } from "./pipeline.ts";
import { runProvidersBench } from "./providers.ts";
import { runStartupBench, startupOptions } from "./startup.ts";
import { runToolTokensBench } from "./tool_tokens.ts";
import { runTokenSavingsBench, tokenSavingsOptions } from "./token_savings.ts";
import { runHealthBench, runTokensBench } from "./health.ts";

const BENCHES: Record<string, () => Promise<unknown>> = {
  extraction: () => runExtractionBench(),
  pipeline: () => runPipelineBench(),
  containment: () => runContainmentBench(),
  evidence: () => runEvidenceBench(evidenceBenchOptions()),
  browser: async () => ({
    ...(await runBrowserBench()),
    contention: await runBrowserContentionBench(),
  }),
  degrade: () => runDegradeBench(),
  memory: () => runMemoryBench(memoryBenchOptions()),
  memory_backends: () => runMemoryBackendBench(),
  conversation: () => runConversationBench(),
  locomo: () => runLocomoBench(locomoBenchOptions()),
  rerank: () => runRerankBench(rerankBenchOptions()),
  startup: () => runStartupBench(undefined, startupOptions()),
  mcp_recall: () => runMcpRecallBench(mcpRecallOptions()),
  tool_tokens: () => runToolTokensBench(),
  token_savings: () => runTokenSavingsBench(tokenSavingsOptions()),
  health: () => runHealthBench(),
  tokens: () => runTokensBench(),
  providers: () => runProvidersBench(),
  body_limit: () => runBodyLimitBench(),
  deep_research: () => runDeepResearchBench(),
};

/** Benchmarks left out of a plain `deno task bench`: run them by name. */
const ON_REQUEST: ReadonlySet<string> = new Set(["rerank"]);

// `--name=value` arguments are options of the benchmarks, not names.
const names = Deno.args.filter((a) => !a.startsWith("--"));
const wanted = names.length ? names : Object.keys(BENCHES).filter((n) => !ON_REQUEST.has(n));
const results: Record<string, unknown> = {
  date: new Date().toISOString(),
  deno: Deno.version.deno,
  cores: navigator.hardwareConcurrency,
};
for (const name of wanted) {
  const bench = BENCHES[name];
  if (!bench) {
    results[name] = { error: `unknown benchmark; choose from ${Object.keys(BENCHES).join(", ")}` };
    continue;
  }
  const started = performance.now();
  try {
    results[name] = await bench();
  } catch (error) {
    results[name] = { error: String(error) };
  }
  Deno.stderr.writeSync(
    new TextEncoder().encode(`${name}: ${Math.round(performance.now() - started)} ms\n`),
  );
}
Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(results, null, 2) + "\n"));
