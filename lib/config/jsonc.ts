/**
 * The config file's syntax: JSON with comments (`// …` to the end of the line, `/* … *\/`), as
 * in `gleaner.example.jsonc`. Comments are blanked with spaces (line breaks kept), so a JSON
 * syntax error still points at the right line and column. A trailing comma stays an error.
 * No imports: the launcher reads the file with it before any package loads.
 *
 * @module
 */

/**
 * The text with comments turned into spaces (strings untouched).
 *
 * @example
 * ```ts
 * import { stripJsonComments } from "./jsonc.ts";
 * const text = stripJsonComments('{\n  // the port\n  "port": 1 /* "x" *\/\n}');
 * console.assert(JSON.parse(text).port === 1);
 * console.assert(text.split("\n").length === 4, "line breaks kept");
 * ```
 */
export function stripJsonComments(text: string): string {
  const out = text.split("");
  let i = 0;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n" && out[k] !== "\r") out[k] = " ";
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i++;
    } else if (c === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end === -1 ? text.length : end + 2;
      blank(i, stop);
      i = stop;
    } else {
      i++;
    }
  }
  return out.join("");
}

/**
 * Parses a config file's text (JSON with comments).
 *
 * @throws {SyntaxError} as `JSON.parse` does, at the same position.
 *
 * @example
 * ```ts
 * import { parseConfigText } from "./jsonc.ts";
 * console.assert((parseConfigText('{"server": {"port": 9000} // comment\n}') as {
 *   server: { port: number };
 * }).server.port === 9000);
 * ```
 */
export function parseConfigText(text: string): unknown {
  return JSON.parse(stripJsonComments(text));
}
