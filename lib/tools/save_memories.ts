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
    }).describe("One concise fact or event, in your own words"),
    kind: z.enum(["episodic", "profile"]).optional().describe(
      "episodic (default): something learned or done; profile: a standing fact about the user, attached to every recall",
    ),
    session_id: SessionIdSchema.optional(),
    occurred_at: OccurredAtSchema.optional(),
    author: AuthorSchema.optional(),
  })).min(1).max(1_000).describe("Memories to save together (all or none)"),
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
      "Saves concise memories for later sessions, in one transaction (all or none). Save short self-contained facts (one per memory); kind 'profile' for standing facts about the user. A memory is skipped as a duplicate only when it is the same text, after trimming white space, as one already stored in the same session scope; a memory that differs in case, punctuation or any number, date, time, code, version or name is saved, and one close to an existing memory carries a similar_to notice with the ref to update instead if it is a correction. For a conversation, save each turn as one memory with its session_id, occurred_at and author: recall then brings the turns around a recalled one and prefers the speaker and the time a question names.",
    input: SaveMemoriesInput,
    output: SaveMemoriesOutput,
    http: { path: "/v1/memories/save" },
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
