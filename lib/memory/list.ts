/**
 * Listing memories (`list_memories`): filters, sort and paging over the
 * backend, previews only, no embedding, no budget.
 *
 * @module
 */
import { checkIdText } from "../text/id_text.ts";
import { checkKind, checkNoNul } from "./checks.ts";
import type { MemoryContext } from "./context.ts";
import { parseTimeFilter } from "./time.ts";
import type { ListedMemory, ListMemoriesInput, ListMemoriesResult, Memory } from "./types.ts";

/** Characters of a `list_memories` preview. */
export const PREVIEW_CHARS = 200;

/** Lists memories: filters, sort, paging; previews only, no embedding, no budget. */
export async function listMemories(
  ctx: MemoryContext,
  input: ListMemoriesInput = {},
): Promise<ListMemoriesResult> {
  checkKind(input.kind, "kind");
  checkIdText(input.session_id, "session_id");
  checkNoNul(input.search, "search");
  const ready = await ctx.embedding.prepare();
  const now = ctx.options.now();
  const limit = Math.min(200, Math.max(1, input.limit ?? 20));
  const offset = Math.max(0, input.offset ?? 0);
  const since = input.since !== undefined ? parseTimeFilter(input.since, "since", now) : undefined;
  const until = input.until !== undefined ? parseTimeFilter(input.until, "until", now) : undefined;
  const page = await ctx.backend.list({
    ...(input.kind ? { kind: input.kind } : {}),
    ...(input.session_id !== undefined ? { session_id: input.session_id } : {}),
    since,
    until,
    search: input.search,
    // While searching, best match first unless `sort` says otherwise.
    sort: input.sort ?? (input.search?.trim() ? "relevance" : "recent"),
    limit,
    offset,
  });
  return {
    memories: page.items.map(preview),
    returned_count: page.items.length,
    total_count: page.total,
    has_more: offset + page.items.length < page.total,
    offset,
    limit,
    notices: ctx.embedding.notices(ready),
  };
}

function preview(m: Memory): ListedMemory {
  const flat = m.content.replace(/\s+/g, " ").trim();
  const cut = flat.length > PREVIEW_CHARS;
  return {
    ref: m.ref,
    id: m.id,
    kind: m.kind,
    session_id: m.session_id,
    preview: cut ? `${flat.slice(0, PREVIEW_CHARS - 1).trimEnd()}…` : flat,
    preview_truncated: cut,
    created_at: m.created_at,
    updated_at: m.updated_at,
    recall_count: m.recall_count,
    last_recalled_at: m.last_recalled_at,
    tokens: m.tokens,
  };
}
