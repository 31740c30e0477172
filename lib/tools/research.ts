/**
 * The `research` tool: search, pick the pages worth reading, read them
 * concurrently, rank passages across all of them and return one evidence
 * packet inside a token budget.
 *
 * @module
 */
import { renderEvidence } from "../rank/render.ts";
import { defineTool, lazyHandler, type ToolSpec } from "./spec.ts";
import { ResearchInput, ResearchOutput } from "./research_schemas.ts";

export { ResearchInput, ResearchOutput } from "./research_schemas.ts";

/** The tool definition. */
export const researchTool: ToolSpec<typeof ResearchInput, typeof ResearchOutput> = defineTool({
  name: "research",
  title: "Research a question",
  description:
    "Answers a question from the web in one call: searches, reads the best pages concurrently, and returns only the original passages that answer it (each with its URL), ranked across all pages within `max_tokens`. Prefer this over search + scrape_urls when you need facts, not links.",
  input: ResearchInput,
  output: ResearchOutput,
  http: { path: "/v1/research" },
  readOnly: true,
  openWorld: true,
  handler: lazyHandler(() => import("./handlers/research.ts").then((m) => m.research)),
  render: (out) => {
    const parts = [out.evidence.length ? renderEvidence(out.evidence) : "(no passage matched)"];
    for (const f of out.failed) parts.push(`! ${f.url}: ${f.code}: ${f.message}`);
    return parts.join("\n\n");
  },
});
