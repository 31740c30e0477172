/**
 * Providers' own tools (`exa_search`, `tavily_extract`, …) as ToolSpecs: the
 * provider module defines the input and the call; here it gets the output
 * schema of its kind, and the call runs through the role router (pacing,
 * breaker, failure classification), pinned to its provider.
 *
 * @module
 */
import type { AnyProviderTool, Provider } from "../search/providers/types.ts";
import {
  ProviderAnswerOutput,
  ProviderContentsOutput,
  ProviderRunOutput,
  ProviderSearchOutput,
  renderAnswer,
  renderHits,
  renderPages,
  renderRun,
} from "./role_schemas.ts";
import type { AnyToolSpec, ToolContext } from "./spec.ts";

/**
 * The ToolSpec of one provider tool.
 *
 * @example
 * ```ts
 * import { exaProvider } from "../search/providers/exa.ts";
 * import { providerToolSpec } from "./provider_tools.ts";
 * const spec = providerToolSpec(exaProvider, exaProvider.tools[0]);
 * console.assert(spec.name === "exa_search");
 * ```
 */
export function providerToolSpec(provider: Provider, tool: AnyProviderTool): AnyToolSpec {
  // Every provider tool runs through the role router (breaker, limits, attempts).
  const run = (input: unknown, { gleaner, signal }: ToolContext) =>
    gleaner.roles.invoke(provider.name, (env) => tool.run(input, env), signal) as Promise<
      Record<string, unknown>
    >;
  const withProvider = async (input: unknown, context: ToolContext) => ({
    provider: provider.name,
    ...await run(input, context),
  });
  const base = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    input: tool.input,
    readOnly: tool.readOnly ?? true,
    openWorld: true,
  };
  switch (tool.kind) {
    case "search":
      return {
        ...base,
        output: ProviderSearchOutput,
        handler: async (input: unknown, context: ToolContext) => ({
          provider: provider.name,
          results: (await run(input, context)).results,
        }),
        render: (out: { results: Parameters<typeof renderHits>[0] }) => renderHits(out.results),
      } as AnyToolSpec;
    case "answer":
      return {
        ...base,
        output: ProviderAnswerOutput,
        handler: withProvider,
        render: (out: Parameters<typeof renderAnswer>[0]) => renderAnswer(out, tool.resumeWith),
      } as AnyToolSpec;
    case "run": {
      // A run tool's status tool is named after it (`parallel_research` → `parallel_research_status`).
      const statusTool = tool.name.endsWith("_status") ? tool.name : `${tool.name}_status`;
      return {
        ...base,
        output: ProviderRunOutput,
        handler: withProvider,
        render: (out: Parameters<typeof renderRun>[0]) => renderRun(out, statusTool),
      } as AnyToolSpec;
    }
    default:
      return {
        ...base,
        output: ProviderContentsOutput,
        handler: withProvider,
        render: (out: { pages: Parameters<typeof renderPages>[0] }) => renderPages(out.pages),
      } as AnyToolSpec;
  }
}

/** Every tool of the given providers, in order. */
export function providerToolSpecs(providers: readonly Provider[]): AnyToolSpec[] {
  return providers.flatMap((p) => p.tools.map((tool) => providerToolSpec(p, tool)));
}
