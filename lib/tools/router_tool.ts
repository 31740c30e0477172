/**
 * The `router` presentation's one tool, `search`: the search role's input
 * (the same as `web_search_tool`'s) plus an optional `provider`, answered by
 * that one provider, defaulting to the first usable provider of the search
 * role. The call is the provider's search, the call its own search tool
 * (`brave_web_search`, `exa_search`, `tavily_search`, …) makes, with the
 * search role's normalisation around it: domain filters (natively or as a
 * `site:` hint, then checked on the hits), the provider's documented limits,
 * dedupe, cache, pacing, breaker and failure classification. There is no
 * fallback: the answer always comes from the provider named or defaulted.
 *
 * @module
 */
import { z } from "zod";
import { GleanerError } from "../errors.ts";
import { renderHits, renderRoute, RoleSearchOutput } from "./role_schemas.ts";
import { webSearchInput } from "./role_tools.ts";
import { defineTool, type ToolSpec } from "./spec.ts";

/** Longest part of an unknown provider name quoted back in a message. */
const QUOTED_MAX = 40;

function unusable(name: string, usable: readonly string[]): string {
  return `${JSON.stringify(name.slice(0, QUOTED_MAX))} is not a usable search provider; usable: ${
    usable.join(", ")
  }`;
}

/** Input of the router's `search` for a list of usable providers (the first is the default). */
function routerSearchInput(providers: readonly string[]) {
  return webSearchInput(providers).extend({
    provider: z.enum(providers as [string, ...string[]], {
      error: (issue) => unusable(String(issue.input), providers),
    }).optional().describe(
      `The provider that answers (only that one: no fallback); default ${providers[0]}`,
    ),
  });
}

/**
 * `search` of the `router` presentation: one provider per call, chosen by `provider`.
 *
 * @example
 * ```ts
 * import { routerSearchTool } from "./router_tool.ts";
 * const tool = routerSearchTool(["brave", "duckduckgo"]);
 * console.assert(tool.name === "search");
 * console.assert(tool.input.safeParse({ query: "x", provider: "duckduckgo" }).success);
 * console.assert(!tool.input.safeParse({ query: "x", provider: "exa" }).success);
 * ```
 */
export function routerSearchTool(
  providers: readonly string[],
): ToolSpec<ReturnType<typeof routerSearchInput>, typeof RoleSearchOutput> {
  return defineTool({
    name: "search",
    // Search answers are cached per tenant.
    scope: "tenant",
    title: "Web search",
    description: `Searches the web with one provider: \`provider\` picks it (${
      providers.join(", ")
    }; default ${
      providers[0]
    }). Returns titles, URLs, snippets and dates, and says which provider answered.`,
    input: routerSearchInput(providers),
    output: RoleSearchOutput,
    readOnly: true,
    openWorld: true,
    handler: async (input, { gleaner, signal }) => {
      // What is usable is decided by the Gleaner that runs the call (a library caller
      // may hand a tool built for another configuration).
      const usable = gleaner.roles.providers("search");
      const provider = input.provider ?? usable[0];
      if (provider === undefined || !usable.includes(provider)) {
        throw new GleanerError(
          "invalid_arguments",
          provider === undefined
            ? "provider: no provider is configured for search"
            : `provider: ${unusable(provider, usable)}`,
          { details: { field: "provider", usable } },
        );
      }
      return await gleaner.roles.search({
        ...input,
        max_results: input.max_results ?? gleaner.config.search.max_results,
        provider,
        signal,
      });
    },
    render: (out) => `${renderHits(out.results)}\n${renderRoute(out)}`,
  });
}
