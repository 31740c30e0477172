/**
 * Runs the token counting and chunking paths once, ahead of the first
 * page. V8 compiles regular expressions and string code apart for text of
 * one-byte and two-byte characters, so the first CJK page a server ranked
 * spent 15–20 ms more on its main thread than the next (`deno task bench
 * health`). Servers warm up once they are up (`Gleaner.warm`).
 *
 * @module
 */
import { chunkMarkdown } from "../text/chunk.ts";
import { pageInOrder } from "./select.ts";
import { countTokens, countTokensUpTo, tokenReach } from "../text/tokens.ts";

/** Samples of the kinds of text the paths are compiled for, one per step. */
function samples(): string[] {
  const latin = "The tide rises twice a day, because of the Moon's pull: see [tides](/t). ";
  const cjk = "潮汐は月の引力によって一日に二回満ち引きする。";
  const cyrillic = "Прилив бывает дважды в сутки. ";
  return [
    `# Tides\n\n${latin.repeat(30)}\n\n${"abcdefghij".repeat(60)}`,
    `# 潮汐\n\n${cjk.repeat(60)}${"漢字".repeat(400)}`,
    `${cyrillic.repeat(70)}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n${"😀".repeat(300)}`,
  ];
}

/**
 * Counts, cuts and chunks a few sample texts (Latin, CJK, Cyrillic, emoji,
 * long runs without spaces), one step per macrotask so that a request
 * arriving meanwhile waits for one step at most (about 100 ms in all on a
 * small VM, 15 ms at most per step).
 *
 * @example
 * ```ts
 * import { warmRanking } from "./warm.ts";
 * await warmRanking();
 * ```
 */
export async function warmRanking(): Promise<void> {
  const steps = [
    countTokens,
    (text: string) => tokenReach(text, 200),
    (text: string) => countTokensUpTo(text, 200),
    (text: string) => pageInOrder(text, 300),
    chunkMarkdown,
  ];
  for (const text of samples()) {
    for (const step of steps) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      step(text);
    }
  }
}
