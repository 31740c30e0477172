/**
 * The `research` tool: search, pick the pages worth reading, read them
 * concurrently, rank passages across all of them and return one evidence
 * packet inside a token budget.
 *
 * @module
 */
import { renderEvidence } from "../rank/render.ts";
import { defineTool, lazyHandler, type ToolSpec } from "./spec.ts";
import type { Config } from "../config/config.ts";
import { ResearchInput, researchInputFor, ResearchOutput } from "./research_schemas.ts";
import { noteLines } from "./role_schemas.ts";
import { qualityFacts } from "./quality_schemas.ts";
import { withListingVariant } from "./listing_key.ts";

export { ResearchInput, ResearchOutput } from "./research_schemas.ts";

/**
 * The `research` tool for a configuration: `domain_profile` lists its
 * profiles, and `expand` is offered only with a language model (`llm.*`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { researchToolFor } from "./research.ts";
 * const tool = researchToolFor(parseConfig({}));
 * console.assert(!tool.input.safeParse({ query: "x", domain_profile: "nope" }).success);
 * ```
 */
export function researchToolFor(
  config: Config,
): ToolSpec<typeof ResearchInput, typeof ResearchOutput> {
  const facts = qualityFacts(config);
  return withListingVariant({ ...researchTool, input: researchInputFor(facts) }, facts);
}

/** The tool definition. */
export const researchTool: ToolSpec<typeof ResearchInput, typeof ResearchOutput> = defineTool({
  name: "research",
  scope: "tenant",
  title: "Research a question",
  description:
    "Answers a question from the web in one call: searches, reads the best pages, returns only the original passages that answer it, with URLs, within max_tokens. For facts, prefer it to search + scrape_urls.",
  input: ResearchInput,
  output: ResearchOutput,
  http: {
    path: "/v1/research",
    // Loaded on the call that asks for it, like the run itself (the start-up graph stays small).
    prompt: async (answer) => (await import("../evidence/prompt.ts")).toPrompt(answer),
  },
  readOnly: true,
  openWorld: true,
  // The evidence run itself is lib/evidence/research.ts; a tool's context is its context.
  handler: lazyHandler(() => import("../evidence/research.ts").then((m) => m.research)),
  render: (out) => {
    const parts = [out.evidence.length ? renderEvidence(out.evidence) : "(no passage matched)"];
    if (out.rewritten_query) parts.unshift(`searched as: ${out.rewritten_query}`);
    for (const f of out.failed) parts.push(`! ${f.url}: ${f.code}: ${f.message}`);
    parts.push(...noteLines(out.notices));
    return parts.join("\n\n");
  },
});
