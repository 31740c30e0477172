/**
 * The `update_memory` tool: correct a memory, keeping its old version as history.
 *
 * @module
 */
import { z } from "zod";
import {
  memoryKey,
  MemoryKeyInput,
  MemoryNoticeSchema,
  MemorySchema,
  refineMemoryKey,
} from "./memory_schemas.ts";
import { defineTool, type ToolSpec } from "./spec.ts";

/** Input of `update_memory`. */
export const UpdateMemoryInput: z.ZodObject<{
  memory_id: z.ZodOptional<z.ZodUnion<readonly [z.ZodNumber, z.ZodString]>>;
  ref: z.ZodOptional<z.ZodString>;
  id: z.ZodOptional<z.ZodNumber>;
  content: z.ZodString;
}, z.core.$strict> = z.strictObject({
  ...MemoryKeyInput.shape,
  content: z.string().max(100_000).refine((s) => s.trim() !== "", {
    message: "must not be empty",
  }).describe("The corrected content"),
}).superRefine(refineMemoryKey);

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
      "Replaces a memory's content when a fact changed; it keeps its ref, the old version stays as history.",
    input: UpdateMemoryInput,
    output: UpdateMemoryOutput,
    http: { path: "/v1/memories/update", mirror: "/update_memory" },
    readOnly: false,
    openWorld: false,
    handler: async (input, { gleaner, signal }) =>
      await (await gleaner.memories()).update(
        { ...memoryKey(input), content: input.content },
        signal,
      ),
    render: (out) =>
      [
        `Updated ${out.memory.ref}; the previous version is kept as ${out.previous_ref}.`,
        ...out.notices.map((n) => `- ${n.message}`),
      ].join("\n"),
  });
