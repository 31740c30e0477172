/**
 * What every contents provider shares: URLs pass Gleaner's network policy
 * before they are sent ({@link readScreened}), and the loop of providers
 * whose contents endpoint takes a single URL (Jina reader, Keenable fetch).
 *
 * @module
 */
import { GleanerError, toGleanerError } from "../../errors.ts";
import { screenUrl } from "../../net/screen.ts";
import type { ProviderContents, ProviderPage, ProviderSlice } from "./types.ts";

/** A page that could not be read, in the contents shape. */
export function failedPage(url: string, error: GleanerError): ProviderPage {
  return { url, title: "", content: "", error: { code: error.code, message: error.message } };
}

/**
 * Reads `urls` with a provider's batch reader after {@link screenUrl}: only
 * the URLs the network policy allows are sent (normalised, each once); a
 * refused URL gets its own `blocked_url` (or `invalid_arguments`) entry and
 * never reaches the provider, so one bad URL never sinks the batch. Pages
 * come back in the order asked, each under the URL as asked. When no URL may
 * be sent, the provider is not called.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/parse.ts";
 * import { readScreened } from "./pages.ts";
 * const config = parseConfig({});
 * const sent: string[][] = [];
 * const out = await readScreened(["https://a.example/1", "http://127.0.0.1/"], config, (urls) => {
 *   sent.push(urls);
 *   return Promise.resolve({ pages: urls.map((url) => ({ url, title: "", content: "text" })) });
 * });
 * console.assert(sent[0].length === 1 && out.pages[1].error?.code === "blocked_url");
 * ```
 */
export async function readScreened(
  urls: readonly string[],
  config: Pick<ProviderSlice, "network">,
  read: (targets: string[]) => Promise<ProviderContents>,
): Promise<ProviderContents> {
  const screened = urls.map((raw): { raw: string; target?: string; error?: GleanerError } => {
    try {
      return { raw, target: screenUrl(raw, config.network) };
    } catch (error) {
      return { raw, error: toGleanerError(error, "urls") };
    }
  });
  const targets = [...new Set(screened.flatMap((s) => (s.target ? [s.target] : [])))];
  const got = targets.length > 0 ? await read(targets) : { pages: [] };
  const byTarget = new Map(got.pages.map((page) => [page.url, page]));
  return {
    pages: screened.map((s): ProviderPage => {
      if (s.error || !s.target) {
        return failedPage(s.raw, s.error ?? new GleanerError("invalid_arguments", "urls: refused"));
      }
      const page = byTarget.get(s.target);
      if (!page) {
        return failedPage(
          s.raw,
          new GleanerError("provider_unavailable", `no page came back for ${s.target}`),
        );
      }
      return { ...page, url: s.raw };
    }),
  };
}

/**
 * Reads every URL the network policy allows ({@link readScreened}) with
 * `readOne` (all at once: at most ten). A URL that fails gets an `error`
 * entry; when every URL sent failed, the first failure is thrown instead, so
 * the router can classify it (and ask the next provider when the provider is
 * out of credit, rate limited or down).
 */
export function readEach(
  urls: readonly string[],
  config: Pick<ProviderSlice, "network">,
  readOne: (url: string) => Promise<ProviderPage>,
): Promise<ProviderContents> {
  return readScreened(urls, config, (targets) => readAll(targets, readOne));
}

/** {@link readEach} after screening. */
async function readAll(
  urls: string[],
  readOne: (url: string) => Promise<ProviderPage>,
): Promise<ProviderContents> {
  const settled = await Promise.allSettled(urls.map((url) => readOne(url)));
  const failures = settled.flatMap((s) => (s.status === "rejected" ? [s.reason] : []));
  if (failures.length === urls.length && failures.length > 0) throw failures[0];
  return {
    pages: settled.map((s, i): ProviderPage =>
      s.status === "fulfilled" ? s.value : failedPage(urls[i], toGleanerError(s.reason))
    ),
  };
}

/** Throws when a single-URL reader got a 2xx without any content. */
export function requireContent(provider: string, url: string, content: string): void {
  if (content.trim() === "") {
    throw new GleanerError("unsupported_content", `${provider}: no content for ${url}`);
  }
}
