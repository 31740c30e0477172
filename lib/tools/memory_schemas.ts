/**
 * Zod schemas shared by the six memory tools (inputs strict, outputs matching
 * the types of `lib/memory/types.ts`).
 *
 * @module
 */
import { z } from "zod";
import { idTextRefinement } from "../text/id_text.ts";
import { ALIAS_OF } from "./listing.ts";

/** A session scope inside one user's store. */
export const SessionIdSchema: z.ZodString = z.string().min(1).max(200).superRefine(
  idTextRefinement,
).describe("A session's own scope; omit for the whole store");

/** A memory ref (8 characters, as returned by save_memories). */
const RefSchema: z.ZodString = z.string().min(1).max(64).superRefine(idTextRefinement)
  .describe("A memory's ref");

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
  occurred_at: z.ZodOptional<z.ZodNullable<z.ZodString>>;
  author: z.ZodOptional<z.ZodNullable<z.ZodString>>;
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
  occurred_at: z.string().nullable().optional().describe("When what it tells happened"),
  author: z.string().nullable().optional().describe("Who said or wrote it"),
});

/** An ISO 8601 date or date-time, undescribed (see {@link OccurredAtSchema}). */
export const OccurredAtText: z.ZodString = z.string().min(10).max(40).refine(
  // A check, not a `pattern`: the listed schema stays short, the description says the format.
  (s) => /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.test(s),
  "expected an ISO 8601 date (2023-05-08) or date-time (2023-05-08T13:56Z)",
);

/** When what a memory tells happened (ISO 8601 date or date-time). */
export const OccurredAtSchema: z.ZodString = OccurredAtText.describe(
  "When it happened (ISO 8601 date or date-time)",
);

/** An author's name, undescribed (see {@link AuthorSchema}). */
export const AuthorText: z.ZodString = z.string().min(1).max(200).superRefine(idTextRefinement);

/** Who said or wrote a memory. */
export const AuthorSchema: z.ZodString = AuthorText.describe(
  "Who said it; recall prefers the one a query names",
);

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
  near_duplicate: z.ZodOptional<z.ZodBoolean>;
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
  near_duplicate: z.boolean().optional().describe(
    "similar_to: the similarity reaches memory.duplicate_similarity (very likely the same fact; saved all the same)",
  ),
  done: z.number().int().optional(),
  total: z.number().int().optional(),
  eta_seconds: z.number().optional(),
});

/** A memory named as the specification does: its ref (a string) or its numeric id. */
const MemoryIdSchema: z.ZodUnion<readonly [z.ZodNumber, z.ZodString]> = z.union([
  z.number().int().positive(),
  z.string().min(1).max(64).superRefine(idTextRefinement),
]).describe("Its ref or numeric id");

/** The ways of naming one memory: `memory_id`, `ref`, `id`. */
export interface KeyFields {
  /** A ref (string) or a numeric id. */
  memory_id?: number | string;
  /** A ref. */
  ref?: string;
  /** A numeric id. */
  id?: number;
}

/**
 * Checks that the fields naming a memory name one: at least one given, `ref`
 * and `id` not both, and `memory_id` the same ref or id as `ref`/`id` when
 * given with them (otherwise `invalid_arguments` naming the fields).
 */
export function refineMemoryKey(v: KeyFields, ctx: z.RefinementCtx): void {
  const fields = ["memory_id", "ref", "id"] as const;
  const given = fields.filter((f) => v[f] !== undefined);
  if (given.length === 0) {
    ctx.addIssue({ code: "custom", message: `give one of ${fields.join(", ")}` });
    return;
  }
  if (v.ref !== undefined && v.id !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["id"],
      message: "ref and id: give only one of them",
    });
    return;
  }
  if (v.memory_id === undefined || given.length === 1) return;
  const other = v.ref !== undefined ? "ref" : "id";
  const same = typeof v.memory_id === "string"
    ? v.ref !== undefined && v.memory_id.trim().toLowerCase() === v.ref.trim().toLowerCase()
    : v.id !== undefined && v.memory_id === v.id;
  if (!same) {
    ctx.addIssue({
      code: "custom",
      path: ["memory_id"],
      message: `memory_id and ${other} disagree (${JSON.stringify(v.memory_id)} vs ${
        JSON.stringify(v[other])
      }); give one of them`,
    });
  }
}

/** `{ memory_id }`, `{ ref }` or `{ id }`: one of them, or agreeing ones. */
export const MemoryKeyInput: z.ZodObject<{
  memory_id: z.ZodOptional<z.ZodUnion<readonly [z.ZodNumber, z.ZodString]>>;
  ref: z.ZodOptional<z.ZodString>;
  id: z.ZodOptional<z.ZodNumber>;
}, z.core.$strict> = z.strictObject({
  memory_id: MemoryIdSchema.optional(),
  // Other names of memory_id: accepted, not listed to models (see listing.ts).
  ref: RefSchema.meta({ [ALIAS_OF]: "memory_id" }).optional(),
  id: z.number().int().positive().meta({ [ALIAS_OF]: "memory_id" }).optional(),
}).superRefine(refineMemoryKey);

/** The key object of a validated {@link MemoryKeyInput} (or `update_memory`'s input). */
export function memoryKey(input: KeyFields): { ref: string } | { id: number } {
  if (input.ref !== undefined) return { ref: input.ref };
  if (input.id !== undefined) return { id: input.id };
  return typeof input.memory_id === "string" ? { ref: input.memory_id } : { id: input.memory_id! };
}
