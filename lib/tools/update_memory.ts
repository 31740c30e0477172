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
