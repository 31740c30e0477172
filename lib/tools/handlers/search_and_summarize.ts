/**
 * Runs `search_and_summarize`: `research`, then one request to the language
 * model with the question, the top `fetch_count` pages research read, whole
 * (from the page cache: no new request), and the evidence passages (numbered,
 * with their URLs). Loaded on the tool's first call.
 *
 * @module
 */
import type { z } from "zod";
import { GleanerError, toGleanerError } from "../../errors.ts";
import { getGleanerLogger } from "../../log.ts";
import { llmFromConfig, visibleText } from "../../search/llm.ts";
import {
  type SearchAndSummarizeInput,
  type SearchAndSummarizeOutput,
  SUMMARIZE_PAGE_MAX_CHARS,
} from "../search_and_summarize_schemas.ts";
import type { ToolContext } from "../spec.ts";
import { research } from "../../evidence/research.ts";

const log = getGleanerLogger("tools", "summarize");

/** Longest summary kept (characters); `llm.summary_max_tokens` bounds it first. */
const MAX_SUMMARY_CHARS = 20_000;

const SYSTEM =
  "You summarize web evidence for a research assistant. Use only the pages and the numbered " +
  "passages given. Cite passages as [n] and pages as [Pn]. Say so when they do not answer the " +
  "question. Be brief; no preamble.";

/** The `search_and_summarize` handler. */
export async function searchAndSummarize(
  input: z.output<typeof SearchAndSummarizeInput>,
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
  const { fetch_count: fetchCount, ...researchInput } = input;
  const found = await research(researchInput, context);
  const whole = await readWhole(found.sources, fetchCount, context);
  const evidence = whole.length > 0 ? { ...found, read_whole: whole.map((p) => p.url) } : found;
  if (evidence.evidence.length === 0 && whole.length === 0) {
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
      prompt: [
        `Question: ${input.query}`,
        ...(whole.length > 0 ? ["Pages:", ...whole.map((p) => p.text)] : []),
        ...(passages.length > 0 ? ["Passages:", ...passages] : []),
      ].join("\n\n"),
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

/** A page given whole to the model. */
interface WholePage {
  /** Its URL. */
  url: string;
  /** `[Pn] title (url)` and its Markdown, cut at {@link SUMMARIZE_PAGE_MAX_CHARS}. */
  text: string;
}

/**
 * The first `count` pages research read, whole: read again through the reader, so they come
 * from the page cache research filled (a page that cannot be read is left out).
 */
async function readWhole(
  sources: readonly { url: string; title: string }[],
  count: number,
  context: ToolContext,
): Promise<WholePage[]> {
  const pages = await Promise.all(
    sources.slice(0, count).map(async ({ url, title }) => {
      try {
        const page = await context.gleaner.reader.read({ url, signal: context.signal });
        const cut = page.markdown.length > SUMMARIZE_PAGE_MAX_CHARS;
        const markdown = page.markdown.slice(0, SUMMARIZE_PAGE_MAX_CHARS) + (cut ? "\n[…cut]" : "");
        return { url, title: page.title || title, markdown };
      } catch (error) {
        if (context.signal?.aborted) throw error;
        log.debug("{url} not read whole for the summary: {error}", { url, error });
        return undefined;
      }
    }),
  );
  return pages.filter((p) => p !== undefined).map((p, i) => ({
    url: p.url,
    text: `[P${i + 1}] ${p.title} (${p.url})\n${p.markdown.trim()}`,
  }));
}
