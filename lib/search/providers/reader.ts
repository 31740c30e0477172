/**
 * Gleaner's own reader as a `contents` provider (`gleaner`): always there,
 * so a URL can be read even when no contents provider is configured. It reads
 * through the page cascade (cache, GitHub, llms.txt, HTTP, browser, …).
 *
 * @module
 */
import { toGleanerError } from "../../errors.ts";
import type { Provider, ProviderContents, ProviderPage } from "./types.ts";

/** The provider's name. */
export const GLEANER_READER = "gleaner";

/** Reads one page the way the cascade does. */
export type ReadPage = (
  url: string,
  signal?: AbortSignal,
  selectors?: { targetSelector?: string; waitForSelector?: string },
) => Promise<{ title: string; markdown: string; published?: string }>;

/**
 * Creates the reader provider over a page reader.
 *
 * @example
 * ```ts
 * import { createReaderProvider } from "./reader.ts";
 * const reader = createReaderProvider(() => Promise.resolve({ title: "T", markdown: "body" }));
 * console.assert(reader.name === "gleaner" && reader.roles[0] === "contents");
 * ```
 */
export function createReaderProvider(read: ReadPage): Provider {
  return {
    name: GLEANER_READER,
    title: "Gleaner reader",
    // It reads through the caller's own reader: a tenant's cascade and page cache.
    scope: "tenant",
    roles: ["contents"],
    configHint: "(always available)",
    isConfigured: () => true,
    async contents(req, env): Promise<ProviderContents> {
      const pages = await Promise.all(req.urls.map(async (url): Promise<ProviderPage> => {
        try {
          const page = await read(url, env.signal, {
            targetSelector: req.targetSelector,
            waitForSelector: req.waitForSelector,
          });
          return {
            url,
            title: page.title,
            content: page.markdown,
            ...(page.published ? { published: page.published } : {}),
          };
        } catch (error) {
          const failure = toGleanerError(error, `reading ${url}`);
          return {
            url,
            title: "",
            content: "",
            error: { code: failure.code, message: failure.message },
          };
        }
      }));
      return { pages };
    },
    tools: [],
  };
}
