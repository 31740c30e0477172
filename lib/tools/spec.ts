/**
 * The shape of a Gleaner tool: defined once, served by the library, MCP and HTTP.
 *
 * @module
 */
import type { z } from "zod";
import type { Gleaner } from "../gleaner.ts";

/** Progress of a long call, forwarded to MCP clients that asked for it. */
export interface Progress {
  /** Work done so far. */
  progress: number;
  /** Total work, when known. */
  total?: number;
  /** A short human-readable status. */
  message?: string;
}

/** What a tool handler receives besides its input. */
export interface ToolContext {
  /** The shared state: config, fetcher, search, reader, store, embedder. */
  gleaner: Gleaner;
  /** Cancels the call (client went away, timeout). */
  signal?: AbortSignal;
  /** Reports progress; a no-op when nobody listens. */
  progress?: (update: Progress) => void;
}

/** One tool: name, description for a model, zod input and output, handler, compact rendering. */
export interface ToolSpec<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
> {
  /** Tool name as MCP clients see it (`snake_case`). */
  name: string;
  /** Short human title. */
  title: string;
  /** What the tool does, written for a model deciding whether to call it. */
  description: string;
  /** Validated input. */
  input: I;
  /** Structured output (MCP `structuredContent`, HTTP JSON body). */
  output: O;
  /** REST route (`POST /v1/...`) when the tool is exposed over HTTP. */
  http?: { path: string };
  /** True when the tool only reads (MCP `readOnlyHint`). */
  readOnly?: boolean;
  /** True when the tool reaches the open web (MCP `openWorldHint`). */
  openWorld?: boolean;
  /** Runs the tool on validated input. */
  handler(input: z.output<I>, context: ToolContext): Promise<z.output<O>>;
  /** The compact text a model reads (MCP `content[0].text`). */
  render(output: z.output<O>): string;
}

/**
 * Defines a tool with full type inference; the identity function.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineTool } from "./spec.ts";
 * const ping = defineTool({
 *   name: "ping",
 *   title: "Ping",
 *   description: "Answers pong.",
 *   input: z.strictObject({}),
 *   output: z.object({ reply: z.string() }),
 *   handler: () => Promise.resolve({ reply: "pong" }),
 *   render: (out) => out.reply,
 * });
 * console.assert(ping.name === "ping");
 * ```
 */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: ToolSpec<I, O>,
): ToolSpec<I, O> {
  return spec;
}

/** A tool whose input and output types are erased (for registries). */
// deno-lint-ignore no-explicit-any
export type AnyToolSpec = ToolSpec<any, any>;
