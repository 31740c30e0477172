/**
 * Zod schemas shared by the six memory tools (inputs strict, outputs matching
 * the types of `lib/memory/types.ts`).
 *
 * @module
 */
import { z } from "zod";
import { idTextRefinement } from "../text/id_text.ts";

/** A session scope inside one user's store. */
export const SessionIdSchema: z.ZodString = z.string().min(1).max(200).superRefine(
  idTextRefinement,
).describe(
  "Session scope inside your store (optional); omit to use the whole store",
);

/** A memory ref (8 characters, as returned by save_memories). */
export const RefSchema: z.ZodString = z.string().min(1).max(64).superRefine(idTextRefinement)
  .describe(
    "Short ref of a memory, as returned by save_memories / recall_memories",
  );

/** Memory kind. */
export const KindSchema: z.ZodEnum<{
  episodic: "episodic";
  profile: "profile";
}> = z.enum(["episodic", "profile"]);

/** A whole stored memory. */
export const MemorySchema: z.ZodObject<{
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
}, z.core.$strip> = z.object({
  id: z.number().int(),
  ref: z.string(),
  content: z.string(),
  kind: KindSchema,
  session_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  recall_count: z.number().int(),
  last_recalled_at: z.string().nullable(),
  superseded_by: z.number().int().nullable().describe("Set on an old version: id of the live one"),
  tokens: z.number().int(),
  embedding_model: z.string().nullable(),
});

/** A notice attached to an answer. */
export const MemoryNoticeSchema: z.ZodObject<{
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
}, z.core.$strip> = z.object({
  code: z.enum([
    "duplicate",
    "similar_to",
    "consider_splitting",
    "reembedding",
    "no_embedder",
    "budget",
  ]),
  message: z.string(),
  index: z.number().int().optional(),
  ref: z.string().optional(),
  similarity: z.number().optional().describe(
    "Cosine similarity: similar_to (saved, close to ref); duplicate (skipped: same text as ref) when known",
  ),
  done: z.number().int().optional(),
  total: z.number().int().optional(),
  eta_seconds: z.number().optional(),
});

/** `{ ref }` or `{ id }`, exactly one. */
export const MemoryKeyInput: z.ZodObject<{
  ref: z.ZodOptional<z.ZodString>;
  id: z.ZodOptional<z.ZodNumber>;
}, z.core.$strict> = z.strictObject({
  ref: RefSchema.optional(),
  id: z.number().int().positive().optional().describe("Numeric id (instead of ref)"),
}).refine((v) => (v.ref === undefined) !== (v.id === undefined), {
  message: "give exactly one of ref or id",
});

/** The key object of a validated {@link MemoryKeyInput}. */
export function memoryKey(
  input: { ref?: string; id?: number },
): { ref: string } | { id: number } {
  return input.ref !== undefined ? { ref: input.ref } : { id: input.id! };
}
