/**
 * Related links of a page: same site first, ranked by the query, inside a
 * small token budget of their own.
 *
 * @module
 */
import { bm25RankPaced } from "../rank/bm25.ts";
import { pace } from "../async/pace.ts";
import { countTokens } from "../text/tokens.ts";
import { renderLink } from "../rank/render.ts";
import type { PageLink } from "../extract/links.ts";

/**
 * Picks up to `max` links worth following: same site as the page first, then
 * others; within each, the ones whose text and URL match the query best (page
 * order without a query), as long as their rendering fits `maxTokens`.
 * The links are looked at in steps that pause with the shared pacer
 * (`async/pace.ts`): a page of 100,000 links is ranked while a server keeps
 * answering.
 *
 * @example
 * ```ts
 * import { relatedLinks } from "./links.ts";
 * const links = await relatedLinks("https://a.example/x", [
 *   { url: "https://b.example/", text: "Elsewhere" },
 *   { url: "https://a.example/tides", text: "Tides explained" },
 * ], "tides", { max: 10, maxTokens: 100 });
 * console.assert(links[0].url === "https://a.example/tides");
 * ```
 */
export async function relatedLinks(
  pageUrl: string,
  links: readonly PageLink[],
  query: string | undefined,
  options: { max: number; maxTokens: number },
): Promise<PageLink[]> {
  const host = siteOf(pageUrl);
  const picked: PageLink[] = [];
  let used = 0;
  /** Offers links in turn; false once `max` are picked. */
  const offer = (link: PageLink): boolean => {
    if (picked.length >= options.max) return false;
    const cost = countTokens(renderLink(link)) + 1;
    if (used + cost <= options.maxTokens) {
      used += cost;
      picked.push(link);
    }
    return picked.length < options.max;
  };
  if (!query) {
    // Page order, same site first: links are judged only until enough are picked (a page of
    // 100,000 links no longer has every one parsed twice).
    const other: PageLink[] = [];
    for (const [i, link] of links.entries()) {
      if (i % LINKS_PER_STEP === LINKS_PER_STEP - 1) await pace();
      if (link.url === pageUrl || !worthFollowing(link)) continue;
      if (siteOf(link.url) !== host) other.push(link);
      else if (!offer(link)) return picked;
    }
    for (const link of other) if (!offer(link)) break;
    return picked;
  }
  const candidates: PageLink[] = [];
  for (const [i, link] of links.entries()) {
    if (i % LINKS_PER_STEP === LINKS_PER_STEP - 1) await pace();
    if (link.url !== pageUrl && worthFollowing(link)) candidates.push(link);
  }
  const ranked = await bm25RankPaced(
    query,
    candidates.map((l) => `${l.text} ${l.url.replace(/[/_.-]+/g, " ")}`),
  );
  // A set: `ranked.includes` for each of 100,000 links took minutes.
  const inRanked = new Set(ranked);
  const order = [...ranked];
  for (let i = 0; i < candidates.length; i++) if (!inRanked.has(i)) order.push(i);
  const same: number[] = [];
  const other: number[] = [];
  for (const [k, i] of order.entries()) {
    if (k % LINKS_PER_STEP === LINKS_PER_STEP - 1) await pace();
    (siteOf(candidates[i].url) === host ? same : other).push(i);
  }
  for (const i of [...same, ...other]) if (!offer(candidates[i])) break;
  return picked;
}

/** Anchor texts of page furniture (comment widgets, sharing, navigation), never worth a model's tokens. */
const FURNITURE =
  /^(reply|cancel reply|share|tweet|email|e-mail|print|permalink|log ?in|sign ?(in|up)|subscribe|comments?|\d+ comments?|read more|more|next|previous|prev|home|top|back to top|skip to( main)? content|edit|source|\[?edit\]?)$/i;

/** Image or media files, by the link's path or its text. */
const MEDIA = /\.(png|jpe?g|gif|webp|svg|ico|mp4|mp3|webm)$/i;

/** Links looked at between two calls of the pacer. */
const LINKS_PER_STEP = 256;

/** True when a link is worth offering: real anchor text, not furniture, not a media file. */
function worthFollowing(link: PageLink): boolean {
  const text = link.text.replace(/\s+/g, " ").trim();
  if (text.length < 2 || FURNITURE.test(text) || MEDIA.test(text)) return false;
  try {
    const url = new URL(link.url);
    if (MEDIA.test(url.pathname) || url.searchParams.has("replytocom")) return false;
  } catch {
    return false;
  }
  return true;
}

function siteOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return "";
  }
}
