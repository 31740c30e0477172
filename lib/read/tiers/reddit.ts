/**
 * The Reddit tier: a thread read through its `.json` form instead of the
 * script-heavy page.
 *
 * For `reddit.com/r/<sub>/comments/<id>[/<slug>[/<comment>]]` and
 * `/comments/<id>` on reddit.com, www., old., new., np. and m.reddit.com, the
 * tier fetches `<read.reddit_url>/<same path>.json?raw_json=1&limit=…&depth=…`
 * (the comments listing, https://www.reddit.com/dev/api#GET_comments_{article};
 * `raw_json=1` turns off the legacy `&lt;`/`&gt;`/`&amp;` escaping,
 * https://www.reddit.com/dev/api) with robots.txt consulted and the network
 * policy applied like any page. The answer is two listings
 * (https://github.com/reddit-archive/reddit/wiki/JSON): the post (`t3`:
 * `title`, `selftext`, `author`, `score`, `num_comments`, `url`, `is_self`,
 * `permalink`, `created_utc`) and its comments (`t1`: `author`, `score`, `body`,
 * `depth`, `replies` = `""` or a nested listing; `more` for the replies not
 * sent).
 *
 * The page is the post then the comment tree as a nested list, bounded:
 * {@link REDDIT_MAX_DEPTH} levels, {@link REDDIT_MAX_COMMENTS} comments,
 * {@link REDDIT_MAX_COMMENT_CHARS} characters per comment and
 * {@link REDDIT_MAX_CHARS} in all; what is left out is said in the text.
 * Markdown link targets go to `links`.
 *
 * Reddit's robots.txt disallows everything for every agent, so with
 * `network.respect_robots` on the `.json` request is refused; the tier then
 * passes and the generic tiers meet the same refusal for the thread itself
 * (`robots_disallowed`), unless the operator set `read.reddit_ignore_robots`,
 * which skips robots.txt for this tier's request only. 403 (Reddit refuses anonymous API traffic) is
 * `unauthorized`, 429 `rate_limited`; an answer that is not the two listings
 * passes to the next tier.
 *
 * @module
 */
import { GleanerError } from "../../errors.ts";
import { getGleanerLogger } from "../../log.ts";
import type { FetchedResponse } from "../../net/types.ts";
import { safeEndpoint } from "../../config/redact.ts";
import { str as text } from "../../net/json_call.ts";
import { markdownPage, stripMarkdownLinks } from "./markdown_source.ts";
import { assertPageStatus } from "../status.ts";
import type { Page, PageLink, ReadRequest, Tier } from "../types.ts";
import { defineTier, type TierContext, type TierSlice } from "./define.ts";

/** The settings this tier reads. */
type RedditSettings = TierSlice<"reddit_url" | "reddit_ignore_robots" | "max_links">;

const log = getGleanerLogger("read", "reddit");

const REDDIT_HOSTS = new Set([
  "reddit.com",
  "www.reddit.com",
  "old.reddit.com",
  "new.reddit.com",
  "np.reddit.com",
  "m.reddit.com",
]);
const SUBREDDIT = /^[A-Za-z0-9_]{2,21}$/;
const ID36 = /^[a-z0-9]{1,12}$/;
const SLUG = /^[^/?#]{1,300}$/;

/**
 * Deepest comment level rendered (top-level comments are level 1).
 *
 * @internal exported for tests only
 */
export const REDDIT_MAX_DEPTH = 6;
/**
 * Most comments rendered.
 *
 * @internal exported for tests only
 */
export const REDDIT_MAX_COMMENTS = 200;
/** Characters kept of one comment (or of the post's text). */
const REDDIT_MAX_COMMENT_CHARS = 5_000;
/** Characters of the whole page, post and comments. */
const REDDIT_MAX_CHARS = 200_000;

/** The thread a Reddit URL names. */
export interface RedditThread {
  /** Subreddit name, when the URL names one. */
  subreddit?: string;
  /** The post's ID (base 36). */
  id: string;
  /** The URL's title slug. */
  slug?: string;
  /** A comment the URL focuses on. */
  comment?: string;
}

/**
 * The thread a Reddit URL names, or `undefined`.
 *
 * @example
 * ```ts
 * import { redditThread } from "./reddit.ts";
 * const t = redditThread(new URL("https://old.reddit.com/r/deno/comments/abc123/some_title/"));
 * console.assert(t?.subreddit === "deno" && t.id === "abc123" && t.slug === "some_title");
 * console.assert(redditThread(new URL("https://www.reddit.com/r/deno/")) === undefined);
 * ```
 *
 * @internal exported for tests only
 */
export function redditThread(url: URL): RedditThread | undefined {
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  if (!REDDIT_HOSTS.has(url.hostname.toLowerCase())) return undefined;
  const segments = url.pathname.split("/").filter(Boolean);
  let subreddit: string | undefined;
  if (segments[0] === "r") {
    subreddit = segments[1];
    if (!subreddit || !SUBREDDIT.test(subreddit)) return undefined;
    segments.splice(0, 2);
  }
  const [kind, id, slug, comment, ...rest] = segments;
  if (kind !== "comments" || !id || !ID36.test(id) || rest.length > 0) return undefined;
  if (slug !== undefined && !SLUG.test(slug)) return undefined;
  if (comment !== undefined && !ID36.test(comment)) return undefined;
  return {
    ...(subreddit ? { subreddit } : {}),
    id,
    ...(slug ? { slug } : {}),
    ...(comment ? { comment } : {}),
  };
}

function jsonPath(thread: RedditThread): string {
  const prefix = thread.subreddit ? `/r/${thread.subreddit}` : "";
  const tail = thread.slug
    ? `/${encodeURIComponent(decodeSafe(thread.slug))}${thread.comment ? `/${thread.comment}` : ""}`
    : "";
  return `${prefix}/comments/${thread.id}${tail}.json`;
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

type Thing = { kind?: unknown; data?: Record<string, unknown> };

function children(listing: unknown): Thing[] {
  const data = (listing as Thing | undefined)?.data;
  const list = data?.children;
  return Array.isArray(list) ? list.filter((c) => c && typeof c === "object") as Thing[] : [];
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function cut(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max).trimEnd()} …` : value;
}

function points(score: number | undefined): string {
  if (score === undefined) return "";
  return `${score} point${score === 1 || score === -1 ? "" : "s"}`;
}

/** Reddit's escaping of `<`, `>` and `&` when `raw_json=1` was not honoured. */
function unescapeLegacy(value: string): string {
  return value.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** What the renderer collects. */
interface Rendered {
  lines: string[];
  chars: number;
  comments: number;
  links: PageLink[];
  seen: Set<string>;
  full: boolean;
}

function addLinks(out: Rendered, links: PageLink[], max: number): void {
  for (const link of links) {
    if (out.links.length >= max) return;
    if (out.seen.has(link.url)) continue;
    out.seen.add(link.url);
    out.links.push(link);
  }
}

function push(out: Rendered, line: string): boolean {
  if (out.chars + line.length + 1 > REDDIT_MAX_CHARS) {
    out.full = true;
    return false;
  }
  out.lines.push(line);
  out.chars += line.length + 1;
  return true;
}

/** Renders the comment tree depth first, iteratively, within the bounds. */
function renderComments(top: Thing[], base: string, maxLinks: number, out: Rendered): void {
  const stack: { thing: Thing; level: number }[] = top.slice().reverse().map((thing) => ({
    thing,
    level: 1,
  }));
  while (stack.length > 0 && !out.full) {
    const { thing, level } = stack.pop()!;
    const data = thing.data ?? {};
    const indent = "  ".repeat(level - 1);
    if (thing.kind === "more") {
      const count = num(data.count) ?? 0;
      if (count > 0) {
        push(out, `${indent}- … ${count} more repl${count === 1 ? "y" : "ies"} not loaded`);
      }
      continue;
    }
    if (thing.kind !== "t1") continue;
    const replies = children(data.replies);
    if (out.comments >= REDDIT_MAX_COMMENTS) {
      push(out, `${indent}- … more comments not shown (limit ${REDDIT_MAX_COMMENTS})`);
      out.full = true;
      break;
    }
    const body = unescapeLegacy(text(data.body)).trim();
    const author = text(data.author) || "[deleted]";
    if ((body === "[deleted]" || body === "[removed]" || body === "") && replies.length === 0) {
      continue;
    }
    out.comments++;
    const stripped = stripMarkdownLinks(cut(body, REDDIT_MAX_COMMENT_CHARS), base);
    addLinks(out, stripped.links, maxLinks);
    const [first = "", ...more] = stripped.markdown.split("\n");
    const who = author === "[deleted]" ? author : `u/${author}`;
    const score = points(num(data.score));
    if (!push(out, `${indent}- **${who}**${score ? ` (${score})` : ""}: ${first}`)) break;
    for (const line of more) {
      if (!push(out, line.trim() ? `${indent}  ${line}` : "")) break;
    }
    if (replies.length === 0) continue;
    if (level >= REDDIT_MAX_DEPTH) {
      push(out, `${indent}  - … replies below level ${REDDIT_MAX_DEPTH} not shown`);
      continue;
    }
    for (let i = replies.length - 1; i >= 0; i--) {
      stack.push({ thing: replies[i], level: level + 1 });
    }
  }
}

/** The Markdown page of a thread's two listings, or `undefined` when they are not that. */
function threadPage(
  data: unknown,
  url: URL,
  request: ReadRequest,
  maxLinks: number,
  mediaType: string,
): Page | undefined {
  if (!Array.isArray(data) || data.length < 2) return undefined;
  const post = children(data[0]).find((c) => c.kind === "t3")?.data;
  if (!post) return undefined;
  const permalink = text(post.permalink);
  const threadUrl = permalink.startsWith("/") ? `${url.origin}${permalink}` : url.href;
  const title = text(post.title).trim() || `Reddit thread ${url.pathname}`;
  const out: Rendered = {
    lines: [],
    chars: 0,
    comments: 0,
    links: [],
    seen: new Set(),
    full: false,
  };
  const author = text(post.author);
  const created = num(post.created_utc);
  const published = created !== undefined ? new Date(created * 1000).toISOString() : undefined;
  const about = [
    text(post.subreddit) ? `r/${text(post.subreddit)}` : "",
    author ? `posted by u/${author}` : "",
    points(num(post.score)),
    num(post.num_comments) !== undefined ? `${num(post.num_comments)} comments` : "",
    published ? published.slice(0, 10) : "",
  ].filter(Boolean).join(" · ");
  push(out, about);
  const link = text(post.url);
  if (post.is_self === false && /^https?:\/\//.test(link)) {
    push(out, "");
    push(out, `Link: ${link}`);
    addLinks(out, [{ url: link, text: title }], maxLinks);
  }
  const selftext = unescapeLegacy(text(post.selftext)).trim();
  if (selftext) {
    const stripped = stripMarkdownLinks(cut(selftext, REDDIT_MAX_COMMENT_CHARS), threadUrl);
    addLinks(out, stripped.links, maxLinks);
    push(out, "");
    for (const line of stripped.markdown.split("\n")) push(out, line);
  }
  const comments = children(data[1]);
  if (comments.length > 0) {
    push(out, "");
    push(out, "## Comments");
    push(out, "");
    renderComments(comments, threadUrl, maxLinks, out);
  }
  if (out.full && out.lines.at(-1)?.includes("not shown") !== true) {
    out.lines.push("", `(cut at ${REDDIT_MAX_CHARS} characters)`);
  }
  return markdownPage({
    url: request.url,
    finalUrl: threadUrl,
    canonical: threadUrl,
    title,
    markdown: out.lines.join("\n").trim(),
    links: out.links,
    tier: "reddit",
    mediaType,
    ...(author ? { byline: `u/${author}` } : {}),
    ...(published ? { published } : {}),
  });
}

async function readThread(
  thread: RedditThread,
  url: URL,
  request: ReadRequest,
  context: TierContext<RedditSettings>,
): Promise<Page | undefined> {
  const base = context.config.read.reddit_url.replace(/\/+$/, "");
  const query = new URLSearchParams({
    raw_json: "1",
    limit: String(REDDIT_MAX_COMMENTS),
    depth: String(REDDIT_MAX_DEPTH),
  });
  const endpoint = `${base}${jsonPath(thread)}?${query}`;
  const where = safeEndpoint(url);
  let response: FetchedResponse;
  try {
    response = await context.fetcher.fetch(endpoint, {
      signal: request.signal,
      // The operator's opt-in skips robots.txt for this request only, never for other tiers.
      robots: !context.config.read.reddit_ignore_robots,
      headers: { accept: "application/json" },
    });
  } catch (error) {
    if (error instanceof GleanerError && error.code === "robots_disallowed") {
      log.debug("robots.txt refuses the .json form of {url}", { url: where });
      return undefined;
    }
    throw error;
  }
  assertPageStatus(response.status, where);
  let data: unknown;
  try {
    data = JSON.parse(response.text());
  } catch {
    log.debug("the .json form of {url} is not JSON", { url: where });
    return undefined;
  }
  return threadPage(data, url, request, context.config.read.max_links, response.mediaType);
}

/**
 * The Reddit tier.
 *
 * @example
 * ```ts ignore
 * import { createReader } from "../cascade.ts";
 * import { httpTier } from "./http.ts";
 * import { redditTier } from "./reddit.ts";
 * const reader = createReader({ config, fetcher, tiers: [redditTier, httpTier] });
 * const page = await reader.read({ url: "https://old.reddit.com/r/deno/comments/abc123/title/" });
 * console.log(page.tier); // "reddit"
 * ```
 */
export const redditTier: Tier = defineTier({
  settings: { read: ["reddit_url", "reddit_ignore_robots", "max_links"] },
  name: "reddit",
  scope: "shared",
  canHandle: (url, request) => request.render !== "always" && redditThread(url) !== undefined,
  async read(
    url: URL,
    request: ReadRequest,
    context: TierContext<RedditSettings>,
  ): Promise<Page | undefined> {
    const thread = redditThread(url);
    return thread ? await readThread(thread, url, request, context) : undefined;
  },
});
