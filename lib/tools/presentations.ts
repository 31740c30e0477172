/**
 * Which tools an MCP client (and the HTTP API) sees, by `search.presentation`:
 *
 * - `default`: Gleaner's own tools (`search`, `scrape_urls`, …); `search`
 *   uses the configured provider order. The memory tools only when
 *   `memory.enabled`; `search_and_summarize` only with a language model
 *   (`llm.url`, `llm.model`).
 * - `roles`: `web_search_tool`, `web_answer_tool`, `web_contents_tool`, each
 *   only when at least one provider can serve it (contents always can:
 *   Gleaner's own reader is the last resort).
 * - `all_tools`: every configured provider's own tools.
 * - `one_provider`: the tools of `search.presentation_provider` only.
 * - `deep_research`: `search` and `fetch` in the Deep Research contract (see `deep_research.ts`).
 * - `router`: one `search` tool whose `provider` argument picks the provider
 *   that answers (default: the search role's first usable one; see `router_tool.ts`).
 *
 * @module
 */
import { DEEP_RESEARCH_TOOLS } from "./deep_research.ts";
import { defaultTools, defaultToolsFor, searchSwitched } from "./default_tools.ts";
import type { Config } from "../config/config.ts";
import { GleanerError } from "../errors.ts";
import { GLEANER_READER } from "../search/providers/reader.ts";
import {
  configuredProviders,
  providerByName,
  usableProviders,
} from "../search/providers/registry.ts";
import { providerToolSpecs } from "./provider_tools.ts";
import { routerSearchTool } from "./router_tool.ts";
import { webAnswerTool, webContentsTool, webSearchTool } from "./role_tools.ts";
import type { AnyToolSpec } from "./spec.ts";
import { searchEnabled } from "../search/switch.ts";

/** The role tools a configuration can serve. */
function roleTools(config: Config): AnyToolSpec[] {
  const tools: AnyToolSpec[] = [];
  const search = usableProviders(config, "search").map((p) => p.name);
  if (search.length > 0) tools.push(webSearchTool(search));
  const answer = usableProviders(config, "answer").map((p) => p.name);
  if (answer.length > 0) tools.push(webAnswerTool(answer));
  const contents = usableProviders(config, "contents").map((p) => p.name);
  tools.push(
    webContentsTool(contents.includes(GLEANER_READER) ? contents : [...contents, GLEANER_READER]),
  );
  return tools;
}

/**
 * The tools declared for a configuration.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { toolsFor } from "./presentations.ts";
 * const roles = toolsFor(parseConfig({ search: { presentation: "roles" } }));
 * console.assert(roles.map((t) => t.name).join() === "web_search_tool,web_contents_tool");
 * const exa = toolsFor(parseConfig({ search: { presentation: "one_provider", presentation_provider: "exa", exa_api_key: "k" } }));
 * console.assert(exa.every((t) => t.name.startsWith("exa_")));
 * const router = toolsFor(parseConfig({ search: { presentation: "router" } }));
 * console.assert(router.map((t) => t.name).join() === "search");
 * ```
 */
export function toolsFor(config: Config): AnyToolSpec[] {
  return defaultToolsFor(config) ?? searchSwitched(config, presentationTools(config));
}

/**
 * The tools a configuration would declare but does not because web search is off
 * (`search.enabled: false`): the HTTP surface answers their paths with `search_disabled`
 * rather than an unknown route. Empty while search is on.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { withheldSearchTools } from "./presentations.ts";
 * console.assert(withheldSearchTools(parseConfig({})).length === 0);
 * const off = withheldSearchTools(parseConfig({ search: { enabled: false } }));
 * console.assert(off.some((t) => t.name === "search"));
 * ```
 */
export function withheldSearchTools(config: Config): AnyToolSpec[] {
  if (searchEnabled(config)) return [];
  const on = { ...config, search: { ...config.search, enabled: true } };
  const declared = new Set(toolsFor(config).map((tool) => tool.name));
  return presentationTools(on).filter((tool) => !declared.has(tool.name));
}

/** The tools of the configured presentation, before the search switch. */
function presentationTools(config: Config): AnyToolSpec[] {
  switch (config.search.presentation) {
    case "roles":
      return roleTools(config);
    case "deep_research":
      return [...DEEP_RESEARCH_TOOLS];
    case "router": {
      const search = usableProviders(config, "search").map((p) => p.name);
      if (search.length === 0) {
        throw new GleanerError(
          "invalid_arguments",
          "config: search.presentation: router needs a provider that serves search (search.search_order names none that is configured)",
          { details: { field: "search.search_order" } },
        );
      }
      return [routerSearchTool(search)];
    }
    case "all_tools":
      return providerToolSpecs(configuredProviders(config), config);
    case "one_provider": {
      const name = config.search.presentation_provider;
      const provider = name ? providerByName(name) : undefined;
      if (!provider || !provider.isConfigured(config)) {
        throw new GleanerError(
          "invalid_arguments",
          `config: search.presentation_provider: ${
            name ? `${name} is not a configured provider` : "must name a provider"
          } when search.presentation is one_provider`,
          { details: { field: "search.presentation_provider" } },
        );
      }
      return providerToolSpecs([provider], config);
    }
    default:
      return defaultTools(config);
  }
}
