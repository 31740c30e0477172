/**
 * What a tool list costs a model, in o200k tokens: each tool's name,
 * description and input schema as MCP `tools/list` gives them
 * (`toolDefinition`), one JSON object per tool
 * (`{"name","description","input_schema"}`, the shape model APIs take). The
 * budget test (`lib/tools/listing_test.ts`) and `deno task bench tool_tokens`
 * both count with it.
 *
 * @module
 */
import { parseConfig } from "../lib/config/config.ts";
import { countTokens } from "../lib/text/tokens.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { PROVIDERS } from "../lib/search/providers/registry.ts";
import { toolDefinition } from "../mcp/server.ts";

/** The cost of one presentation's tool list. */
export interface ToolListCost {
  /** Tools listed. */
  tools: number;
  /** Tokens of the whole list (names, descriptions, input schemas). */
  tokens: number;
  /** Tokens of the descriptions alone (the tools' and their fields'). */
  description_tokens: number;
  /** Tokens per tool, by name. */
  per_tool: Record<string, number>;
}

/** Every keyed provider with a key, so that each presentation lists all it can. */
function allKeys(): Record<string, unknown> {
  const providers: Record<string, unknown> = {};
  for (const provider of PROVIDERS) {
    if (!provider.keyless) providers[provider.name] = { api_key: "bench-key" };
  }
  return providers;
}

/** The configurations measured, by label. */
export function benchConfigs(): Record<string, Record<string, unknown>> {
  const keys = { providers: allKeys() };
  const llm = { url: "http://127.0.0.1:11434/v1", model: "bench" };
  return {
    default: {},
    "default+llm": { llm },
    roles: { search: { ...keys, presentation: "roles" } },
    "roles (no keys)": { search: { presentation: "roles" } },
    router: { search: { ...keys, presentation: "router" } },
    all_tools: { search: { ...keys, presentation: "all_tools" } },
    "one_provider (exa)": {
      search: { ...keys, presentation: "one_provider", presentation_provider: "exa" },
    },
    deep_research: { search: { presentation: "deep_research" } },
  };
}

/** The text of every `description` in a JSON Schema, at every level. */
function descriptions(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => descriptions(n, out));
  else if (typeof node === "object" && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "description" && typeof value === "string") out.push(value);
      else descriptions(value, out);
    }
  }
  return out;
}

/** The cost of the tool list a configuration declares. */
export function toolListCost(settings: Record<string, unknown>): ToolListCost {
  const tools = toolsFor(parseConfig(settings));
  const per_tool: Record<string, number> = {};
  let tokens = 0;
  let description_tokens = 0;
  for (const tool of tools) {
    const listed = toolDefinition(tool);
    const n = countTokens(JSON.stringify({
      name: listed.name,
      description: listed.description,
      input_schema: listed.inputSchema,
    }));
    per_tool[listed.name] = n;
    tokens += n;
    description_tokens += countTokens(
      [listed.description ?? "", ...descriptions(listed.inputSchema)].join("\n"),
    );
  }
  return { tools: tools.length, tokens, description_tokens, per_tool };
}
