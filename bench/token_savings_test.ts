/**
 * The token-savings benchmark on two questions: every call answers over MCP, the tool text is
 * far smaller than the same pages as HTML and smaller than their whole Markdown, and the cost
 * line states its price.
 */
import assert from "node:assert/strict";
import { corpora } from "../testing/fixtures/corpora.ts";
import { runTokenSavingsBench } from "./token_savings.ts";

Deno.test({
  name: "bench token_savings: MCP tool text vs the same pages unfiltered, with a cost line",
  ignore: corpora.ignore,
  fn: async () => {
    corpora.assertPresent();
    const out = await runTokenSavingsBench({ questions: 2, usdPerMillion: 1 }) as {
      answered_calls: number;
      tokens_per_question: { tool_text: number; pages_html: number; pages_markdown: number };
      cost: { usd_per_million_input_tokens: number; usd_per_1000_questions: { tool_text: number } };
    };
    assert.equal(out.answered_calls, 2);
    const t = out.tokens_per_question;
    assert.ok(t.tool_text > 0);
    assert.ok(t.tool_text < t.pages_markdown, JSON.stringify(t));
    assert.ok(t.pages_markdown < t.pages_html, JSON.stringify(t));
    assert.equal(out.cost.usd_per_million_input_tokens, 1);
    assert.equal(
      out.cost.usd_per_1000_questions.tool_text,
      Math.round(t.tool_text * 100 / 1000) / 100,
    );
  },
});
