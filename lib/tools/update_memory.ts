/**
 * The `update_memory` tool: correct a memory, keeping its old version as history.
 *
 * @module
 */
import { z } from "zod";
import { MemoryNoticeSchema, MemorySchema, RefSchema } from "./memory_schemas.ts";
import { defineTool, type ToolSpec } from "./spec.ts";

/** Input of `update_memory`. */
export const UpdateMemoryInput: z.ZodObject<{
  ref: z.ZodString;
  content: z.ZodString;
}, z.core.$strict> = z.strictObject({
  ref: RefSchema,
  content: z.string().max(100_000).refine((s) => s.trim() !== "", {
    message: "must not be empty",
  }).describe("The corrected content, replacing the old one"),
});

/** Output of `update_memory`. */
export const UpdateMemoryOutput: z.ZodObject<{
  memory: z.ZodObject<{
    id: z.ZodNumber;
    ref: z.ZodString;
    content: z.ZodString;
    kind: z.ZodEnum<{
      episodic: "episodic";
      profile: "profile";
    }>;
    session_id: z.ZodNullable<z.ZodString>;
    created_at: z.ZodString;
    updated_at: z.ZodString;
    recall_count: z.ZodNumber;
    last_recalled_at: z.ZodNullable<z.ZodString>;
    superseded_by: z.ZodNullable<z.ZodNumber>;
    tokens: z.ZodNumber;
    embedding_model: z.ZodNullable<z.ZodString>;
  }, z.core.$strip>;
  previous_ref: z.ZodString;
  notices: z.ZodArray<
    z.ZodObject<{
      code: z.ZodEnum<{
        duplicate: "duplicate";
        similar_to: "similar_to";
        consider_splitting: "consider_splitting";
        reembedding: "reembedding";
        no_embedder: "no_embedder";
        budget: "budget";
      }>;
      message: z.ZodString;
      index: z.ZodOptional<z.ZodNumber>;
      ref: z.ZodOptional<z.ZodString>;
      similarity: z.ZodOptional<z.ZodNumber>;
      done: z.ZodOptional<z.ZodNumber>;
      total: z.ZodOptional<z.ZodNumber>;
      eta_seconds: z.ZodOptional<z.ZodNumber>;
    }, z.core.$strip>
  >;
}, z.core.$strip> = z.object({
  memory: MemorySchema,
  previous_ref: z.string(),
  notices: z.array(MemoryNoticeSchema),
});

/** The tool definition. */
export const updateMemoryTool: ToolSpec<typeof UpdateMemoryInput, typeof UpdateMemoryOutput> =
  defineTool({
    name: "update_memory",
    title: "Update memory",
    description:
      "Replaces the content of a stored memory (same ref) when a fact changed; the old version is kept as history.",
    input: UpdateMemoryInput,
    output: UpdateMemoryOutput,
    http: { path: "/v1/memories/update" },
    readOnly: false,
    openWorld: false,
    handler: async (input, { gleaner, signal }) =>
      await (await gleaner.memories()).update(input, signal),
    render: (out) =>
      [
        `Updated ${out.memory.ref}; the previous version is kept as ${out.previous_ref}.`,
        ...out.notices.map((n) => `- ${n.message}`),
      ].join("\n"),
  });
