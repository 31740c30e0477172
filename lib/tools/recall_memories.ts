/**
 * The `recall_memories` tool: the stored memories that matter now, within a token budget.
 *
 * @module
 */
import { z } from "zod";
import { renderRecall } from "../memory/render.ts";
import { MemoryNoticeSchema, SessionIdSchema } from "./memory_schemas.ts";
import { defineTool, type ToolSpec } from "./spec.ts";

/** Input of `recall_memories`. */
export const RecallMemoriesInput: z.ZodObject<{
  query: z.ZodOptional<z.ZodString>;
  top_k: z.ZodDefault<z.ZodNumber>;
  max_tokens: z.ZodOptional<z.ZodNumber>;
  session_id: z.ZodOptional<z.ZodString>;
}, z.core.$strict> = z.strictObject({
  query: z.string().max(4_000).optional().describe("Omit for the newest"),
  top_k: z.number().int().min(1).max(100).default(10),
  max_tokens: z.number().int().min(1).max(100_000).optional().describe(
    "Budget of the memories; the profile has its own",
  ),
  session_id: SessionIdSchema.optional(),
});

/** Output of `recall_memories`. */
export const RecallMemoriesOutput: z.ZodObject<{
  mode: z.ZodEnum<{
    search: "search";
    recent: "recent";
  }>;
  current_time: z.ZodString;
  retrievers: z.ZodArray<
    z.ZodEnum<{
      bm25: "bm25";
      dense: "dense";
    }>
  >;
  profile: z.ZodArray<
    z.ZodObject<{
      ref: z.ZodString;
      id: z.ZodNumber;
      content: z.ZodString;
      created_at: z.ZodString;
      updated_at: z.ZodString;
      tokens: z.ZodNumber;
    }, z.core.$strip>
  >;
  profile_total: z.ZodNumber;
  memories: z.ZodArray<
    z.ZodObject<{
      index: z.ZodNumber;
      ref: z.ZodString;
      id: z.ZodNumber;
      content: z.ZodString;
      session_id: z.ZodNullable<z.ZodString>;
      created_at: z.ZodString;
      updated_at: z.ZodString;
      tokens: z.ZodNumber;
      occurred_at: z.ZodOptional<z.ZodString>;
      author: z.ZodOptional<z.ZodString>;
      score: z.ZodOptional<z.ZodNumber>;
      relevance: z.ZodOptional<
        z.ZodEnum<{
          high: "high";
          medium: "medium";
          low: "low";
        }>
      >;
      context: z.ZodOptional<
        z.ZodArray<
          z.ZodObject<{
            ref: z.ZodString;
            id: z.ZodNumber;
            content: z.ZodString;
            position: z.ZodEnum<{ before: "before"; after: "after" }>;
            occurred_at: z.ZodOptional<z.ZodString>;
            author: z.ZodOptional<z.ZodString>;
            tokens: z.ZodNumber;
          }, z.core.$strip>
        >
      >;
    }, z.core.$strip>
  >;
  matched: z.ZodNumber;
  truncated: z.ZodBoolean;
  tokens: z.ZodNumber;
  notices: z.ZodArray<
    typeof MemoryNoticeSchema
  >;
}, z.core.$strip> = z.object({
  mode: z.enum(["search", "recent"]),
  current_time: z.string(),
  retrievers: z.array(z.enum(["bm25", "dense"])),
  profile: z.array(z.object({
    ref: z.string(),
    id: z.number().int(),
    content: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    tokens: z.number().int(),
  })),
  profile_total: z.number().int(),
  memories: z.array(z.object({
    index: z.number().int(),
    ref: z.string(),
    id: z.number().int(),
    content: z.string(),
    session_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    tokens: z.number().int(),
    occurred_at: z.string().optional(),
    author: z.string().optional(),
    score: z.number().optional(),
    relevance: z.enum(["high", "medium", "low"]).optional(),
    context: z.array(z.object({
      ref: z.string(),
      id: z.number().int(),
      content: z.string(),
      position: z.enum(["before", "after"]),
      occurred_at: z.string().optional(),
      author: z.string().optional(),
      tokens: z.number().int(),
    })).optional().describe("What was said just before and after it in its session"),
  })),
  matched: z.number().int(),
  truncated: z.boolean(),
  tokens: z.number().int(),
  notices: z.array(MemoryNoticeSchema),
});

/** The tool definition. */
export const recallMemoriesTool: ToolSpec<typeof RecallMemoriesInput, typeof RecallMemoriesOutput> =
  defineTool({
    name: "recall_memories",
    scope: "tenant",
    title: "Recall memories",
    description:
      "Recalls the stored memories that match a query (words and meaning), best first, within a token budget, with the user's profile. Call it at the start of a task instead of asking again.",
    input: RecallMemoriesInput,
    output: RecallMemoriesOutput,
    http: { path: "/v1/memories/recall", mirror: "/recall_memories" },
    // Recall only bumps recall counters: a read for the client's approval purposes.
    readOnly: true,
    openWorld: false,
    handler: async (input, { gleaner, signal }) =>
      await (await gleaner.memories()).recall(input, { signal }),
    render: renderRecall,
  });
