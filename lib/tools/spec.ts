/**
 * The shape of a Gleaner tool: defined once, served by the library, MCP and HTTP.
 *
 * @module
 */
import type { z } from "zod";
import type { Gleaner } from "../gleaner.ts";
import type { TenancyScope } from "../config/tenancy.ts";

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
  /**
   * Who the tool belongs to when several users share one server (hosted mode):
   * `operator` for a tool only the operator may run (it acts on every user's
   * data: `clear_cache`); `tenant` for one whose data or caches are kept per
   * tenant (the memory tools, `search`, `scrape_urls`, `research`,
   * `crawl_site`, `domain_stats`); `shared` for one that answers the same for
   * everyone and keeps nothing of a tenant's (`current_datetime`, a provider's
   * own tools).
   */
  scope: TenancyScope;
  /** What the tool does, written for a model deciding whether to call it. */
  description: string;
  /** Validated input. */
  input: I;
  /** Structured output (MCP `structuredContent`, HTTP JSON body). */
  output: O;
  /**
   * REST route (`POST /v1/...`) when the tool is exposed over HTTP; `mirror` is a second path
   * named after the tool (the memory service's HTTP mirror, `POST /save_memories`), where a
   * read-only tool also answers `GET` with its arguments in the query string. With `prompt`,
   * a REST body may carry `output_format: "prompt"` (beside the tool's arguments; `"json"` is
   * the default), and the answer is `{ "prompt": prompt(output) }`.
   */
  http?: {
    path: string;
    mirror?: string;
    prompt?: (output: z.output<O>) => string | Promise<string>;
  };
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
 *   scope: "shared",
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

/**
 * A tool handler whose code is loaded on its first call. Tool definitions
 * stay light this way: listing tools (MCP `tools/list` at start-up) loads no
 * reader, ranker or tokenizer. A failed load is retried on the next call.
 *
 * @example
 * ```ts
 * import { lazyHandler } from "./spec.ts";
 * const handler = lazyHandler(() =>
 *   Promise.resolve((input: { n: number }) => Promise.resolve({ twice: input.n * 2 }))
 * );
 * console.assert(typeof handler === "function");
 * ```
 */
export function lazyHandler<I, O>(
  load: () => Promise<(input: I, context: ToolContext) => Promise<O>>,
): LazyHandler<I, O> {
  let loading: Promise<(input: I, context: ToolContext) => Promise<O>> | undefined;
  const preload = () =>
    loading ??= load().catch((error) => {
      loading = undefined;
      throw error;
    });
  return Object.assign(
    async (input: I, context: ToolContext) => (await preload())(input, context),
    { preload: async () => void await preload() },
  );
}

/** A handler made by {@link lazyHandler}: callable, and loadable ahead of the first call. */
export type LazyHandler<I, O> = ((input: I, context: ToolContext) => Promise<O>) & {
  /** Loads the handler's code now (a server warming up after start). */
  preload(): Promise<void>;
};

/**
 * Loads a tool's handler code ahead of its first call; nothing to do for a
 * handler that is not lazy.
 *
 * @example
 * ```ts
 * import { preloadHandler, TOOLS } from "@gleaner/gleaner";
 * await Promise.all(TOOLS.map(preloadHandler));
 * ```
 */
export async function preloadHandler(tool: AnyToolSpec): Promise<void> {
  const handler = tool.handler as Partial<LazyHandler<unknown, unknown>>;
  await handler.preload?.();
}

/**
 * True when a call answered but every part of it failed: a batch (`items`) whose every item
 * carries an error, or a research whose every page failed and gave no source. MCP marks such
 * an answer `isError: true` (its structured content still carries each item's error) and the
 * CLI exits 1; HTTP answers it with status 200 and the items' errors.
 *
 * @example
 * ```ts
 * import { everyItemFailed } from "./spec.ts";
 * const failed = { url: "http://10.0.0.1/", ok: false, error: { code: "blocked_url", message: "…" } };
 * console.assert(everyItemFailed({ items: [failed] }));
 * console.assert(!everyItemFailed({ items: [failed, { url: "https://example.com/", ok: true }] }));
 * console.assert(!everyItemFailed({ items: [] }));
 * ```
 */
export function everyItemFailed(output: unknown): boolean {
  if (typeof output !== "object" || output === null) return false;
  const out = output as {
    items?: unknown;
    sources?: unknown;
    failed?: unknown;
  };
  if (Array.isArray(out.sources) && Array.isArray(out.failed)) {
    return out.sources.length === 0 && out.failed.length > 0;
  }
  if (!Array.isArray(out.items) || out.items.length === 0) return false;
  return out.items.every((item: { ok?: unknown; error?: unknown } | null) =>
    item !== null && typeof item === "object" && (item.ok === false || item.error !== undefined)
  );
}
