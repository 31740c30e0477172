/**
 * The MCP envelope of a Deep Research answer. The contract
 * (https://platform.openai.com/docs/mcp) asks for exactly one `text` content
 * item holding the object as JSON; the same object goes in
 * `structuredContent` for clients that read it.
 *
 * - `content` has one block: the compact JSON of the contract's object and
 *   nothing else (no provenance footer, no second block);
 * - provenance a server attaches travels in the other two channels:
 *   `extras.structured` is merged into `structuredContent` and `extras.meta`
 *   becomes `_meta`; on a collision the contract's keys win;
 * - an error is one text block with `isError: true`.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** What a server attaches to an answer besides the contract's object. */
export interface EnvelopeExtras {
  /** Keys added to `structuredContent` beside the contract's keys (which win on a collision). */
  structured?: Record<string, unknown>;
  /** The answer's `_meta` (left out when absent). */
  meta?: Record<string, unknown>;
}

/**
 * A successful answer: the object as compact JSON in `content[0].text` (the
 * only block), the object plus `extras.structured` in `structuredContent`,
 * and `extras.meta` as `_meta`.
 *
 * @example
 * ```ts
 * import { deepResearchResult } from "@gleaner/gleaner/deep-research";
 * const out = deepResearchResult(
 *   { results: [{ id: "a", title: "A", url: "https://example.org/a" }] },
 *   { structured: { results: "ignored", provenance: { source: "catalogue" } } },
 * );
 * console.assert(out.content.length === 1);
 * console.assert(JSON.parse((out.content[0] as { text: string }).text).results[0].id === "a");
 * console.assert(Array.isArray(out.structuredContent?.results));
 * ```
 */
export function deepResearchResult(
  object: Record<string, unknown>,
  extras?: EnvelopeExtras,
): CallToolResult {
  const result: CallToolResult = {
    content: [{ type: "text", text: JSON.stringify(object) }],
    structuredContent: { ...(extras?.structured ?? {}), ...object },
  };
  if (extras?.meta !== undefined) result._meta = { ...extras.meta };
  return result;
}

/**
 * A failed answer: one text block with the message and `isError: true` (the
 * SDK then skips the output schema).
 *
 * @example
 * ```ts
 * import { deepResearchError } from "@gleaner/gleaner/deep-research";
 * const out = deepResearchError('Document not found: "x".');
 * console.assert(out.isError === true && out.content.length === 1);
 * ```
 */
export function deepResearchError(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
