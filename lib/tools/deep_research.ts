/**
 * The Deep Research presentation: exactly two tools, `search` and `fetch`, in
 * the shape research clients (ChatGPT-style deep research connectors) expect.
 *
 * - `search(query)` → `{ results: [{ id, title, url }] }`, at most 10; an empty
 *   query or no match gives `[]`.
 * - `fetch(id)` → `{ id, title, text, url, metadata? }`: the whole readable
 *   Markdown of the page the id names.
 *
 * An id is the result's URL, read through Gleaner's reading cascade. A Deep
 * Research client is a third party, so stored memories stay out of it unless
 * the operator turns on `memory.deep_research` (off by default; see
 * {@link sharesMemories}): then up to three of them lead the results as
 * `memory:<ref>` (cited as `gleaner://memory/<ref>`), and in hosted mode only
 * the calling user's own. While it is off, `fetch("memory:<ref>")` answers as
 * for any unknown id. The compact text of each result is the same object as
 * compact JSON, so clients that read only `content[0].text` get the contract
 * too.
 *
 * The names and schemas are the Deep Research toolkit's
 * (`lib/deep_research/`, published as `@gleaner/gleaner/deep-research`), so
 * this endpoint and any server built with the toolkit speak one contract;
 * the specs stay Gleaner tool definitions, so MCP and REST share them.
 *
 * @module
 */
import type { z } from "zod";
import {
  DEEP_RESEARCH_TOOLS as CONTRACT_TOOL_NAMES,
  type FetchDocumentSchema,
  fetchDocumentSchema,
  type FetchInputSchema,
  fetchInputSchema,
  searchInputSchema,
  type SearchOutputSchema,
  searchOutputSchema,
  type SearchResultSchema,
  searchResultSchema,
} from "../deep_research/contract.ts";
import { GleanerError } from "../errors.ts";
import { idTextRefinement } from "../text/id_text.ts";
import { defineTool } from "./spec.ts";
import type { AnyToolSpec } from "./spec.ts";
import { sharesMemories } from "./memory_sharing.ts";

/** Most results one Deep Research search returns. */
const DEEP_RESEARCH_MAX_RESULTS = 10;

/** Most stored memories among those results. */
const DEEP_RESEARCH_MAX_MEMORIES = 3;

const MEMORY_ID = /^memory:([a-z0-9]{4,32})$/i;

function memoryCitation(ref: string): string {
  return `gleaner://memory/${ref}`;
}

function memoryTitle(content: string): string {
  const line = content.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** True when Deep Research clients may see stored memories (`memory_sharing.ts`). */
export { sharesMemories } from "./memory_sharing.ts";

/** The failure of a fetch whose id names no document this client may read. */
function unknownId(id: string): GleanerError {
  return new GleanerError("not_found", `id: no document ${id.slice(0, 200)}`, {
    details: { field: "id" },
  });
}

/** One search result of the Deep Research contract (the toolkit's schema). */
const DeepResearchResult: SearchResultSchema = searchResultSchema;

/** Output of the Deep Research `search` (the toolkit's schema). */
const DeepResearchSearchOutput: SearchOutputSchema = searchOutputSchema;

/** Output of the Deep Research `fetch` (the toolkit's schema). */
const DeepResearchFetchOutput: FetchDocumentSchema = fetchDocumentSchema;

/** Input of the Deep Research `fetch`: the toolkit's, with ids refusing control characters. */
const DeepResearchFetchInput: FetchInputSchema = fetchInputSchema.extend({
  id: fetchInputSchema.shape.id.superRefine(idTextRefinement),
});

/** Compact JSON with the contract's keys first and only once. */
function compact(value: unknown): string {
  return JSON.stringify(value);
}

/** The Deep Research `search` tool. */
const deepResearchSearchTool = defineTool({
  name: CONTRACT_TOOL_NAMES[0],
  scope: "tenant",
  title: "Search",
  description:
    "Searches the web for the query and returns up to 10 results, each with an id to pass to fetch, a title and the URL to cite.",
  input: searchInputSchema,
  output: DeepResearchSearchOutput,
  readOnly: true,
  openWorld: true,
  handler: async (input, { gleaner, signal }) => {
    const query = input.query.trim();
    if (query === "") return { results: [] };
    const out: z.output<typeof DeepResearchResult>[] = [];
    if (sharesMemories(gleaner.config)) {
      const recalled = await (await gleaner.memories()).recall({
        query,
        top_k: DEEP_RESEARCH_MAX_MEMORIES,
        max_tokens: 1_000,
      }, { signal });
      for (const memory of recalled.memories) {
        out.push({
          id: `memory:${memory.ref}`,
          title: memoryTitle(memory.content),
          url: memoryCitation(memory.ref),
        });
      }
    }
    const { results } = await gleaner.search.search({
      query,
      max_results: DEEP_RESEARCH_MAX_RESULTS,
      signal,
    });
    const seen = new Set<string>();
    for (const hit of results) {
      if (!hit.url || seen.has(hit.url)) continue;
      seen.add(hit.url);
      out.push({ id: hit.url, title: hit.title || hit.url, url: hit.url });
      if (out.length >= DEEP_RESEARCH_MAX_RESULTS) break;
    }
    return { results: out };
  },
  render: compact,
});

/**
 * The Deep Research `fetch` tool.
 *
 * @internal exported for tests only
 */
export const deepResearchFetchTool = defineTool({
  name: CONTRACT_TOOL_NAMES[1],
  scope: "tenant",
  title: "Fetch",
  description:
    "Reads the document an id from search names (a URL) and returns its whole readable text as Markdown, with its title and the URL to cite.",
  input: DeepResearchFetchInput,
  output: DeepResearchFetchOutput,
  readOnly: true,
  openWorld: true,
  handler: async (input, { gleaner, signal }) => {
    const id = input.id.trim();
    const memoryRef = id.match(MEMORY_ID)?.[1];
    if (memoryRef) {
      // Off: a memory id is an unknown id like any other (nothing tells whether it exists).
      if (!sharesMemories(gleaner.config)) throw unknownId(id);
      const memories = await gleaner.memories();
      const { memory } = await memories.get({ ref: memoryRef.toLowerCase() }).catch(
        (error: unknown) => {
          throw error instanceof GleanerError && error.code === "not_found" ? unknownId(id) : error;
        },
      );
      return {
        id,
        title: memoryTitle(memory.content),
        text: memory.content,
        url: memoryCitation(memory.ref),
        metadata: {
          source: "memory",
          kind: memory.kind,
          created_at: memory.created_at,
          updated_at: memory.updated_at,
        },
      };
    }
    if (!/^https?:\/\//i.test(id)) {
      throw new GleanerError(
        "invalid_arguments",
        `id: not an id from search (an http(s) URL): ${id.slice(0, 200)}`,
        { details: { field: "id" } },
      );
    }
    // Loaded on the first fetch of a page (with the reader), not when the tool is listed.
    const { parsePageUrl } = await import("../read/cascade.ts");
    const url = parsePageUrl(id);
    const page = await gleaner.reader.read({ url: url.href, signal });
    const metadata: Record<string, unknown> = {
      source: "web",
      tier: page.tier,
      media_type: page.mediaType,
      fetched_at: page.fetchedAt,
    };
    if (page.finalUrl && page.finalUrl !== id) metadata.final_url = page.finalUrl;
    if (page.published) metadata.published = page.published;
    if (page.byline) metadata.author = page.byline;
    if (page.lang) metadata.language = page.lang;
    return {
      id,
      title: page.title || page.finalUrl || id,
      text: page.markdown,
      // Cite where the text was read from (a page's own canonical claim is not checked).
      url: page.finalUrl || id,
      metadata,
    };
  },
  render: compact,
});

/** The tools of the Deep Research presentation, in the order clients list them. */
export const DEEP_RESEARCH_TOOLS: readonly AnyToolSpec[] = [
  deepResearchSearchTool,
  deepResearchFetchTool,
];
