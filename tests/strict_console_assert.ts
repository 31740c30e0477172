/**
 * Preloaded by `deno task test` (through `tests/preload.ts`): makes `console.assert` throw, so that the
 * `console.assert` lines of JSDoc examples (run by `--doc`) are assertions
 * that fail the suite, not messages that scroll by.
 *
 * @module
 */
// deno-lint-ignore no-console -- replacing console.assert is this file's whole purpose
console.assert = (condition?: boolean, ...data: unknown[]): void => {
  if (!condition) {
    throw new Error(`Assertion failed${data.length > 0 ? `: ${data.map(String).join(" ")}` : ""}`);
  }
};
