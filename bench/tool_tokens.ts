/**
 * What the tool list costs a model, in o200k tokens, per presentation
 * (`search.presentation`): each tool's name, description and input schema as
 * MCP `tools/list` gives them (`toolDefinition`), as one JSON object per tool
 * (`{"name","description","input_schema"}`, the shape model APIs take). Every
 * agent pays this on every turn. `deno task bench tool_tokens`, or alone:
 * `deno run -A bench/tool_tokens.ts`.
 *
 * Configurations: `default` (nothing set: memory on, no language model),
 * `default+llm` (a language model adds `search_and_summarize` and `expand`),
 * the provider presentations with a key for every keyed provider (their
 * largest list), and `roles` with no key at all.
 *
 * @module
 */
import { benchConfigs, type ToolListCost, toolListCost } from "../testing/tool_list_cost.ts";

/** Runs the benchmark: one {@link ToolListCost} per configuration. */
export function runToolTokensBench(): Promise<Record<string, ToolListCost>> {
  const out: Record<string, ToolListCost> = {};
  for (const [label, settings] of Object.entries(benchConfigs())) {
    out[label] = toolListCost(settings);
  }
  return Promise.resolve(out);
}

if (import.meta.main) {
  const text = JSON.stringify(await runToolTokensBench(), null, 2) + "\n";
  Deno.stdout.writeSync(new TextEncoder().encode(text));
}
