/**
 * The role tools of the `roles` presentation: `web_search_tool`,
 * `web_answer_tool`, `web_contents_tool`. Each routes over the configured
 * providers (fallback, breaker, cache); a `provider` argument, whose enum
 * lists the providers usable for that role, pins the call.
 *
 * @module
 */
import { z } from "zod";
import { timeRangeSchema } from "../search/time_range.ts";
import { type Role, RUN_REF_MAX_CHARS } from "../search/providers/types.ts";
import { GleanerError } from "../errors.ts";
import {
  renderAnswer,
  renderHits,
  renderPages,
  renderRoute,
  RoleAnswerOutput,
  RoleContentsOutput,
  RoleSearchOutput,
} from "./role_schemas.ts";
import { defineTool, type ToolSpec } from "./spec.ts";
import { TargetSelectorSchema, WaitForSelectorSchema } from "./schemas.ts";

/** The tool that serves each role in the `roles` presentation. */
const ROLE_TOOL_NAMES: Readonly<Record<Role, string>> = {
  search: "web_search_tool",
  answer: "web_answer_tool",
  contents: "web_contents_tool",
};

/**
 * The name of the tool that serves `role` in the `roles` presentation (`web_search_tool`,
 * `web_answer_tool`, `web_contents_tool`), for a host that routes a model's calls by role.
 *
 * @example
 * ```ts
 * import { roleToolName } from "./role_tools.ts";
 * console.assert(roleToolName("answer") === "web_answer_tool");
 * ```
 */
export function roleToolName(role: Role): string {
  const name = ROLE_TOOL_NAMES[role];
  if (name === undefined) {
    throw new GleanerError("invalid_arguments", `role: must be search, answer or contents`, {
      details: { field: "role" },
    });
  }
  return name;
}

function providerArg(providers: readonly string[]) {
  return z.enum(providers as [string, ...string[]]).optional().describe(
    "Ask only this provider (no fallback); omit to use the configured order",
  );
}

/** Input of `web_search_tool` for a list of usable providers. */
export function webSearchInput(providers: readonly string[]) {
  return z.strictObject({
    query: z.string().min(1).max(2000).describe("What to search for"),
    max_results: z.number().int().min(1).max(20).optional().describe("Results (1-20)"),
    domains: z.array(z.string()).max(20).optional().describe("Only these domains (subdomains too)"),
    exclude_domains: z.array(z.string()).max(20).optional().describe("Never these domains"),
    time_range: timeRangeSchema().optional().describe(
      "Only results this recent",
    ),
    language: z.string().min(2).max(10).optional().describe("Language code, e.g. en, de"),
    topic: z.enum(["general", "news"]).optional().describe("`news` for current events"),
    depth: z.enum(["quick", "deep"]).optional().describe(
      "`deep` asks for the providers' more thorough search (slower, may cost more)",
    ),
    provider: providerArg(providers),
    no_cache: z.boolean().optional().describe("Skip cached answers (up to 1 hour old)"),
  });
}

/**
 * `web_search_tool`: web search over the configured providers.
 *
 * @example
 * ```ts
 * import { webSearchTool } from "./role_tools.ts";
 * const tool = webSearchTool(["exa", "duckduckgo"]);
 * console.assert(tool.name === "web_search_tool");
 * console.assert(!tool.input.safeParse({ query: "x", provider: "brave" }).success);
 * ```
 */
export function webSearchTool(
  providers: readonly string[],
): ToolSpec<ReturnType<typeof webSearchInput>, typeof RoleSearchOutput> {
  return defineTool({
    name: roleToolName("search"),
    // Search answers are cached per tenant.
    scope: "tenant",
    title: "Web search",
    description: `Searches the web with the configured providers (${
      providers.join(", ")
    }), falling back to the next when one is out of credit, rate limited or down. Returns titles, URLs, snippets and dates, and says which provider answered.`,
    input: webSearchInput(providers),
    output: RoleSearchOutput,
    readOnly: true,
    openWorld: true,
    handler: async (input, { gleaner, signal }) => {
      const out = await gleaner.roles.search({
        ...input,
        max_results: input.max_results ?? gleaner.config.search.max_results,
        signal,
      });
      return out;
    },
    render: (out) => `${renderHits(out.results)}\n${renderRoute(out)}`,
  });
}

/**
 * Input of `web_answer_tool` for a list of usable providers.
 *
 * @internal exported for tests only
 */
export function webAnswerInput(providers: readonly string[]) {
  return z.strictObject({
    query: z.string().min(1).max(2000).describe("The question"),
    depth: z.enum(["quick", "deep"]).default("quick").describe(
      "`quick`: one fast answer; `deep`: more sources, slower",
    ),
    provider: providerArg(providers),
    interaction_id: z.string().min(1).max(RUN_REF_MAX_CHARS).optional().describe(
      "Resumes a deep answer an earlier call returned `in_progress` (with its interaction_id)",
    ),
  });
}

/**
 * `web_answer_tool`: an answer with citations from a provider that writes answers.
 *
 * @example
 * ```ts
 * import { webAnswerTool } from "./role_tools.ts";
 * console.assert(webAnswerTool(["exa"]).name === "web_answer_tool");
 * ```
 */
export function webAnswerTool(
  providers: readonly string[],
): ToolSpec<ReturnType<typeof webAnswerInput>, typeof RoleAnswerOutput> {
  return defineTool({
    name: roleToolName("answer"),
    // Answers are not cached, but a long-running answer's interaction_id is the tenant's own.
    scope: "tenant",
    title: "Web answer",
    description: `Answers a question from a web search, with the sources it cites (providers: ${
      providers.join(", ")
    }). The answer is the provider's own text: check the citations.`,
    input: webAnswerInput(providers),
    output: RoleAnswerOutput,
    readOnly: true,
    openWorld: true,
    handler: (input, { gleaner, signal }) => gleaner.roles.answer({ ...input, signal }),
    render: (out) => `${renderAnswer(out)}\n${renderRoute(out)}`,
  });
}

/** Input of `web_contents_tool` for a list of usable providers. */
function webContentsInput(providers: readonly string[]) {
  return z.strictObject({
    urls: z.array(z.string().url()).min(1).max(10).describe("One to ten URLs to read"),
    query: z.string().max(2000).optional().describe("What you are looking for in them"),
    provider: providerArg(providers),
    target_selector: TargetSelectorSchema.optional(),
    wait_for_selector: WaitForSelectorSchema.optional(),
  });
}

/**
 * `web_contents_tool`: the content of one to ten pages.
 *
 * @example
 * ```ts
 * import { webContentsTool } from "./role_tools.ts";
 * console.assert(webContentsTool(["gleaner"]).name === "web_contents_tool");
 * ```
 */
export function webContentsTool(
  providers: readonly string[],
): ToolSpec<ReturnType<typeof webContentsInput>, typeof RoleContentsOutput> {
  return defineTool({
    name: roleToolName("contents"),
    // Pages are read through the tenant's own reader and cache.
    scope: "tenant",
    title: "Web contents",
    description: `Reads one to ten pages and returns their main content as text (providers: ${
      providers.join(", ")
    }). A page that cannot be read carries an error; the others still answer.`,
    input: webContentsInput(providers),
    output: RoleContentsOutput,
    readOnly: true,
    openWorld: true,
    handler: (input, { gleaner, signal }) =>
      gleaner.roles.contents({
        urls: input.urls,
        query: input.query,
        provider: input.provider,
        targetSelector: input.target_selector,
        waitForSelector: input.wait_for_selector,
        signal,
      }),
    render: (out) => `${renderPages(out.pages)}\n${renderRoute(out)}`,
  });
}
