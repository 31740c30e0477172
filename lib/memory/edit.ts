/**
 * One memory by ref or id: reading it with its history, updating its content
 * (re-embedded, with the `similar_to` and `consider_splitting` notices) and
 * deleting it.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import { isZeroVector } from "../embed/vector.ts";
import { checkIdText } from "../text/id_text.ts";
import { countTokens } from "../text/tokens.ts";
import { checkAuthor, checkNoNul, round } from "./checks.ts";
import { parseOccurredAt } from "./time.ts";
import type { MemoryContext } from "./context.ts";
import { traceMemoryEmbed, traceMemorySearch, traceMemoryStore } from "./spans.ts";
import type {
  DeleteMemoryResult,
  GetMemoryResult,
  Memory,
  MemoryKey,
  MemoryNotice,
  UpdateMemoryInput,
  UpdateMemoryResult,
} from "./types.ts";

const log = getGleanerLogger("memory");

/** The memory `key` names; `not_found` naming `field` when there is none. */
async function findMemory(
  ctx: MemoryContext,
  key: MemoryKey,
  field = "ref",
): Promise<Memory> {
  if (key.ref !== undefined) {
    checkIdText(key.ref, "ref");
  } else if (!Number.isSafeInteger(key.id) || key.id! < 1) {
    throw new GleanerError("invalid_arguments", "id: must be a positive integer", {
      details: { field: "id" },
    });
  }
  const memory = key.ref !== undefined
    ? await ctx.backend.get({ ref: key.ref.trim().toLowerCase() })
    : await ctx.backend.get({ id: key.id! });
  if (!memory) {
    const name = key.ref !== undefined ? `ref ${key.ref}` : `id ${key.id}`;
    throw new GleanerError("not_found", `no memory with ${name}`, { details: { field } });
  }
  return memory;
}

/** One memory by ref or id, with its older versions. */
export async function getMemory(ctx: MemoryContext, key: MemoryKey): Promise<GetMemoryResult> {
  const ready = await ctx.embedding.prepare();
  const memory = await findMemory(ctx, key);
  const history = memory.superseded_by === null ? await ctx.backend.history(memory.id) : [];
  return { memory, history, notices: ctx.embedding.notices(ready) };
}

/**
 * Checks what an update names and changes (`invalid_arguments` naming the
 * field); answers the new `occurred_at` (ms since the epoch) and author,
 * `null` to clear, `undefined` to keep.
 */
function checkUpdate(
  input: UpdateMemoryInput,
): { occurredAt: number | null | undefined; author: string | null | undefined } {
  const invalid = (field: string, problem: string) =>
    new GleanerError("invalid_arguments", `${field}: ${problem}`, { details: { field } });
  if (input.ref !== undefined) checkIdText(input.ref, "ref");
  else if (input.id === undefined) throw invalid("ref", "give the ref (or id) of the memory");
  if (
    input.content === undefined && input.occurred_at === undefined && input.author === undefined
  ) throw invalid("content", "give the new content, occurred_at or author");
  if (input.content !== undefined) {
    checkNoNul(input.content, "content");
    if (typeof input.content !== "string" || input.content.trim() === "") {
      throw invalid("content", "must not be empty");
    }
  }
  return {
    author: input.author === null ? null : checkAuthor(input.author, "author"),
    occurredAt: input.occurred_at === undefined || input.occurred_at === null
      ? input.occurred_at
      : parseOccurredAt(input.occurred_at, "occurred_at"),
  };
}

/**
 * Changes a live memory's content (re-embedded), `occurred_at` or author; the
 * old version stays as history.
 */
export async function updateMemory(
  ctx: MemoryContext,
  input: UpdateMemoryInput,
  signal?: AbortSignal,
): Promise<UpdateMemoryResult> {
  const { occurredAt, author } = checkUpdate(input);
  const ready = await ctx.embedding.prepare();
  const current = await findMemory(
    ctx,
    input.ref !== undefined ? { ref: input.ref } : { id: input.id! },
    input.ref !== undefined ? "ref" : "id",
  );
  if (current.superseded_by !== null) {
    throw new GleanerError(
      "not_found",
      `ref ${current.ref} is an old version; update the live memory instead`,
      { details: { field: "ref" } },
    );
  }
  // Only the fields changed: the same content, embedded again (the row keeps a vector).
  const content = input.content ?? current.content;
  const contentChanged = content !== current.content;
  const tokens = contentChanged ? countTokens(content) : current.tokens;
  let vector: Float32Array | undefined;
  if (ready.embedder) {
    try {
      const embedder = ready.embedder;
      [vector] = await traceMemoryEmbed(
        embedder,
        "document",
        1,
        (usage) => embedder.embedDocuments([content], signal, usage),
      );
    } catch (error) {
      if (signal?.aborted) throw error;
      log.warn("memory: embedding failed on update: {error}", { error: String(error) });
    }
  }
  const notices: MemoryNotice[] = [];
  if (contentChanged && vector && !isZeroVector(vector)) {
    const newVector = vector;
    const near = await traceMemorySearch(
      ctx.backend.engine,
      "similar",
      () => ctx.backend.vectorCandidates(newVector, 2, { session_id: current.session_id }),
    );
    const other = near.find((c) => c.id !== current.id && c.score >= ctx.options.reviewSimilarity);
    if (other) {
      const [m] = await ctx.backend.getMany([other.id]);
      if (m) {
        const nearDuplicate = other.score >= ctx.options.duplicateSimilarity;
        notices.push({
          code: "similar_to",
          message: `The new content is ${
            nearDuplicate ? "very likely the same fact as" : "similar to"
          } ${m.ref} (similarity ${round(other.score)}).`,
          ref: m.ref,
          similarity: round(other.score),
          near_duplicate: nearDuplicate,
        });
      }
    }
  }
  const splitTokens = ctx.options.splitTokens;
  if (contentChanged && tokens > splitTokens) {
    notices.push({
      code: "consider_splitting",
      message: `The new content has ${tokens} tokens (over ${splitTokens}): consider splitting it.`,
    });
  }
  const { memory, previous } = await traceMemoryStore(
    ctx.backend.engine,
    "UPDATE",
    1,
    () =>
      ctx.backend.update(current.id, {
        content,
        tokens,
        updated_at: ctx.options.now(),
        ...(vector && ready.model ? { embedding: { model: ready.model, vector } } : {}),
        ...(occurredAt !== undefined ? { occurred_at: occurredAt } : {}),
        ...(author !== undefined ? { author } : {}),
      }),
  );
  if (!memory.embedding_model && ready.embedder) ctx.embedding.start(ready);
  return {
    memory,
    previous_ref: previous.ref,
    notices: [...notices, ...ctx.embedding.notices(ready)],
  };
}

/** Deletes a live memory and its history. */
export async function deleteMemory(
  ctx: MemoryContext,
  key: MemoryKey,
): Promise<DeleteMemoryResult> {
  const memory = await findMemory(ctx, key);
  if (memory.superseded_by !== null) {
    throw new GleanerError(
      "not_found",
      `ref ${memory.ref} is an old version; delete the live memory instead`,
      { details: { field: "ref" } },
    );
  }
  const history = await ctx.backend.history(memory.id);
  if (!await ctx.backend.delete(memory.id)) {
    throw new GleanerError("not_found", `no memory with ref ${memory.ref}`);
  }
  return { deleted: true, ref: memory.ref, id: memory.id, history_deleted: history.length };
}
