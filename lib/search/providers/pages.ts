/**
 * Reading several URLs one call each: the shared loop of providers whose
 * contents endpoint takes a single URL (Jina reader, Keenable fetch).
 *
 * @module
 */
import { GleanerError, toGleanerError } from "../../errors.ts";
import type { ProviderContents, ProviderPage } from "./types.ts";

/**
 * Reads every URL with `readOne` (all at once: at most ten). A URL that fails
 * gets an `error` entry; when every URL failed, the first failure is thrown
 * instead, so the router can classify it (and ask the next provider when the
 * provider is out of credit, rate limited or down).
 */
export async function readEach(
  urls: string[],
  readOne: (url: string) => Promise<ProviderPage>,
): Promise<ProviderContents> {
  const settled = await Promise.allSettled(urls.map((url) => readOne(url)));
  const failures = settled.flatMap((s) => (s.status === "rejected" ? [s.reason] : []));
  if (failures.length === urls.length && failures.length > 0) throw failures[0];
  return {
    pages: settled.map((s, i): ProviderPage => {
      if (s.status === "fulfilled") return s.value;
      const error = toGleanerError(s.reason);
      return {
        url: urls[i],
        title: "",
        content: "",
        error: { code: error.code, message: error.message },
      };
    }),
  };
}

/** Throws when a single-URL reader got a 2xx without any content. */
export function requireContent(provider: string, url: string, content: string): void {
  if (content.trim() === "") {
    throw new GleanerError("unsupported_content", `${provider}: no content for ${url}`);
  }
}
