/**
 * What `deno task test` preloads into every test module: `console.assert`
 * that throws (`strict_console_assert.ts`) and folders of the tests' own in
 * place of the user's (`isolated_home.ts`).
 *
 * @module
 */
import "./strict_console_assert.ts";
import "./isolated_home.ts";
