/**
 * The `get_memory` tool: one memory in full, with its older versions.
 *
 * @module
 */
import { z } from "zod";
import { escapeMemoryText } from "../store/memory/render.ts";
import { memoryKey, MemoryKeyInput, MemoryNoticeSchema, MemorySchema } from "./memory_schemas.ts";
import { defineTool, type ToolSpec } from "./spec.ts";

/** Output of `get_memory`. */
export const GetMemoryOutput: z.ZodObject<{
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
  history: z.ZodArray<
    z.ZodObject<{
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
    }, z.core.$strip>
  >;
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
  history: z.array(MemorySchema),
  notices: z.array(MemoryNoticeSchema),
});

/** The tool definition. */
export const getMemoryTool: ToolSpec<typeof MemoryKeyInput, typeof GetMemoryOutput> = defineTool({
  name: "get_memory",
  title: "Get memory",
  description: "Returns one stored memory in full (by ref or id), with its older versions.",
  input: MemoryKeyInput,
  output: GetMemoryOutput,
  http: { path: "/v1/memories/get" },
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
