/**
 * The tools of `search.presentation: default` (Gleaner's own: `search`,
 * `scrape_urls`, …), and the search switch every presentation goes through.
 *
 * Apart from `presentations.ts` so that `gleaner mcp` under the default
 * presentation answers `tools/list` without loading what only the other
 * presentations declare: the provider registry with every provider's module,
 * the providers' own tools, the role and router tools and the Deep Research
 * contract (about a fifth of the modules it would load before its first
 * answer).
 *
 * @module
 */
import type { Config } from "../config/config.ts";
import { llmConfigured } from "../search/llm.ts";
import { searchEnabled } from "../search/switch.ts";
import { MEMORY_TOOLS, TOOLS } from "./mod.ts";
import { researchTool, researchToolFor } from "./research.ts";
import { searchAndSummarizeTool } from "./search_and_summarize.ts";
import { searchTool, searchToolFor } from "./search.ts";
import type { AnyToolSpec } from "./spec.ts";

/**
 * Gleaner's own tools whose work is web search: with `search.enabled: false` they are not
 * declared (providers' own search, answer and run tools are left out by `providerToolSpecs`).
 */
const SEARCHING_TOOLS: ReadonlySet<string> = new Set([
  "search",
  "research",
  "search_and_summarize",
  "web_search_tool",
  "web_answer_tool",
]);

/**
 * `tools` as a configuration declares them: without Gleaner's own searching tools while web
 * search is off (`search.enabled: false`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { TOOLS } from "./mod.ts";
 * import { searchSwitched } from "./default_tools.ts";
 * const off = searchSwitched(parseConfig({ search: { enabled: false } }), TOOLS);
 * console.assert(!off.some((t) => t.name === "search"));
 * console.assert(off.some((t) => t.name === "scrape_urls"));
 * ```
 */
export function searchSwitched(config: Config, tools: readonly AnyToolSpec[]): AnyToolSpec[] {
  return tools.filter((tool) => searchEnabled(config) || !SEARCHING_TOOLS.has(tool.name));
}

/**
 * Gleaner's own tools for a configuration, before the search switch. Tools and arguments a
 * model cannot use cost tokens in every session: no memory tools without memory; `search` and
 * `research` offer the configuration's domain profiles, and `expand` only with a language
 * model, which also brings `search_and_summarize` (after `research`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { defaultTools } from "./default_tools.ts";
 * const names = defaultTools(parseConfig({ memory: { enabled: false } })).map((t) => t.name);
 * console.assert(names.includes("research") && !names.includes("save_memories"));
 * ```
 */
export function defaultTools(config: Config): AnyToolSpec[] {
  const out: AnyToolSpec[] = [];
  for (const tool of TOOLS) {
    if (!config.memory.enabled && MEMORY_TOOLS.includes(tool)) continue;
    if (tool === searchTool) out.push(searchToolFor(config));
    else if (tool === researchTool) {
      out.push(researchToolFor(config));
      if (llmConfigured(config)) out.push(searchAndSummarizeTool(config));
    } else out.push(tool);
  }
  return out;
}

/**
 * The tools a configuration declares when its presentation is `default` (search switch
 * applied), else `undefined`: the other presentations are `presentations.ts`'s `toolsFor`.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { defaultToolsFor } from "./default_tools.ts";
 * console.assert(defaultToolsFor(parseConfig({}))?.[0].name === "search");
 * console.assert(defaultToolsFor(parseConfig({ search: { presentation: "roles" } })) === undefined);
 * ```
 */
export function defaultToolsFor(config: Config): AnyToolSpec[] | undefined {
  return config.search.presentation === "default"
    ? searchSwitched(config, defaultTools(config))
    : undefined;
}
