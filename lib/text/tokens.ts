/**
 * Token counting with the o200k_base encoding (gpt-tokenizer): budgets are
 * counted on the exact text the model receives.
 *
 * Byte-pair encoding costs grow with the square of a pre-token's length, so
 * one unbroken run (120 KB of Chinese, a 5 MB "word") would block the event
 * loop for seconds to hours. Text is therefore counted in pieces of at most
 * {@link TOKEN_PIECE_CHARS} characters, cut where o200k's own pre-tokenizer
 * always cuts (before a space or tab after a non-space, after a line break
 * before a letter or digit, between a letter or digit and punctuation), so
 * the count of ordinary text is exactly the count of the whole. A run longer
 * than {@link TOKEN_RUN_CHARS} characters without such a place is cut into
 * pieces of 64 characters, from its start: the cost stays linear, no piece
 * costs more than a fraction of a millisecond, and the count of that run is
 * off by at most a token or two per cut.
 *
 * @module
 */
import { GptEncoding } from "gpt-tokenizer/GptEncoding";
import o200kRanks from "gpt-tokenizer/bpeRanks/o200k_base";
import { runPaced, runSteps, type Steps } from "../async/pace.ts";

// Special-token strings found in page text ("<|endoftext|>") are counted as
// ordinary text instead of throwing.
const OPTIONS = { disallowedSpecial: new Set<string>() };

/**
 * The o200k_base encoder, built on the first count: building its tables takes
 * a quarter of a second or more, which a process that never counts a token
 * (`tools/list`, `--help`, most spawned tests) does not pay. The same encoder
 * as `gpt-tokenizer/encoding/o200k_base` builds at import, so counts are the same.
 */
let o200k: GptEncoding | undefined;

/** `text`'s o200k_base token count (the encoder is built on the first call). */
function countO200k(text: string, options: typeof OPTIONS): number {
  o200k ??= GptEncoding.getEncodingApi("o200k_base", () => o200kRanks);
  return o200k.countTokens(text, options);
}

/**
 * Whether the o200k encoder has been built in this process (a count has run).
 *
 * @internal exported for tests only
 */
export function o200kBuilt(): boolean {
  return o200k !== undefined;
}

/** Longest piece handed to the tokenizer at once (characters). */
export const TOKEN_PIECE_CHARS = 2048;

/**
 * Longest run without a pre-token boundary counted whole; longer runs are cut at this size.
 *
 * @internal exported for tests only
 */
export const TOKEN_RUN_CHARS = 256;
/**
 * How far ahead the end of a run without boundaries is looked for at a time
 * (one regular-expression scan, which cannot pause: 65,536 characters of CJK
 * held the thread for 15 ms or more; where the run ends does not depend on it).
 */
const RUN_SCAN_CHARS = 8192;

/** Size of the cuts through a run without boundaries (short: byte-pair merging is quadratic). */
const HARD = 64;

/**
 * Places where o200k's pre-tokenizer always ends a pre-token, whatever comes
 * before or after (the match is the first character of the next piece):
 * a space or tab after a non-space; a letter or digit after a line break;
 * punctuation (not an apostrophe, which can start a contraction) after a
 * letter, mark or digit.
 */
const BOUNDARY =
  /(?<=\S)[^\S\r\n]|(?<=[\r\n])[\p{L}\p{N}]|(?<=[\p{L}\p{N}\p{M}])[^\p{L}\p{N}\p{M}\s']/gu;

/**
 * True when `text[at]` is the second half of a surrogate pair (a cut there
 * would split one character in two).
 *
 * @example
 * ```ts
 * import { isLowSurrogate } from "./tokens.ts";
 * console.assert(isLowSurrogate("😀", 1) && !isLowSurrogate("😀", 0));
 * ```
 */
export function isLowSurrogate(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * A quick test that text holds no run longer than `chars` characters
 * without a boundary, for the common case: inside such a run a space or tab
 * only follows white space (else it would start a pre-token), so all of the
 * run but its last character is a stretch where no non-space character is
 * followed by a space or tab. Text where this pattern finds no such stretch
 * of `chars` characters needs no closer look.
 */
function maybeLongRun(chars: number): RegExp {
  // Anchored where such a stretch can start (the text's start, or a space or tab after a
  // non-space): unanchored, the search went on from every character, up to `chars` steps each.
  return new RegExp(`(?:^|(?<=\\S)(?=[^\\S\\r\\n]))(?:\\s|\\S(?![^\\S\\r\\n])){${chars}}`);
}

/** A piece of text to count: `[start, end)`. */
type Piece = [start: number, end: number];

/**
 * Yields `[start, end)`, except that every run longer than `tailChars`
 * characters without a boundary is cut every `hardChars` characters from its
 * start (never inside a surrogate pair); the rest of such a run goes with
 * what follows.
 */
function* splitLongRuns(
  text: string,
  start: number,
  end: number,
  tailChars: number,
  hardChars: number,
  re: RegExp,
  maybeLong: RegExp,
): Generator<Piece, void, void> {
  if (end - start <= tailChars || !maybeLong.test(text.slice(start, end))) {
    yield [start, end];
    return;
  }
  // One character more in front for the lookbehind; a boundary at `start` itself is no cut.
  const from = Math.max(0, start - 1);
  const window = text.slice(from, end);
  re.lastIndex = start - from + 1;
  let pieceStart = start;
  let runStart = start;
  for (;;) {
    const m = re.exec(window);
    if (m && isLowSurrogate(window, m.index)) continue;
    const at = m ? from + m.index : end;
    if (at - runStart > tailChars) {
      if (runStart > pieceStart) yield [pieceStart, runStart];
      let cut = runStart;
      while (at - cut > hardChars) {
        let next = cut + hardChars;
        if (isLowSurrogate(text, next)) next++;
        yield [cut, next];
        cut = next;
      }
      pieceStart = cut;
    }
    if (!m) break;
    runStart = at;
  }
  if (pieceStart < end) yield [pieceStart, end];
}

/**
 * Yields `[start, end)` for consecutive ranges covering `text`. Each
 * piece of at most `maxChars` characters ends at the last boundary within
 * its final `tailChars` characters; when there is none, the piece ends where
 * that stretch starts and the run without boundaries that follows is cut
 * every `tailChars` characters (never inside a surrogate pair). A run longer
 * than `tailChars` inside a piece is cut the same way ({@link splitLongRuns}):
 * merging a 2,048-character run of CJK whole took 47 ms. Each character is
 * looked at a bounded number of times.
 */
function* pieces(
  text: string,
  maxChars: number,
  tailChars: number,
): Generator<Piece, void, void> {
  const re = new RegExp(BOUNDARY.source, BOUNDARY.flags);
  const hardChars = Math.min(tailChars, HARD);
  const runs = new RegExp(BOUNDARY.source, BOUNDARY.flags);
  const maybeLong = maybeLongRun(tailChars);
  // A short piece is yielded as it is (what splitLongRuns would do), without a generator.
  const emit = (start: number, end: number): Iterable<Piece> =>
    end - start <= tailChars
      ? [[start, end]]
      : splitLongRuns(text, start, end, tailChars, hardChars, runs, maybeLong);
  let start = 0;
  // True while `start` is inside a run without boundaries whose end is not found yet.
  let inRun = false;
  while (text.length - start > maxChars) {
    let at = start;
    if (!inRun) {
      const limit = start + maxChars;
      // The tail is searched in a slice holding one character more for the lookbehind.
      const from = limit - tailChars - 1;
      const window = text.slice(from, limit + 1);
      let cut = -1;
      re.lastIndex = 1;
      for (let m = re.exec(window); m; m = re.exec(window)) {
        if (m.index >= 1 && !isLowSurrogate(window, m.index)) cut = from + m.index;
      }
      if (cut > start) {
        yield* emit(start, cut);
        start = cut;
        continue;
      }
      // A run without boundaries covers the tail: the piece ends where that run starts (the
      // last boundary before the tail), so the run is cut short like any other, and no piece
      // holds more than the tail of it (merging a 1,800-character run took 50 ms).
      const head = text.slice(start, from + 1);
      at = start;
      re.lastIndex = 1;
      for (let m = re.exec(head); m; m = re.exec(head)) {
        if (m.index >= 1 && !isLowSurrogate(head, m.index)) at = start + m.index;
      }
      if (at > start) yield* emit(start, at);
    }
    // Find where the run ends, looking at most RUN_SCAN_CHARS ahead at a time (a caller
    // that stops early never scans the whole run), and cut it hard up to there.
    const ahead = text.slice(at, at + RUN_SCAN_CHARS);
    let end = at + ahead.length;
    inRun = true;
    re.lastIndex = 1;
    for (let m = re.exec(ahead); m; m = re.exec(ahead)) {
      if (!isLowSurrogate(ahead, m.index)) {
        end = at + m.index;
        inRun = false;
        break;
      }
    }
    if (end >= text.length) inRun = false;
    while (end - at > hardChars) {
      let next = at + hardChars;
      if (isLowSurrogate(text, next)) next++;
      if (next - at <= tailChars) yield [at, next];
      else yield* emit(at, next);
      at = next;
    }
    start = at;
  }
  if (start < text.length) yield* emit(start, text.length);
}

/**
 * Splits `text` into the pieces {@link countTokens} counts one by one: at
 * most `maxChars` characters (one more to keep a surrogate pair), ending at
 * a pre-token boundary found in the last `tailChars` characters, or cut
 * every `tailChars` characters through a run without boundaries.
 *
 * @example
 * ```ts
 * import { tokenPieces } from "./tokens.ts";
 * console.assert(tokenPieces("one two three", 8, 6).join("|") === "one two| three");
 * console.assert(tokenPieces("x".repeat(14), 8, 4).join("|") === "xxxx|xxxx|xxxx|xx");
 * ```
 *
 * @internal exported for tests only
 */
export function tokenPieces(
  text: string,
  maxChars: number = TOKEN_PIECE_CHARS,
  tailChars: number = TOKEN_RUN_CHARS,
): string[] {
  const tail = Math.max(1, Math.min(Math.floor(tailChars), Math.floor(maxChars) - 1));
  const out: string[] = [];
  for (const [start, end] of pieces(text, Math.floor(maxChars), tail)) {
    out.push(text.slice(start, end));
  }
  return out;
}

/**
 * Number of o200k_base tokens in `text`, counted in bounded pieces so the
 * cost is linear in the length (see the module notes): exact for ordinary
 * text; a run longer than {@link TOKEN_RUN_CHARS} characters without a
 * pre-token boundary is counted in cuts of that size.
 *
 * @example
 * ```ts
 * import { countTokens } from "./tokens.ts";
 * console.assert(countTokens("") === 0);
 * console.assert(countTokens("Hello, world!") === 4);
 * ```
 */
export function countTokens(text: string): number {
  if (!text) return 0;
  if (text.length <= TOKEN_RUN_CHARS) return countO200k(text, OPTIONS);
  return runSteps(countSteps(text));
}

/**
 * Texts longer than this are counted in steps by {@link countTokensPaced};
 * shorter ones at once.
 */
const PACED_CHARS = 2048;

/**
 * The count of {@link countTokens}, a step per piece: a piece of CJK text
 * (cut every {@link TOKEN_RUN_CHARS} characters) costs about a millisecond,
 * but eight of them in one step held the thread for 30 ms (`deno task bench
 * health`).
 */
function* countSteps(text: string): Steps<number> {
  let total = 0;
  for (const [start, end] of pieces(text, TOKEN_PIECE_CHARS, TOKEN_RUN_CHARS)) {
    total += countO200k(text.slice(start, end), OPTIONS);
    yield;
  }
  return total;
}

/**
 * {@link countTokens} that pauses with the shared pacer (`async/pace.ts`)
 * every few pieces: the same count, while a server keeps answering.
 *
 * @example
 * ```ts
 * import { countTokens, countTokensPaced } from "./tokens.ts";
 * const text = "The tide rises twice a day. ".repeat(10_000);
 * console.assert(await countTokensPaced(text) === countTokens(text));
 * ```
 */
export async function countTokensPaced(text: string): Promise<number> {
  if (text.length <= PACED_CHARS) return countTokens(text);
  return await runPaced(countSteps(text));
}

/**
 * {@link countTokens} that stops once the count passes `limit`: the exact
 * count when it is at most `limit`, else some number above `limit`. Its cost
 * grows with `limit`, not with the text, so budget checks on huge pages stay
 * cheap.
 *
 * @example
 * ```ts
 * import { countTokens, countTokensUpTo } from "./tokens.ts";
 * const text = "word ".repeat(100_000);
 * console.assert(countTokensUpTo(text, 50) > 50);
 * console.assert(countTokensUpTo("Hello, world!", 50) === countTokens("Hello, world!"));
 * ```
 */
export function countTokensUpTo(text: string, limit: number): number {
  if (!text) return 0;
  if (text.length <= TOKEN_RUN_CHARS) return countO200k(text, OPTIONS);
  let total = 0;
  for (const [start, end] of pieces(text, TOKEN_PIECE_CHARS, TOKEN_RUN_CHARS)) {
    total += countO200k(text.slice(start, end), OPTIONS);
    if (total > limit) break;
  }
  return total;
}

/**
 * How many characters of `text` are enough to pass `limit` tokens: the end of
 * the piece where the running count first exceeds `limit` (`text.length` when
 * it never does). Prefixes longer than this hold more than `limit` tokens, so
 * a budget search need not look further.
 *
 * @example
 * ```ts
 * import { tokenReach } from "./tokens.ts";
 * const text = "word ".repeat(100_000);
 * console.assert(tokenReach(text, 100) < 5_000);
 * console.assert(tokenReach("short", 100) === 5);
 * ```
 */
export function tokenReach(text: string, limit: number): number {
  if (text.length <= TOKEN_PIECE_CHARS) return text.length;
  let total = 0;
  for (const [start, end] of pieces(text, TOKEN_PIECE_CHARS, TOKEN_RUN_CHARS)) {
    total += countO200k(text.slice(start, end), OPTIONS);
    if (total > limit) return end;
  }
  return text.length;
}
