/**
 * The page helpers of `pages.ts` (URL screening, screened reads), loaded on a
 * provider's first read: they bring the network policy's address checks
 * (`ipaddr.js`, `node:dns`), which listing the tools does not need.
 *
 * @module
 */

/**
 * Loads `pages.ts` (once: the runtime keeps the module).
 *
 * @example
 * ```ts ignore
 * import { loadPages } from "./pages_lazy.ts";
 * const { screenUrl } = await loadPages();
 * ```
 */
export function loadPages(): Promise<typeof import("./pages.ts")> {
  return import("./pages.ts");
}
