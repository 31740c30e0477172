/**
 * The page helpers of `pages.ts` (screened reads) and the URL screening of
 * `../../net/screen.ts`, loaded on a provider's first read: they bring the
 * network policy's address checks (`ipaddr.js`, `node:dns`), which listing
 * the tools does not need.
 *
 * @module
 */

/**
 * Loads `pages.ts` (once: the runtime keeps the module).
 *
 * @example
 * ```ts ignore
 * import { loadPages } from "./pages_lazy.ts";
 * const { readScreened } = await loadPages();
 * ```
 */
export function loadPages(): Promise<typeof import("./pages.ts")> {
  return import("./pages.ts");
}

/**
 * Loads the URL screening (once: the runtime keeps the module).
 *
 * @example
 * ```ts ignore
 * import { loadScreen } from "./pages_lazy.ts";
 * const { screenUrl } = await loadScreen();
 * ```
 */
export function loadScreen(): Promise<typeof import("../../net/screen.ts")> {
  return import("../../net/screen.ts");
}
