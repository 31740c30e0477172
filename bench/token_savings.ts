/**
 * Token savings: what a model reads from Gleaner against the same pages unfiltered. For each
 * question of `bench/questions.json` (the first `--questions=N`, default 20), the fake search
 * upstream answers with the question's page and the next two pages of the real-world corpus,
 * served from loopback; the real MCP SDK client calls `research` over Streamable HTTP on a
 * real server, and the benchmark counts, with the project's tokenizer (o200k, `countTokens`):
 *
 * - `tool_text`: the tool result's text (`content[0].text`), what the model reads;
 * - `pages_html`: the same pages (the result's `sources`) as served, raw HTML: what an agent
 *   that fetched them itself would put in its context;
 * - `pages_markdown`: the same pages as whole Markdown (`page_tokens`): what a reader without
 *   passage selection would pass on.
 *
 * Costs are at a stated input price, `--usd-per-million=N` (default 3.00 USD per million
 * input tokens), per 1,000 questions. `answer_in_text` counts the questions whose expected
 * answer (its first eight words) is in the tool text. `deno task bench token_savings`, or
 * alone: `deno run -A bench/token_savings.ts`.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createGleaner } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import { countTokens } from "../lib/text/tokens.ts";
import { READABILITY_CORPUS } from "../testing/fixtures/corpora.ts";
import { normalizeText, startTestWorld } from "../testing/fixtures/world.ts";
import { pageNames } from "./pipeline.ts";

/** Options of {@link runTokenSavingsBench}. */
export interface TokenSavingsOptions {
  /** Questions asked (default 20). */
  questions?: number;
  /** Price of a million input tokens in USD (default 3.00). */
  usdPerMillion?: number;
}

/** The options given as `--questions=N --usd-per-million=N` arguments. */
export function tokenSavingsOptions(args: readonly string[] = Deno.args): TokenSavingsOptions {
  const value = (name: string) => {
    const arg = args.find((a) => a.startsWith(`--${name}=`));
    return arg === undefined ? undefined : Number(arg.slice(name.length + 3));
  };
  return { questions: value("questions"), usdPerMillion: value("usd-per-million") };
}

interface Question {
  id: string;
  page: string;
  question: string;
  answer: string;
}

function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Runs the benchmark. */
export async function runTokenSavingsBench(
  options: TokenSavingsOptions = {},
): Promise<Record<string, unknown>> {
  const usdPerMillion = options.usdPerMillion ?? 3;
  const all = JSON.parse(
    await Deno.readTextFile(new URL("./questions.json", import.meta.url)),
  ) as Question[];
  const questions = all.slice(0, options.questions ?? 20);
  const names = await pageNames();
  const world = await startTestWorld({ pagesDir: READABILITY_CORPUS });
  const gleaner = await createGleaner({ ...world.config, server: { port: 0 } });
  const server = serveHttp(gleaner);
  const client = new Client({ name: "token-savings-bench", version: "1.0.0" });
  const totals = { tool_text: 0, pages_html: 0, pages_markdown: 0 };
  const perQuestion: Record<string, unknown>[] = [];
  let answered = 0;
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)) as Transport,
    );
    for (const q of questions) {
      const at = names.indexOf(q.page);
      const pages = [0, 1, 2].map((k) => names[(at + k) % names.length]);
      world.fakes.setResults(pages.map((name) => ({
        url: world.web.url(`/pages/${name}`),
        title: `page ${name}`,
        snippet: "{query}",
      })));
      const result = await client.callTool({
        name: "research",
        arguments: { query: q.question, max_pages: 3, domains: ["127.0.0.1"] },
      }) as {
        content: { text: string }[];
        structuredContent?: { sources: { url: string }[]; page_tokens: number };
        isError?: boolean;
      };
      if (result.isError || !result.structuredContent) {
        perQuestion.push({ id: q.id, error: result.content[0]?.text });
        continue;
      }
      const text = result.content[0].text;
      const toolText = countTokens(text);
      let html = 0;
      for (const { url } of result.structuredContent.sources) {
        html += countTokens(await (await fetch(url)).text());
      }
      const markdown = result.structuredContent.page_tokens;
      const expected = normalizeText(q.answer).split(" ").slice(0, 8).join(" ");
      const found = normalizeText(text).includes(expected);
      if (found) answered++;
      totals.tool_text += toolText;
      totals.pages_html += html;
      totals.pages_markdown += markdown;
      perQuestion.push({
        id: q.id,
        tool_text: toolText,
        pages_html: html,
        pages_markdown: markdown,
        answer_in_text: found,
      });
    }
  } finally {
    await client.close();
    await server.shutdown();
    await gleaner.close();
    await world.close();
  }
  const asked = perQuestion.filter((q) => !("error" in q)).length;
  const usdPer1000 = (tokens: number) => round((tokens / asked) * 1000 * usdPerMillion / 1e6);
  return {
    questions: questions.length,
    answered_calls: asked,
    answer_in_text: answered,
    tokens_per_question: {
      tool_text: round(totals.tool_text / asked, 0),
      pages_html: round(totals.pages_html / asked, 0),
      pages_markdown: round(totals.pages_markdown / asked, 0),
    },
    saved_vs_html: round(1 - totals.tool_text / totals.pages_html, 3),
    saved_vs_markdown: round(1 - totals.tool_text / totals.pages_markdown, 3),
    cost: {
      usd_per_million_input_tokens: usdPerMillion,
      usd_per_1000_questions: {
        tool_text: usdPer1000(totals.tool_text),
        pages_html: usdPer1000(totals.pages_html),
        pages_markdown: usdPer1000(totals.pages_markdown),
      },
    },
    per_question: perQuestion,
  };
}

if (import.meta.main) {
  const text = JSON.stringify(await runTokenSavingsBench(tokenSavingsOptions()), null, 2) + "\n";
  Deno.stdout.writeSync(new TextEncoder().encode(text));
}
