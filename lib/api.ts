/**
 * The library API: each tool as a typed function over a {@link Gleaner}.
 * Input is validated by the same zod schema MCP and HTTP use.
 *
 * @module
 */
import type { z } from "zod";
import { toGleanerError } from "./errors.ts";
import type { Gleaner } from "./gleaner.ts";
import { withRequestId } from "./telemetry/events.ts";
import { telemetry } from "./telemetry/mod.ts";
import { inputError } from "./tools/input_error.ts";
import { researchTool } from "./tools/research.ts";
import { saveMemoriesTool } from "./tools/save_memories.ts";
import { recallMemoriesTool } from "./tools/recall_memories.ts";
import { listMemoriesTool } from "./tools/list_memories.ts";
import { getMemoryTool } from "./tools/get_memory.ts";
import { updateMemoryTool } from "./tools/update_memory.ts";
import { deleteMemoryTool } from "./tools/delete_memory.ts";
import { scrapeUrlsTool } from "./tools/scrape_urls.ts";
import { searchTool } from "./tools/search.ts";
import type { Progress, ToolSpec } from "./tools/spec.ts";

/** Options of a library call. */
export interface CallOptions {
  /** Cancels the call. */
  signal?: AbortSignal;
  /** Receives progress updates. */
  progress?: (update: Progress) => void;
  /** The request's id in events (`request_id`); a fresh one when absent. */
  requestId?: string;
}

/**
 * The query texts of a tool input (`query`, and each item's `query`), for
 * events when `events.include_query` allows it.
 */
function queriesOf(input: unknown): string[] {
  const out: string[] = [];
  const take = (value: unknown) => {
    if (typeof value === "string" && value !== "") out.push(value.slice(0, 500));
  };
  if (input && typeof input === "object") {
    const record = input as { query?: unknown; items?: unknown };
    take(record.query);
    if (Array.isArray(record.items)) {
      for (const item of record.items.slice(0, 20)) take((item as { query?: unknown })?.query);
    }
  }
  return out;
}

/**
 * Validates input with the tool's strict schema; a bad input is an
 * `invalid_arguments` error naming the tool and the field (an unknown key is
 * named as such: `clear_cache: unknown key "namespace"`), with the expected
 * shape for the usual wrong ones (see `lib/tools/input_error.ts`:
 * `scrape_urls takes \`items\`: [{"url": "https://…"}, …] (got \`urls\`)`,
 * `unknown key "maxTokens" (did you mean "max_tokens"?)`).
 *
 * @example
 * ```ts
 * import { parseToolInput } from "./api.ts";
 * import { clearCacheTool } from "./tools/clear_cache.ts";
 * try {
 *   parseToolInput(clearCacheTool, { namespace: "search" });
 * } catch (error) {
 *   console.assert(String(error).includes('unknown key "namespace"'));
 * }
 * ```
 *
 * @internal exported for tests only
 */
export function parseToolInput<I extends z.ZodObject, O extends z.ZodObject>(
  tool: ToolSpec<I, O>,
  input: unknown,
): z.output<I> {
  const parsed = tool.input.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw inputError(tool.name, tool.input, input, parsed.error);
}

/**
 * Validates input with the tool's schema ({@link parseToolInput}) and runs it
 * (inside a `gleaner.tool` span when telemetry is on).
 *
 * @example
 * ```ts ignore
 * import { callTool, createGleaner } from "../mod.ts";
 * import { currentDatetimeTool } from "./tools/current_datetime.ts";
 * const gleaner = await createGleaner();
 * console.log((await callTool(currentDatetimeTool, gleaner, {})).iso);
 * ```
 */
export function callTool<I extends z.ZodObject, O extends z.ZodObject>(
  tool: ToolSpec<I, O>,
  gleaner: Gleaner,
  input: z.input<I>,
  options: CallOptions = {},
): Promise<z.output<O>> {
  const events = gleaner.events?.enabled ? gleaner.events : undefined;
  return telemetry().span(
    `tool.${tool.name}`,
    "tool",
    { "gleaner.tool": tool.name },
    async (span) => {
      const run = async () => {
        const parsed = parseToolInput(tool, input);
        return await tool.handler(parsed, { gleaner, ...options });
      };
      if (!events) return await run();
      const requestId = options.requestId ?? crypto.randomUUID();
      const started = performance.now();
      let status = "ok";
      try {
        return await withRequestId(requestId, run);
      } catch (error) {
        status = toGleanerError(error, tool.name).code;
        throw error;
      } finally {
        const query = events.includeQuery ? queriesOf(input) : [];
        events.tool({
          tool: tool.name,
          status,
          duration_ms: Math.round(performance.now() - started),
          request_id: requestId,
          ...(span.traceId ? { trace_id: span.traceId } : {}),
          ...(query.length > 0 ? { query } : {}),
        });
      }
    },
  );
}

/** A tool as a typed library function. */
export type ToolFunction<I extends z.ZodObject, O extends z.ZodObject> = (
  gleaner: Gleaner,
  input: z.input<I>,
  options?: CallOptions,
) => Promise<z.output<O>>;

/** Turns a tool definition into a typed library function. */
export function bindTool<I extends z.ZodObject, O extends z.ZodObject>(
  tool: ToolSpec<I, O>,
): ToolFunction<I, O> {
  return (gleaner, input, options) => callTool(tool, gleaner, input, options);
}

/**
 * Searches the web for 1–5 queries.
 *
 * @example
 * ```ts ignore
 * import { createGleaner, search } from "@gleaner/gleaner";
 * const gleaner = await createGleaner();
 * const out = await search(gleaner, { items: [{ query: "deno kv", max_results: 5 }] });
 * console.log(out.items[0].results.map((r) => r.url));
 * ```
 */
export const search: ToolFunction<typeof searchTool.input, typeof searchTool.output> = bindTool(
  searchTool,
);

/**
 * Reads 1–5 pages and returns the passages that answer each item's query.
 *
 * @example
 * ```ts ignore
 * import { createGleaner, scrapeUrls } from "@gleaner/gleaner";
 * const gleaner = await createGleaner();
 * const out = await scrapeUrls(gleaner, { items: [{ url: "https://example.com/", query: "what is this domain for" }], max_tokens: 500 });
 * for (const e of out.evidence) console.log(e.url, e.text);
 * ```
 */
export const scrapeUrls: ToolFunction<typeof scrapeUrlsTool.input, typeof scrapeUrlsTool.output> =
  bindTool(
    scrapeUrlsTool,
  );

/**
 * Searches, reads and ranks in one call: one evidence packet for a question.
 *
 * @example
 * ```ts ignore
 * import { createGleaner, research } from "@gleaner/gleaner";
 * const gleaner = await createGleaner();
 * const out = await research(gleaner, { query: "when did SQLite add WAL mode", max_tokens: 1000 });
 * console.log(out.evidence.map((e) => `${e.url}: ${e.text}`).join("\n"));
 * ```
 */
export const research: ToolFunction<typeof researchTool.input, typeof researchTool.output> =
  bindTool(
    researchTool,
  );

/**
 * Saves memories in one transaction (all or none); a memory that says the same as a stored
 * one in its session scope (the same text after trimming white space; case and punctuation
 * count) is skipped and reported, every other one is saved (near-duplicates with a
 * `similar_to` notice).
 *
 * @example
 * ```ts
 * import { createGleaner, saveMemories } from "../mod.ts";
 * const gleaner = await createGleaner({
 *   store: { path: ":memory:" },
 *   memory: { path: ":memory:" },
 *   embed: { provider: "none" },
 * });
 * const out = await saveMemories(gleaner, { memories: [{ content: "Deploys go out on Tuesdays." }] });
 * console.assert(out.saved === 1);
 * await gleaner.close();
 * ```
 */
export const saveMemories: ToolFunction<
  typeof saveMemoriesTool.input,
  typeof saveMemoriesTool.output
> = bindTool(saveMemoriesTool);

/**
 * Recalls the memories relevant to a query (or the newest), with the profile, within a token budget.
 *
 * @example
 * ```ts
 * import { createGleaner, recallMemories, saveMemories } from "../mod.ts";
 * const gleaner = await createGleaner({
 *   store: { path: ":memory:" },
 *   memory: { path: ":memory:" },
 *   embed: { provider: "none" },
 * });
 * await saveMemories(gleaner, { memories: [{ content: "Deploys go out on Tuesdays." }] });
 * const out = await recallMemories(gleaner, { query: "when do deploys happen" });
 * console.assert(out.memories[0].content.includes("Tuesdays"));
 * await gleaner.close();
 * ```
 */
export const recallMemories: ToolFunction<
  typeof recallMemoriesTool.input,
  typeof recallMemoriesTool.output
> = bindTool(recallMemoriesTool);

/** Lists memories (previews) with filters, sorting and paging. */
export const listMemories: ToolFunction<
  typeof listMemoriesTool.input,
  typeof listMemoriesTool.output
> = bindTool(listMemoriesTool);

/** One memory in full, by ref or id, with its older versions. */
export const getMemory: ToolFunction<typeof getMemoryTool.input, typeof getMemoryTool.output> =
  bindTool(getMemoryTool);

/** Changes a memory's content, occurred_at or author (same ref); the old version is kept as history. */
export const updateMemory: ToolFunction<
  typeof updateMemoryTool.input,
  typeof updateMemoryTool.output
> = bindTool(updateMemoryTool);

/** Deletes a memory and its older versions. */
export const deleteMemory: ToolFunction<
  typeof deleteMemoryTool.input,
  typeof deleteMemoryTool.output
> = bindTool(deleteMemoryTool);
