/**
 * Providers' own tools (`exa_search`, `tavily_extract`, …) as ToolSpecs: the
 * provider module defines the input and the call; here it gets the output
 * schema of its kind, and the call runs through the role router (pacing,
 * breaker, failure classification), pinned to its provider.
 *
 * @module
 */
import type { Config } from "../config/config.ts";
import type { AnyProviderTool, Provider } from "../search/providers/types.ts";
import {
  noteLines,
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
import { assertSearchEnabled, searchEnabled } from "../search/switch.ts";

/**
 * Whether `tool` starts or resumes a provider's long-running run, and the
 * input field that names a run started earlier: a run tool's `run_id` (its
 * status tools), an answer tool's `resumeWith` (default `interaction_id`)
 * when its input has it. `undefined` for a tool that has nothing to do with
 * runs. In hosted mode such a tool's runs are the tenant's own (see
 * `lib/search/run_refs.ts`).
 *
 * @example
 * ```ts
 * import { tinyfishProvider } from "../search/providers/tinyfish.ts";
 * import { providerToolRun } from "./provider_tools.ts";
 * const agent = tinyfishProvider.tools.find((t) => t.name === "tinyfish_run")!;
 * console.assert(providerToolRun(agent)?.field === "run_id");
 * console.assert(providerToolRun(tinyfishProvider.tools[0]) === undefined);
 * ```
 *
 * @internal exported for tests only
 */
export function providerToolRun(tool: AnyProviderTool): { field?: string } | undefined {
  const field = tool.kind === "run"
    ? "run_id"
    : tool.kind === "answer"
    ? tool.resumeWith ?? "interaction_id"
    : undefined;
  const takes = field !== undefined && Object.hasOwn(tool.input.shape, field);
  if (tool.kind === "run") return takes ? { field } : {};
  return takes ? { field } : undefined;
}

/** A renderer of a kind's text, then one `note:` line per notice. */
function noted<O extends { notices?: string[] }>(render: (out: O) => string): (out: O) => string {
  return (out) => [render(out), ...noteLines(out.notices)].join("\n");
}

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
 *
 * @internal exported for its documentation example (a doc test)
 */
export function providerToolSpec(provider: Provider, tool: AnyProviderTool): AnyToolSpec {
  // Every provider tool runs through the role router (breaker, limits, attempts); what the
  // provider changed to fit its documented limits comes back as the answer's `notices`. A tool
  // that starts or resumes a run hands its id to the router, which opens the caller's reference
  // first (hosted mode: only the tenant's own runs) and hands the answer's id back as one.
  const runs = providerToolRun(tool);
  const run = async (input: unknown, { gleaner, signal }: ToolContext) => {
    // Only reading pages stays when the operator turned web search off.
    if (tool.kind !== "contents") assertSearchEnabled(gleaner.config, tool.name);
    const notices: string[] = [];
    const args = input as Record<string, unknown>;
    const ref = runs?.field !== undefined ? args[runs.field] : undefined;
    const value = await gleaner.roles.invoke(
      provider.name,
      (env, runId) =>
        tool.run(runId !== undefined ? { ...args, [runs!.field!]: runId } : input, env),
      signal,
      notices,
      runs && { field: runs.field, ...(typeof ref === "string" ? { ref } : {}) },
    ) as Record<string, unknown>;
    return { value, notices: notices.length > 0 ? { notices } : {} };
  };
  const withProvider = async (input: unknown, context: ToolContext) => {
    const { value, notices } = await run(input, context);
    return { provider: provider.name, ...value, ...notices };
  };
  const base = {
    name: tool.name,
    title: tool.title,
    // A provider's own tool is uncached: it is what its provider is (shared for every one of
    // them), except that a run it starts or resumes is the tenant's own.
    scope: runs ? "tenant" as const : provider.scope,
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
        handler: async (input: unknown, context: ToolContext) => {
          const { value, notices } = await run(input, context);
          return { provider: provider.name, results: value.results, ...notices };
        },
        render: noted((out: { results: Parameters<typeof renderHits>[0]; notices?: string[] }) =>
          renderHits(out.results)
        ),
      } as AnyToolSpec;
    case "answer":
      return {
        ...base,
        output: ProviderAnswerOutput,
        handler: withProvider,
        render: noted((out: Parameters<typeof renderAnswer>[0] & { notices?: string[] }) =>
          renderAnswer(out, tool.resumeWith)
        ),
      } as AnyToolSpec;
    case "run": {
      // A run tool's status tool is named after it (`parallel_research` → `parallel_research_status`).
      const statusTool = tool.name.endsWith("_status") ? tool.name : `${tool.name}_status`;
      return {
        ...base,
        output: ProviderRunOutput,
        handler: withProvider,
        render: noted((out: Parameters<typeof renderRun>[0]) => renderRun(out, statusTool)),
      } as AnyToolSpec;
    }
    default:
      return {
        ...base,
        output: ProviderContentsOutput,
        handler: withProvider,
        render: noted((out: { pages: Parameters<typeof renderPages>[0]; notices?: string[] }) =>
          renderPages(out.pages)
        ),
      } as AnyToolSpec;
  }
}

/**
 * Every tool of the given providers, in order; with `config`, without the
 * tools of a role the configuration does not let their provider serve
 * (`Provider.missingSetting`: keyless Jina has `jina_read`, not `jina_search`), and
 * with web search off (`search.enabled: false`) only the tools that read pages.
 */
export function providerToolSpecs(
  providers: readonly Provider[],
  config?: Config,
): AnyToolSpec[] {
  return providers.flatMap((p) =>
    p.tools
      .filter((tool) =>
        !config ||
        (tool.kind === "contents" || searchEnabled(config)) &&
          (tool.kind === "run" || p.missingSetting?.(tool.kind, config) === undefined)
      )
      .map((tool) => providerToolSpec(p, tool))
  );
}
