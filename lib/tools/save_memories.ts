/**
 * The `save_memories` tool: remember facts across sessions.
 *
 * @module
 */
import { z } from "zod";
import {
  AuthorSchema,
  MemoryNoticeSchema,
  OccurredAtSchema,
  SessionIdSchema,
} from "./memory_schemas.ts";
import { defineTool, type ToolSpec } from "./spec.ts";

/** Input of `save_memories`. */
export const SaveMemoriesInput: z.ZodObject<{
  memories: z.ZodArray<
    z.ZodObject<{
      content: z.ZodString;
      kind: z.ZodOptional<
        z.ZodEnum<{
          episodic: "episodic";
          profile: "profile";
        }>
      >;
      session_id: z.ZodOptional<z.ZodString>;
      occurred_at: z.ZodOptional<z.ZodString>;
      author: z.ZodOptional<z.ZodString>;
    }, z.core.$strict>
  >;
}, z.core.$strict> = z.strictObject({
  memories: z.array(z.strictObject({
    content: z.string().max(100_000).refine((s) => s.trim() !== "", {
      message: "must not be empty",
    }).describe("One fact, in your own words"),
    kind: z.enum(["episodic", "profile"]).optional().describe("Default episodic"),
    session_id: SessionIdSchema.optional(),
    occurred_at: OccurredAtSchema.optional(),
    author: AuthorSchema.optional(),
  })).min(1).max(1_000),
});

/** Output of `save_memories`. */
export const SaveMemoriesOutput: z.ZodObject<{
  results: z.ZodArray<
    z.ZodObject<{
      index: z.ZodNumber;
      status: z.ZodEnum<{
        duplicate: "duplicate";
        saved: "saved";
      }>;
      ref: z.ZodString;
      id: z.ZodNumber;
      tokens: z.ZodNumber;
    }, z.core.$strip>
  >;
  saved: z.ZodNumber;
  duplicates: z.ZodNumber;
  notices: z.ZodArray<
    typeof MemoryNoticeSchema
  >;
}, z.core.$strip> = z.object({
  results: z.array(z.object({
    index: z.number().int(),
    status: z.enum(["saved", "duplicate"]),
    ref: z.string(),
    id: z.number().int(),
    tokens: z.number().int(),
  })),
  saved: z.number().int(),
  duplicates: z.number().int(),
  notices: z.array(MemoryNoticeSchema),
});

/** The tool definition. */
export const saveMemoriesTool: ToolSpec<typeof SaveMemoriesInput, typeof SaveMemoriesOutput> =
  defineTool({
    name: "save_memories",
    scope: "tenant",
    title: "Save memories",
    description:
      "Saves short self-contained facts for later sessions, all or none; kind profile: standing facts about the user, in every recall. Only the same text in the same session is skipped; a close one gets a similar_to notice with its ref (update that one for a correction).",
    input: SaveMemoriesInput,
    output: SaveMemoriesOutput,
    http: { path: "/v1/memories/save", mirror: "/save_memories" },
    readOnly: false,
    openWorld: false,
    handler: async (input, { gleaner, signal }) =>
      await (await gleaner.memories()).save(input, { signal }),
    render: (out) => {
      const saved = out.results.filter((r) => r.status === "saved").map((r) => r.ref);
      const lines = [
        `Saved ${out.saved} ${out.saved === 1 ? "memory" : "memories"}` +
        (saved.length ? ` (${saved.join(", ")})` : "") +
        (out.duplicates ? `; skipped ${out.duplicates} duplicate(s)` : "") + ".",
      ];
      for (const notice of out.notices) lines.push(`- ${notice.message}`);
      return lines.join("\n");
    },
  });
