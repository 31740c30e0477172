/**
 * Runs `search_and_summarize`: `research`, then one request to the language
 * model with the question and the evidence passages (numbered, with their
 * URLs). Loaded on the tool's first call.
 *
 * @module
 */
import type { z } from "zod";
import { GleanerError, toGleanerError } from "../../errors.ts";
import { getGleanerLogger } from "../../log.ts";
import { llmFromConfig, visibleText } from "../../search/llm.ts";
import type { ResearchInput } from "../research_schemas.ts";
import type { SearchAndSummarizeOutput } from "../search_and_summarize_schemas.ts";
import type { ToolContext } from "../spec.ts";
import { research } from "../../evidence/research.ts";

const log = getGleanerLogger("tools", "summarize");

/** Longest summary kept (characters); `llm.summary_max_tokens` bounds it first. */
const MAX_SUMMARY_CHARS = 20_000;

const SYSTEM =
  "You summarize web evidence for a research assistant. Use only the numbered passages given. " +
  "Cite them as [n]. Say so when they do not answer the question. Be brief; no preamble.";

/** The `search_and_summarize` handler. */
export async function searchAndSummarize(
  input: z.output<typeof ResearchInput>,
  context: ToolContext,
): Promise<z.output<typeof SearchAndSummarizeOutput>> {
  const { gleaner, signal } = context;
  const llm = llmFromConfig(gleaner.config, gleaner.fetcher);
  if (!llm) {
    throw new GleanerError(
      "invalid_arguments",
      "search_and_summarize: needs a language model (set llm.url and llm.model)",
      { details: { field: "llm.url" } },
    );
  }
  const evidence = await research(input, context);
  if (evidence.evidence.length === 0) {
    return {
      ...evidence,
      summary_error: { code: "not_found", message: "no passage matched: nothing to summarize" },
    };
  }
  const passages = evidence.evidence.map((e, i) =>
    `[${i + 1}] ${e.title} (${e.url})\n${e.text.trim()}`
  );
  try {
    const text = await llm.complete({
      system: SYSTEM,
      prompt: `Question: ${input.query}\n\nPassages:\n\n${passages.join("\n\n")}`,
      maxTokens: gleaner.config.llm.summary_max_tokens,
      signal,
    });
    const summary = visibleText(text).trim().slice(
      0,
      MAX_SUMMARY_CHARS,
    );
    if (summary === "") {
      return {
        ...evidence,
        summary_error: { code: "provider_unavailable", message: "llm: the summary was empty" },
      };
    }
    return { ...evidence, summary: { text: summary, generated: true, model: llm.model } };
  } catch (error) {
    if (signal?.aborted) throw error;
    const failure = toGleanerError(error, "llm");
    log.warn("summary failed, answering with the evidence alone: {error}", {
      error: failure.message,
    });
    return { ...evidence, summary_error: { code: failure.code, message: failure.message } };
  }
}
