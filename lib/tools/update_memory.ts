/**
 * The `update_memory` tool: correct a memory (its content, `occurred_at` or author),
 * keeping its old version as history.
 *
 * @module
 */
import { z } from "zod";
import {
  AuthorText,
  memoryKey,
  MemoryKeyInput,
  MemoryNoticeSchema,
  MemorySchema,
  OccurredAtText,
  refineMemoryKey,
} from "./memory_schemas.ts";
import { defineTool, type ToolSpec } from "./spec.ts";

/** Input of `update_memory`. */
export const UpdateMemoryInput: z.ZodObject<{
  memory_id: z.ZodOptional<z.ZodUnion<readonly [z.ZodNumber, z.ZodString]>>;
  ref: z.ZodOptional<z.ZodString>;
  id: z.ZodOptional<z.ZodNumber>;
  content: z.ZodOptional<z.ZodString>;
  occurred_at: z.ZodOptional<z.ZodNullable<z.ZodString>>;
  author: z.ZodOptional<z.ZodNullable<z.ZodString>>;
}, z.core.$strict> = z.strictObject({
  ...MemoryKeyInput.shape,
  content: z.string().max(100_000).refine((s) => s.trim() !== "", {
    message: "must not be empty",
  }).optional(),
  occurred_at: OccurredAtText.nullable().optional(),
  author: AuthorText.nullable().optional(),
}).superRefine((v, ctx) => {
  refineMemoryKey(v, ctx);
  if (v.content === undefined && v.occurred_at === undefined && v.author === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["content"],
      message: "give the new content, occurred_at or author",
    });
  }
});

/** Output of `update_memory`. */
export const UpdateMemoryOutput: z.ZodObject<{
  memory: typeof MemorySchema;
  previous_ref: z.ZodString;
  notices: z.ZodArray<
    typeof MemoryNoticeSchema
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
    scope: "tenant",
    title: "Update memory",
    description:
      "Corrects a memory's content, occurred_at (ISO 8601) or author (null clears); keeps its ref and old version.",
    input: UpdateMemoryInput,
    output: UpdateMemoryOutput,
    http: { path: "/v1/memories/update", mirror: "/update_memory" },
    readOnly: false,
    openWorld: false,
    handler: async (input, { gleaner, signal }) =>
      await (await gleaner.memories()).update(
        {
          ...memoryKey(input),
          ...(input.content !== undefined ? { content: input.content } : {}),
          ...(input.occurred_at !== undefined ? { occurred_at: input.occurred_at } : {}),
          ...(input.author !== undefined ? { author: input.author } : {}),
        },
        signal,
      ),
    render: (out) =>
      [
        `Updated ${out.memory.ref}; the previous version is kept as ${out.previous_ref}.`,
        ...out.notices.map((n) => `- ${n.message}`),
      ].join("\n"),
  });
