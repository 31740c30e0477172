/**
 * Linear-time matchers for crawl filters: globs and a regular-expression
 * subset run as a Thompson NFA (all states advanced together), so no pattern
 * can make a path take longer than `path length × pattern size` steps. The
 * JavaScript engine's backtracking regexes take exponential time on patterns
 * such as `(a+)+$`.
 *
 * The regular-expression subset: literal characters and escapes (`\.`,
 * `\/`, `\t`, `\n`, `\r`, `\uXXXX`, `\xXX`), `.`, classes (`[a-z_]`,
 * `[^/]`, `\d \D \w \W \s \S`), groups (`(...)`, `(?:...)`,
 * `(?<name>...)`, all only grouping), alternation `|`, quantifiers
 * `* + ? {n} {n,} {n,m}` (lazy forms accepted), anchors `^ $` and word
 * boundaries `\b \B`. Backreferences and lookarounds cannot run in linear
 * time and are refused, as are patterns longer than
 * {@link MAX_PATTERN_CHARS} or compiling to more than
 * {@link MAX_PROGRAM_SIZE} steps.
 *
 * @module
 */

/** Longest pattern accepted (characters). */
const MAX_PATTERN_CHARS = 200;

/** Largest compiled program (NFA states) accepted. */
const MAX_PROGRAM_SIZE = 4_000;

/** Why a pattern was refused. */
export class PatternError extends Error {}

type CharTest = (c: number) => boolean;

type Node =
  | { kind: "char"; test: CharTest }
  | { kind: "seq"; items: Node[] }
  | { kind: "alt"; options: Node[] }
  | { kind: "repeat"; item: Node; min: number; max: number }
  | { kind: "assert"; what: "start" | "end" | "word" | "notword" };

const isDigit: CharTest = (c) => c >= 48 && c <= 57;
const isWord: CharTest = (c) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isSpace: CharTest = (c) =>
  c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
const isLineEnd: CharTest = (c) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

const QUANTIFIER = /^\{(\d{1,4})(,(\d{0,4}))?\}/;

class Parser {
  pos = 0;
  constructor(readonly src: string) {}

  fail(what: string): never {
    throw new PatternError(`${what} at character ${this.pos + 1}`);
  }

  parse(): Node {
    const node = this.alternation();
    if (this.pos < this.src.length) this.fail("unbalanced )");
    return node;
  }

  alternation(): Node {
    const options = [this.sequence()];
    while (this.src[this.pos] === "|") {
      this.pos++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0] : { kind: "alt", options };
  }

  sequence(): Node {
    const items: Node[] = [];
    while (this.pos < this.src.length && this.src[this.pos] !== "|" && this.src[this.pos] !== ")") {
      items.push(this.quantified(this.atom()));
    }
    return { kind: "seq", items };
  }

  quantified(item: Node): Node {
    const ch = this.src[this.pos];
    let min: number;
    let max: number;
    if (ch === "*" || ch === "+" || ch === "?") {
      this.pos++;
      [min, max] = ch === "*" ? [0, Infinity] : ch === "+" ? [1, Infinity] : [0, 1];
    } else if (ch === "{" && QUANTIFIER.test(this.src.slice(this.pos))) {
      const m = QUANTIFIER.exec(this.src.slice(this.pos))!;
      this.pos += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      if (max < min) this.fail("quantifier range out of order");
    } else {
      return item;
    }
    if (item.kind === "assert") this.fail("quantifier on an anchor");
    if (this.src[this.pos] === "?") this.pos++; // lazy: same set of matches
    const after = this.src[this.pos];
    if (
      after === "*" || after === "+" || after === "?" || QUANTIFIER.test(this.src.slice(this.pos))
    ) {
      this.fail("nothing to repeat");
    }
    return { kind: "repeat", item, min, max };
  }

  atom(): Node {
    const ch = this.src[this.pos++];
    switch (ch) {
      case "(":
        return this.group();
      case "[":
        return { kind: "char", test: this.charClass() };
      case ".":
        return { kind: "char", test: (c) => !isLineEnd(c) };
      case "^":
        return { kind: "assert", what: "start" };
      case "$":
        return { kind: "assert", what: "end" };
      case "\\":
        return this.escape(false) as Node;
      case "*":
      case "+":
      case "?":
        this.pos--;
        return this.fail("nothing to repeat");
      case "{":
        if (QUANTIFIER.test(this.src.slice(this.pos - 1))) {
          this.pos--;
          this.fail("nothing to repeat");
        }
        return { kind: "char", test: (c) => c === 123 };
      default: {
        const code = ch.charCodeAt(0);
        return { kind: "char", test: (c) => c === code };
      }
    }
  }

  group(): Node {
    if (this.src.startsWith("?:", this.pos)) {
      this.pos += 2;
    } else if (/^\?<[A-Za-z_$][\w$]*>/.test(this.src.slice(this.pos))) {
      this.pos = this.src.indexOf(">", this.pos) + 1;
    } else if (this.src[this.pos] === "?") {
      this.fail("lookarounds and group flags are not supported");
    }
    const inner = this.alternation();
    if (this.src[this.pos] !== ")") this.fail("missing )");
    this.pos++;
    return inner;
  }

  /** An escape after `\`; in a class, `\b` is a backspace and assertions are refused. */
  escape(inClass: boolean): Node | CharTest {
    const ch = this.src[this.pos++];
    if (ch === undefined) this.fail("trailing \\");
    const simple = (test: CharTest) => inClass ? test : { kind: "char" as const, test };
    switch (ch) {
      case "d":
        return simple(isDigit);
      case "D":
        return simple((c) => !isDigit(c));
      case "w":
        return simple(isWord);
      case "W":
        return simple((c) => !isWord(c));
      case "s":
        return simple(isSpace);
      case "S":
        return simple((c) => !isSpace(c));
      case "b":
        return inClass ? (c) => c === 8 : { kind: "assert", what: "word" };
      case "B":
        if (inClass) this.fail("invalid escape \\B in a class");
        return { kind: "assert", what: "notword" };
      case "t":
        return simple((c) => c === 9);
      case "n":
        return simple((c) => c === 10);
      case "r":
        return simple((c) => c === 13);
      case "f":
        return simple((c) => c === 12);
      case "v":
        return simple((c) => c === 11);
      case "0":
        return simple((c) => c === 0);
      case "x":
      case "u": {
        const digits = ch === "x" ? 2 : 4;
        const hex = this.src.slice(this.pos, this.pos + digits);
        if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) this.fail(`invalid \\${ch} escape`);
        this.pos += digits;
        const code = parseInt(hex, 16);
        return simple((c) => c === code);
      }
      default:
        if (/[1-9k]/.test(ch)) this.fail("backreferences are not supported");
        if (/[A-Za-z]/.test(ch)) this.fail(`unknown escape \\${ch}`);
        return simple(((code) => (c: number) => c === code)(ch.charCodeAt(0)));
    }
  }

  charClass(): CharTest {
    const negate = this.src[this.pos] === "^";
    if (negate) this.pos++;
    const tests: CharTest[] = [];
    while (this.src[this.pos] !== "]") {
      if (this.pos >= this.src.length) this.fail("missing ]");
      const lo = this.classAtom();
      if (
        this.src[this.pos] === "-" && this.src[this.pos + 1] !== "]" &&
        this.pos + 1 < this.src.length && typeof lo === "number"
      ) {
        this.pos++;
        const hi = this.classAtom();
        if (typeof hi !== "number") this.fail("invalid class range");
        if (hi < lo) this.fail("class range out of order");
        tests.push((c) => c >= lo && c <= hi);
      } else {
        tests.push(typeof lo === "number" ? (c) => c === lo : lo);
      }
    }
    this.pos++;
    const any: CharTest = (c) => tests.some((t) => t(c));
    return negate ? (c) => !any(c) : any;
  }

  /** One class member: a code unit, or a test for `\d`-style escapes. */
  classAtom(): number | CharTest {
    const ch = this.src[this.pos++];
    if (ch !== "\\") return ch.charCodeAt(0);
    const next = this.src[this.pos];
    const codes: Record<string, number> = { t: 9, n: 10, r: 13, f: 12, v: 11, b: 8, "0": 0 };
    if (next !== undefined && next in codes) {
      this.pos++;
      return codes[next];
    }
    if (next === "x" || next === "u") {
      const test = this.escape(true) as CharTest;
      const hex = this.src.slice(this.pos - (next === "x" ? 2 : 4), this.pos);
      void test;
      return parseInt(hex, 16);
    }
    if (next !== undefined && !/[A-Za-z0-9]/.test(next)) {
      this.pos++;
      return next.charCodeAt(0);
    }
    return this.escape(true) as CharTest;
  }
}

/** One NFA instruction. */
type Inst =
  | { op: "char"; test: CharTest; next: number }
  | { op: "split"; a: number; b: number }
  | { op: "jmp"; to: number }
  | { op: "assert"; what: "start" | "end" | "word" | "notword"; next: number }
  | { op: "match" };

class Compiler {
  prog: Inst[] = [];

  emit(inst: Inst): number {
    if (this.prog.length >= MAX_PROGRAM_SIZE) {
      throw new PatternError(
        `too complex (over ${MAX_PROGRAM_SIZE} steps once repeats are expanded)`,
      );
    }
    this.prog.push(inst);
    return this.prog.length - 1;
  }

  /** Compiles `node` so it continues at the returned patch list's targets. */
  compile(node: Node): void {
    switch (node.kind) {
      case "char": {
        const at = this.emit({ op: "char", test: node.test, next: -1 });
        (this.prog[at] as { next: number }).next = at + 1;
        return;
      }
      case "assert": {
        const at = this.emit({ op: "assert", what: node.what, next: -1 });
        (this.prog[at] as { next: number }).next = at + 1;
        return;
      }
      case "seq":
        for (const item of node.items) this.compile(item);
        return;
      case "alt": {
        const jumps: number[] = [];
        for (let i = 0; i < node.options.length; i++) {
          if (i < node.options.length - 1) {
            const split = this.emit({ op: "split", a: -1, b: -1 });
            (this.prog[split] as { a: number }).a = split + 1;
            this.compile(node.options[i]);
            jumps.push(this.emit({ op: "jmp", to: -1 }));
            (this.prog[split] as { b: number }).b = this.prog.length;
          } else {
            this.compile(node.options[i]);
          }
        }
        for (const j of jumps) (this.prog[j] as { to: number }).to = this.prog.length;
        return;
      }
      case "repeat": {
        for (let i = 0; i < node.min; i++) this.compile(node.item);
        if (node.max === Infinity) {
          const split = this.emit({ op: "split", a: -1, b: -1 });
          (this.prog[split] as { a: number }).a = split + 1;
          this.compile(node.item);
          this.emit({ op: "jmp", to: split });
          (this.prog[split] as { b: number }).b = this.prog.length;
          return;
        }
        const splits: number[] = [];
        for (let i = node.min; i < node.max; i++) {
          const split = this.emit({ op: "split", a: -1, b: -1 });
          (this.prog[split] as { a: number }).a = split + 1;
          splits.push(split);
          this.compile(node.item);
        }
        for (const s of splits) (this.prog[s] as { b: number }).b = this.prog.length;
        return;
      }
    }
  }
}

/** A compiled linear-time matcher: true when the pattern matches somewhere in `text`. */
export type LinearMatcher = (text: string) => boolean;

/**
 * Compiles a regular expression of the supported subset (see the module
 * notes) into a matcher that searches `text` in linear time, as
 * `RegExp.prototype.test` would. Throws {@link PatternError} for anything
 * outside the subset.
 *
 * @example
 * ```ts
 * import { compileLinearRegex } from "./linear_match.ts";
 * const match = compileLinearRegex("^/v\\d+/(docs|api)/");
 * console.assert(match("/v2/api/x") && !match("/docs/v2/api/"));
 * console.assert(!compileLinearRegex("(a+)+$")("a".repeat(40) + "!"));
 * ```
 */
export function compileLinearRegex(source: string): LinearMatcher {
  if (source.length > MAX_PATTERN_CHARS) {
    throw new PatternError(`longer than ${MAX_PATTERN_CHARS} characters`);
  }
  const ast = new Parser(source).parse();
  const compiler = new Compiler();
  compiler.compile(ast);
  compiler.emit({ op: "match" });
  const prog = compiler.prog;
  const size = prog.length;
  return (text) => {
    let current = new Int32Array(size);
    let next = new Int32Array(size);
    let currentLen = 0;
    let nextLen = 0;
    const seen = new Int32Array(size).fill(-1);
    let matched = false;
    const wordAt = (i: number) => i >= 0 && i < text.length && isWord(text.charCodeAt(i));
    // Adds `pc` and everything reachable without reading a character, at position `i`.
    const add = (list: Int32Array, len: number, pc: number, i: number, stamp: number): number => {
      const stack = [pc];
      while (stack.length) {
        const at = stack.pop()!;
        if (seen[at] === stamp) continue;
        seen[at] = stamp;
        const inst = prog[at];
        switch (inst.op) {
          case "jmp":
            stack.push(inst.to);
            break;
          case "split":
            stack.push(inst.b, inst.a);
            break;
          case "assert": {
            const ok = inst.what === "start"
              ? i === 0
              : inst.what === "end"
              ? i === text.length
              : (wordAt(i - 1) !== wordAt(i)) === (inst.what === "word");
            if (ok) stack.push(inst.next);
            break;
          }
          case "match":
            matched = true;
            break;
          default:
            list[len++] = at;
        }
      }
      return len;
    };
    for (let i = 0; i <= text.length; i++) {
      // Unanchored search: a new thread may start at every position.
      currentLen = add(current, currentLen, 0, i, i);
      if (matched) return true;
      if (i === text.length) break;
      const c = text.charCodeAt(i);
      nextLen = 0;
      for (let k = 0; k < currentLen; k++) {
        const inst = prog[current[k]] as { op: "char"; test: CharTest; next: number };
        if (inst.test(c)) nextLen = add(next, nextLen, inst.next, i + 1, i + 1);
      }
      if (matched) return true;
      [current, next] = [next, current];
      currentLen = nextLen;
    }
    return matched;
  };
}

type GlobToken = { kind: "char"; code: number } | { kind: "one" } | { kind: "star" } | {
  kind: "globstar";
};

/**
 * Compiles a glob into a linear-time matcher of a whole string: `*` any
 * characters but `/`, `**` anything, `?` one character but `/`; everything
 * else literal.
 *
 * @example
 * ```ts
 * import { compileLinearGlob } from "./linear_match.ts";
 * console.assert(compileLinearGlob("/blog/*")("/blog/post-1"));
 * console.assert(!compileLinearGlob("/blog/*")("/blog/2024/post"));
 * console.assert(compileLinearGlob("**\/*.html")("/a/b.html"));
 * ```
 */
export function compileLinearGlob(glob: string): LinearMatcher {
  if (glob.length > MAX_PATTERN_CHARS) {
    throw new PatternError(`longer than ${MAX_PATTERN_CHARS} characters`);
  }
  const tokens: GlobToken[] = [];
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === "*") {
      const globstar = glob[i + 1] === "*";
      if (globstar) { while (glob[i + 1] === "*") i++; }
      const kind = globstar ? "globstar" : "star";
      // `***`, `*` after `**`: one token does.
      const last = tokens[tokens.length - 1];
      if (last?.kind === "globstar") continue;
      if (last?.kind === "star" && kind === "star") continue;
      if (last?.kind === "star") tokens.pop();
      tokens.push({ kind });
    } else if (glob[i] === "?") {
      tokens.push({ kind: "one" });
    } else {
      tokens.push({ kind: "char", code: glob.charCodeAt(i) });
    }
  }
  const n = tokens.length;
  return (text) => {
    // states[k] = 1 when the first k tokens can have consumed the text so far.
    let states = new Uint8Array(n + 1);
    let next = new Uint8Array(n + 1);
    const close = (s: Uint8Array) => {
      for (let k = 0; k < n; k++) {
        if (s[k] && (tokens[k].kind === "star" || tokens[k].kind === "globstar")) s[k + 1] = 1;
      }
    };
    states[0] = 1;
    close(states);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      next.fill(0);
      let any = false;
      for (let k = 0; k < n; k++) {
        if (!states[k]) continue;
        const t = tokens[k];
        if (t.kind === "globstar" || (t.kind === "star" && c !== 47)) {
          next[k] = 1;
          any = true;
        } else if ((t.kind === "one" && c !== 47) || (t.kind === "char" && t.code === c)) {
          next[k + 1] = 1;
          any = true;
        }
      }
      if (!any) return false;
      close(next);
      [states, next] = [next, states];
    }
    return states[n] === 1;
  };
}
