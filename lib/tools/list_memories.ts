/**
 * The `list_memories` tool: browse stored memories (previews, filters, pages).
 *
 * @module
 */
import { z } from "zod";
import { escapeMemoryText } from "../memory/render.ts";
import { KindSchema, MemoryNoticeSchema, SessionIdSchema } from "./memory_schemas.ts";
import { defineTool, type ToolSpec } from "./spec.ts";

const TIME_HELP = "ISO 8601 date or time, or a duration ago: 30m, 12h, 7d, 2w";

/** Input of `list_memories`. */
export const ListMemoriesInput: z.ZodObject<{
  kind: z.ZodOptional<
    z.ZodEnum<{
      episodic: "episodic";
      profile: "profile";
    }>
  >;
  since: z.ZodOptional<z.ZodString>;
  until: z.ZodOptional<z.ZodString>;
  search: z.ZodOptional<z.ZodString>;
  session_id: z.ZodOptional<z.ZodString>;
  sort: z.ZodOptional<
    z.ZodEnum<{
      relevance: "relevance";
      recent: "recent";
      stale: "stale";
    }>
  >;
  limit: z.ZodDefault<z.ZodNumber>;
  offset: z.ZodDefault<z.ZodNumber>;
}, z.core.$strict> = z.strictObject({
  kind: KindSchema.optional(),
  since: z.string().max(64).optional().describe(`Created since: ${TIME_HELP}`),
  until: z.string().max(64).optional().describe("Created before; as since"),
  search: z.string().max(1_000).optional().describe("Words all present; the last may be a prefix"),
  session_id: SessionIdSchema.optional(),
  sort: z.enum(["recent", "stale", "relevance"]).optional().describe(
    "Default recent, relevance with search; stale: least recalled first",
  ),
  limit: z.number().int().min(1).max(200).default(20),
  offset: z.number().int().min(0).default(0),
});

/** Output of `list_memories`. */
export const ListMemoriesOutput: z.ZodObject<{
  memories: z.ZodArray<
    z.ZodObject<{
      ref: z.ZodString;
      id: z.ZodNumber;
      kind: z.ZodEnum<{
        episodic: "episodic";
        profile: "profile";
      }>;
      session_id: z.ZodNullable<z.ZodString>;
      preview: z.ZodString;
      preview_truncated: z.ZodBoolean;
      created_at: z.ZodString;
      updated_at: z.ZodString;
      recall_count: z.ZodNumber;
      last_recalled_at: z.ZodNullable<z.ZodString>;
      tokens: z.ZodNumber;
    }, z.core.$strip>
  >;
  returned_count: z.ZodNumber;
  total_count: z.ZodNumber;
  has_more: z.ZodBoolean;
  offset: z.ZodNumber;
  limit: z.ZodNumber;
  notices: z.ZodArray<
    typeof MemoryNoticeSchema
  >;
}, z.core.$strip> = z.object({
  memories: z.array(z.object({
    ref: z.string(),
    id: z.number().int(),
    kind: KindSchema,
    session_id: z.string().nullable(),
    preview: z.string(),
    preview_truncated: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
    recall_count: z.number().int(),
    last_recalled_at: z.string().nullable(),
    tokens: z.number().int(),
  })),
  returned_count: z.number().int().describe("Memories in this page"),
  total_count: z.number().int(),
  has_more: z.boolean(),
  offset: z.number().int(),
  limit: z.number().int(),
  notices: z.array(MemoryNoticeSchema),
});

/** The tool definition. */
export const listMemoriesTool: ToolSpec<typeof ListMemoriesInput, typeof ListMemoriesOutput> =
  defineTool({
    name: "list_memories",
    scope: "tenant",
    title: "List memories",
    description:
      "Lists memory previews with filters and paging, to review or clean up; to answer, use recall_memories.",
    input: ListMemoriesInput,
    output: ListMemoriesOutput,
    http: { path: "/v1/memories/list", mirror: "/list_memories" },
    readOnly: true,
    openWorld: false,
    handler: async (input, { gleaner }) => await (await gleaner.memories()).list(input),
    render: (out) => {
      const end = out.offset + out.memories.length;
      const lines = [
        out.memories.length
          ? `Memories ${out.offset + 1}-${end} of ${out.total_count}` +
            (out.has_more ? ` (more: offset ${end})` : "") + ":"
          : `No memories (total ${out.total_count}).`,
      ];
      for (const m of out.memories) {
        lines.push(`- ${m.ref} [${m.kind}] ${m.created_at}: ${escapeMemoryText(m.preview)}`);
      }
      for (const notice of out.notices) lines.push(`Note: ${notice.message}`);
      return lines.join("\n");
    },
  });
