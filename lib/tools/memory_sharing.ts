/**
 * Whether Deep Research clients see stored memories: a predicate on the
 * configuration alone, apart from the Deep Research tools (`deep_research.ts`)
 * so that the MCP server can decide what it serves without loading their
 * contract.
 *
 * @module
 */
import type { MemorySection } from "../config/sections.ts";

/**
 * True when Deep Research clients may see stored memories: memory is on and
 * the operator turned on `memory.deep_research` (off by default).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { sharesMemories } from "./memory_sharing.ts";
 * console.assert(!sharesMemories(parseConfig({})));
 * console.assert(sharesMemories(parseConfig({ memory: { deep_research: true } })));
 * ```
 */
export function sharesMemories(config: { memory: MemorySection }): boolean {
  return config.memory.enabled && config.memory.deep_research;
}
