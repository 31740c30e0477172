import * as h from "../tests/fixtures/hostile.ts";
import { extractHtml } from "../lib/extract/mod.ts";
import { countTokens } from "../lib/rank/tokens.ts";
const which = Deno.args[0];
const bodies: Record<string, () => string> = {
  nested1000: () => h.nestedDivs(1000),
  nested200: () => h.nestedDivs(200),
  links100k: () => h.manyLinks(100_000),
  cjk: () => h.cjkRun(120_000),
  word: () => h.longWord(4_000_000),
  binary: () => new TextDecoder().decode(h.binaryBytes(2_000_000)),
  scripts: () => h.unclosedScripts(200_000),
  deep50k: () => h.nestedDivs(50_000),
  elements: () => `<html><body>${"<span>x</span>".repeat(400_000)}</body></html>`,
};
const html = bodies[which]();
const t = performance.now();
try {
  const page = extractHtml(html, "http://x.test/");
  const t2 = performance.now();
  const tokens = countTokens(page.markdown);
  console.log(
    which,
    "extract ms",
    Math.round(t2 - t),
    "tokens ms",
    Math.round(performance.now() - t2),
    "md",
    page.markdown.length,
    "links",
    page.links.length,
    "rss MB",
    Math.round(Deno.memoryUsage().rss / 1e6),
  );
} catch (e) {
  console.log(which, "error", String(e).slice(0, 200), Math.round(performance.now() - t));
}
