/**
 * The `delete_memory` tool: forget a memory and its history.
 *
 * @module
 */
import { z } from "zod";
import { memoryKey, MemoryKeyInput } from "./memory_schemas.ts";
import { defineTool, type ToolSpec } from "./spec.ts";

/** Output of `delete_memory`. */
export const DeleteMemoryOutput: z.ZodObject<{
  deleted: z.ZodBoolean;
  ref: z.ZodString;
  id: z.ZodNumber;
  history_deleted: z.ZodNumber;
}, z.core.$strip> = z.object({
  deleted: z.boolean(),
  ref: z.string(),
  id: z.number().int(),
  history_deleted: z.number().int(),
});

/** The tool definition. */
export const deleteMemoryTool: ToolSpec<typeof MemoryKeyInput, typeof DeleteMemoryOutput> =
  defineTool({
    name: "delete_memory",
    scope: "tenant",
    title: "Delete memory",
    description: "Deletes a memory and its older versions, for good.",
    input: MemoryKeyInput,
    output: DeleteMemoryOutput,
    http: { path: "/v1/memories/delete", mirror: "/delete_memory" },
    readOnly: false,
    openWorld: false,
    handler: async (input, { gleaner }) =>
      await (await gleaner.memories()).delete(memoryKey(input)),
    render: (out) =>
      `Deleted ${out.ref}` +
      (out.history_deleted ? ` and ${out.history_deleted} older version(s)` : "") + ".",
  });
