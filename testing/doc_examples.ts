/**
 * The code examples of a module's JSDoc, found and made runnable the way
 * `deno test --doc` makes them: every fenced block in a `/** … *\/` comment
 * whose first attribute names TypeScript or JavaScript (a bare fence is
 * text, not code) and that is not marked `ignore`, with each line's leading
 * `*` (and a hidden-line `#`) removed.
 *
 * `tests/doc_examples_test.ts` runs every example of the repository as one
 * test each, all in one test module: `deno test --doc` starts a fresh
 * runtime for each of about 500 examples, which cost about a third of a CPU
 * second each before the example's own imports loaded. Their types are
 * checked by `deno check --doc-only` in `deno task check`.
 *
 * @example
 * ```ts
 * import { docExamples } from "./doc_examples.ts";
 * const fence = "`".repeat(3);
 * const source = ["/**", " * @example", ` * ${fence}ts`, " * console.assert(true);", ` * ${fence}`, " *" + "/"];
 * const [example] = docExamples(source.join("\n"));
 * console.assert(example.code === "console.assert(true);\n" && example.line === 3);
 * ```
 *
 * @module
 */

/** One runnable example of a JSDoc comment. */
export interface DocExample {
  /** 1-based line of the opening fence in the source file. */
  line: number;
  /** 1-based line of the closing fence. */
  endLine: number;
  /** The example's code, comment markers removed, one `\n` after each line. */
  code: string;
}

const COMMENT = /\/\*\*[\s\S]*?\*\//g;
const FENCE = /```([^\r\n]*)\r?\n([\s\S]*?)```/g;
const RUNNABLE = new Set(["ts", "typescript", "mts", "js", "javascript", "mjs", "tsx", "jsx"]);

/** Lines before `index` in `text`, plus one: the 1-based line of `index`. */
function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** A code line of a JSDoc block without its ` * ` marker and hidden-line `# `. */
function uncomment(line: string): string {
  return line.replace(/^\s*\* ?/, "").replace(/^# ?/, "");
}

/**
 * Every runnable example in the JSDoc comments of `source`, in order.
 *
 * @param source The text of a TypeScript or JavaScript module.
 * @returns The examples with their line ranges.
 */
export function docExamples(source: string): DocExample[] {
  const examples: DocExample[] = [];
  for (const comment of source.matchAll(COMMENT)) {
    for (const fence of comment[0].matchAll(FENCE)) {
      const attributes = fence[1].split(" ");
      if (attributes.includes("ignore") || !RUNNABLE.has(attributes[0])) continue;
      const line = lineAt(source, comment.index + fence.index);
      const lines = fence[2].split(/\r?\n/);
      lines.pop(); // the text before the closing fence, on its own line
      examples.push({
        line,
        endLine: line + lines.length + 1,
        code: lines.map((l) => `${uncomment(l)}\n`).join(""),
      });
    }
  }
  return examples;
}

const RELATIVE = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])(\.\.?\/[^"']*)\2/g;

/**
 * `code` with every relative module specifier (`"./x.ts"`, `"../y.ts"`) in
 * an `import`, `export … from` or `import()` made absolute against `base`,
 * so the example runs from any folder as it would beside its module.
 *
 * @param code An example's code.
 * @param base The URL of the module whose comment holds the example.
 * @returns The code with absolute `file:` specifiers.
 */
export function anchorSpecifiers(code: string, base: URL): string {
  return code.replace(
    RELATIVE,
    (_, lead: string, quote: string, path: string) =>
      `${lead}${quote}${new URL(path, base).href}${quote}`,
  );
}
