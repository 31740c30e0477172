/**
 * Output schemas of the provider layer's tools (role tools and providers' own
 * tools), shared so every tool of a kind answers in the same shape.
 *
 * @module
 */
import { z } from "zod";

/** Bounded provider-specific fields. */
const ProviderDataSchema = z.record(z.string(), z.unknown()).optional().describe(
  "A few provider-specific fields (score, author, …)",
);

/** One search result as every provider's answer is normalized to. */
const HitSchema = z.object({
  title: z.string(),
  url: z.string(),
  snippet: z.string(),
  published: z.string().optional(),
  source: z.string().describe("Provider that found it"),
  provider_data: ProviderDataSchema,
});

/** A provider that failed (or was skipped while cooling down) before the one that answered. */
export const FallbackSchema: z.ZodObject<{
  provider: z.ZodString;
  code: z.ZodString;
  skipped: z.ZodOptional<z.ZodBoolean>;
}, z.core.$strip> = z.object({
  provider: z.string(),
  code: z.string(),
  skipped: z.boolean().optional(),
});

/** One provider call. */
const RoleAttemptSchema = z.object({
  backend: z.string(),
  outcome: z.enum(["ok", "empty", "blocked", "rate_limited", "unavailable", "invalid"]),
  ms: z.number(),
});

/** One page of a contents answer. */
const PageSchema = z.object({
  url: z.string(),
  title: z.string().optional().describe("The page's title, when the provider gives one"),
  content: z.string(),
  published: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  provider: z.string().optional().describe(
    "The provider that read this page, when not the one that answered",
  ),
  provider_data: ProviderDataSchema,
});

/** What a provider changed in the request to fit its documented limits. */
const NoticesSchema = z.array(z.string()).optional().describe(
  "What the provider changed in the request to fit its documented limits; a configured provider that could not be used, and the setting to fix",
);

/** What every routed answer says about how it was obtained. */
const RoleMetaShape = {
  role: z.enum(["search", "answer", "contents"]),
  provider: z.string().describe(
    "The provider that answered (keyless engines asked together: their names joined by +)",
  ),
  fallback_from: z.array(FallbackSchema).describe("Providers that failed first, with codes"),
  attempts: z.array(RoleAttemptSchema),
  notices: NoticesSchema,
};

/** Output of the search role. */
export const RoleSearchOutput = z.object({
  ...RoleMetaShape,
  results: z.array(HitSchema),
  cached: z.boolean(),
  age_s: z.number().optional().describe("Age of a cached answer in seconds"),
});

/** Output of the answer role. */
export const RoleAnswerOutput = z.object({
  ...RoleMetaShape,
  depth: z.enum(["quick", "deep"]),
  answer: z.string(),
  citations: z.array(HitSchema),
  provider_data: ProviderDataSchema,
  status: z.enum(["completed", "in_progress"]).optional().describe(
    "`in_progress`: a long-running answer is not finished; call again with `interaction_id`",
  ),
  interaction_id: z.string().optional().describe("Resumes a long-running answer"),
  notices: NoticesSchema,
});

/** Output of the contents role. */
export const RoleContentsOutput = z.object({
  ...RoleMetaShape,
  pages: z.array(PageSchema),
  provider_data: ProviderDataSchema,
});

/** Output of a provider's own search-kind tool. */
export const ProviderSearchOutput = z.object({
  provider: z.string(),
  results: z.array(HitSchema),
  notices: NoticesSchema,
});

/** Output of a provider's own answer-kind tool. */
export const ProviderAnswerOutput = z.object({
  provider: z.string(),
  answer: z.string(),
  citations: z.array(HitSchema),
  provider_data: ProviderDataSchema,
  status: z.enum(["completed", "in_progress"]).optional().describe(
    "`in_progress`: a long-running answer is not finished; call again with `interaction_id`",
  ),
  interaction_id: z.string().optional().describe("Resumes a long-running answer"),
});

/** Output of a provider's own contents-kind tool. */
export const ProviderContentsOutput = z.object({
  provider: z.string(),
  pages: z.array(PageSchema),
  provider_data: ProviderDataSchema,
  notices: NoticesSchema,
});

/** A cited source of one field of a run's output. */
const RunCitationSchema = z.object({
  url: z.string(),
  title: z.string().optional(),
  excerpts: z.array(z.string()).optional(),
});

/** Why one field of a run's output says what it says. */
const RunBasisSchema = z.object({
  field: z.string(),
  reasoning: z.string(),
  confidence: z.string().optional(),
  citations: z.array(RunCitationSchema),
});

/** One item of a batch run (a row enriched, an entity found). */
const RunItemSchema = z.object({
  input: z.unknown().optional().describe("What the item was asked with"),
  name: z.string().optional(),
  url: z.string().optional(),
  status: z.string().describe("The upstream status of the item"),
  content: z.unknown().optional().describe("The item's output"),
  basis: z.array(RunBasisSchema).optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

/** Output of a provider's own long-running run tool (research, enrichment, dataset) and its status tool. */
export const ProviderRunOutput = z.object({
  provider: z.string(),
  status: z.enum(["completed", "in_progress"]).describe(
    "`in_progress`: the run is not finished; call the status tool with `run_id`",
  ),
  run_id: z.string().describe("The run's id, for the status tool"),
  run_status: z.string().describe("The provider's own status word (queued, running, completed, …)"),
  content: z.unknown().optional().describe("The output of a single run (text or a JSON object)"),
  items: z.array(RunItemSchema).optional().describe("The items of a batch run"),
  basis: z.array(RunBasisSchema).optional().describe("Sources and reasoning per output field"),
  citations: z.array(HitSchema),
  provider_data: ProviderDataSchema,
  notices: NoticesSchema,
});

/** Compact text of a content value (text as it is, JSON indented). */
function contentText(content: unknown): string {
  return typeof content === "string" ? content : JSON.stringify(content, null, 2);
}

/**
 * Compact text of a long-running run for a model: the way to resume it, or
 * its output (items one by one) with numbered sources.
 *
 * @example
 * ```ts
 * import { renderRun } from "./role_schemas.ts";
 * const text = renderRun({ status: "in_progress", run_id: "trun_1", run_status: "running", citations: [] }, "parallel_research_status");
 * console.assert(text.includes("parallel_research_status") && text.includes("trun_1"));
 * ```
 */
export function renderRun(
  out: z.output<typeof ProviderRunOutput> | Omit<z.output<typeof ProviderRunOutput>, "provider">,
  statusTool: string,
): string {
  if (out.status === "in_progress") {
    return `in progress (${out.run_status}): call ${statusTool} with run_id ${out.run_id} for the result`;
  }
  const parts: string[] = [];
  if (out.content !== undefined) parts.push(contentText(out.content));
  for (const [i, item] of (out.items ?? []).entries()) {
    const head = `## ${i + 1}. ${
      item.name ?? (item.input !== undefined ? JSON.stringify(item.input) : "")
    }${item.url ? ` ${item.url}` : ""} (${item.status})`;
    parts.push(
      item.error
        ? `${head}\nerror ${item.error.code}: ${item.error.message}`
        : `${head}${item.content !== undefined ? `\n${contentText(item.content)}` : ""}`,
    );
  }
  const sources = out.citations.map((c, i) => `[${i + 1}] ${c.title} ${c.url}`);
  if (sources.length > 0) parts.push(`Sources:\n${sources.join("\n")}`);
  return parts.join("\n\n") || "(no output)";
}

/** Compact text of hits for a model. */
export function renderHits(results: z.output<typeof HitSchema>[]): string {
  if (results.length === 0) return "(no results)";
  return results.map((r, i) =>
    `${i + 1}. ${r.title}\n   ${r.url}${
      r.published ? ` (${r.published.slice(0, 10)})` : ""
    }\n   ${r.snippet}`
  ).join("\n");
}

/** Compact text of pages for a model. */
export function renderPages(pages: z.output<typeof PageSchema>[]): string {
  return pages.map((p) =>
    p.error
      ? `# ${p.url}\nerror ${p.error.code}: ${p.error.message}`
      : `# ${p.title || p.url}\n${p.url}\n\n${p.content}`
  ).join("\n\n");
}

/**
 * Compact text of an answer with numbered citations; an `in_progress` answer
 * says which input field (`resumeWith`) resumes it.
 */
export function renderAnswer(
  out: {
    answer: string;
    citations: z.output<typeof HitSchema>[];
    status?: string;
    interaction_id?: string;
  },
  resumeWith = "interaction_id",
): string {
  if (out.status === "in_progress") {
    return resumeWith === "interaction_id"
      ? `in progress: the research is still running; call again with interaction_id ${out.interaction_id} to resume`
      : `in progress: the run is still going; call again with ${resumeWith} ${out.interaction_id} to resume`;
  }
  const sources = out.citations.map((c, i) => `[${i + 1}] ${c.title} ${c.url}`);
  return sources.length > 0 ? `${out.answer}\n\nSources:\n${sources.join("\n")}` : out.answer;
}

/** The line naming who answered, and who failed first. */
export function renderRoute(
  out: {
    provider: string;
    fallback_from: z.output<typeof FallbackSchema>[];
    cached?: boolean;
    notices?: string[];
  },
): string {
  const failed = out.fallback_from.map((f) =>
    `${f.provider}: ${f.skipped ? "cooling down" : f.code}`
  );
  const route = `(via ${out.provider}${out.cached ? ", cached" : ""}${
    failed.length ? `; fell back from ${failed.join(", ")}` : ""
  })`;
  return [route, ...noteLines(out.notices)].join("\n");
}

/** One `note: …` line per notice of an answer (none when there are none). */
export function noteLines(notices: readonly string[] | undefined): string[] {
  return (notices ?? []).map((n) => `note: ${n}`);
}
