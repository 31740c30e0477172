/**
 * Output schemas of the provider layer's tools (role tools and providers' own
 * tools), shared so every tool of a kind answers in the same shape.
 *
 * @module
 */
import { z } from "zod";

/** Bounded provider-specific fields. */
export const ProviderDataSchema = z.record(z.string(), z.unknown()).optional().describe(
  "A few provider-specific fields (score, author, …)",
);

/** One search result as every provider's answer is normalized to. */
export const HitSchema = z.object({
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
export const RoleAttemptSchema = z.object({
  backend: z.string(),
  outcome: z.enum(["ok", "empty", "blocked", "rate_limited", "unavailable", "invalid"]),
  ms: z.number(),
});

/** One page of a contents answer. */
export const PageSchema = z.object({
  url: z.string(),
  title: z.string(),
  content: z.string(),
  published: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  provider: z.string().optional().describe(
    "The provider that read this page, when not the one that answered",
  ),
  provider_data: ProviderDataSchema,
});

/** What every routed answer says about how it was obtained. */
const RoleMetaShape = {
  role: z.enum(["search", "answer", "contents"]),
  provider: z.string().describe("The provider that answered"),
  fallback_from: z.array(FallbackSchema).describe("Providers that failed first, with codes"),
  attempts: z.array(RoleAttemptSchema),
  notices: z.array(z.string()).optional().describe(
    "What the provider changed in the request to fit its documented limits",
  ),
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
});

/** Output of the contents role. */
export const RoleContentsOutput = z.object({
  ...RoleMetaShape,
  pages: z.array(PageSchema),
});

/** Output of a provider's own search-kind tool. */
export const ProviderSearchOutput = z.object({
  provider: z.string(),
  results: z.array(HitSchema),
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
});

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
