/**
 * The `get_memory` tool: one memory in full, with its older versions.
 *
 * @module
 */
import { z } from "zod";
import { escapeMemoryText } from "../memory/render.ts";
import { memoryKey, MemoryKeyInput, MemoryNoticeSchema, MemorySchema } from "./memory_schemas.ts";
import { defineTool, type ToolSpec } from "./spec.ts";

/** Output of `get_memory`. */
export const GetMemoryOutput: z.ZodObject<{
  memory: typeof MemorySchema;
  history: z.ZodArray<
    typeof MemorySchema
  >;
  notices: z.ZodArray<
    typeof MemoryNoticeSchema
  >;
}, z.core.$strip> = z.object({
  memory: MemorySchema,
  history: z.array(MemorySchema),
  notices: z.array(MemoryNoticeSchema),
});

/** The tool definition. */
export const getMemoryTool: ToolSpec<typeof MemoryKeyInput, typeof GetMemoryOutput> = defineTool({
  name: "get_memory",
  scope: "tenant",
  title: "Get memory",
  description: "One stored memory in full, with its older versions.",
  input: MemoryKeyInput,
  output: GetMemoryOutput,
  http: { path: "/v1/memories/get", mirror: "/get_memory" },
  readOnly: true,
  openWorld: false,
  handler: async (input, { gleaner }) => await (await gleaner.memories()).get(memoryKey(input)),
  render: (out) => {
    const m = out.memory;
    const lines = [
      `<memory ref="${m.ref}" kind="${m.kind}" created_at="${m.created_at}" updated_at="${m.updated_at}">` +
      `${escapeMemoryText(m.content)}</memory>`,
    ];
    if (m.superseded_by !== null) lines.push("(an old version, replaced by a newer one)");
    if (out.history.length) {
      lines.push(`Older versions: ${out.history.map((h) => h.ref).join(", ")}`);
    }
    return lines.join("\n");
  },
});
