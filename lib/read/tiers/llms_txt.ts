/**
 * The llms.txt tier: for domains on the allowlist (`read.llms_txt_domains`,
 * by default the documentation sites of `DEFAULT_LLMS_TXT_DOMAINS`, plus
 * `read.llms_txt_extra_domains`), the page is taken from the site's own
 * `llms-full.txt` (else `llms.txt`) instead of its HTML.
 *
 * The file is fetched once per origin and kept in memory for a while
 * (found or not). It is split into sections at Markdown headings; the
 * section returned is the deepest one whose own text names the requested URL
 * (outside link lists, which are indexes rather than content), else the first
 * one whose heading slug equals the URL's last path segment. When nothing
 * matches the tier passes (`undefined`) and the next tier reads the page.
 * Site roots are always left to the next tier.
 *
 * @module
 */
import { LruCache } from "../../cache/lru_cache.ts";
import { SingleFlight } from "../../async/single_flight.ts";
import { getGleanerLogger } from "../../log.ts";
import type { DomainStats } from "../../store/types.ts";
import { markdownPage, stripMarkdownLinks } from "./markdown_source.ts";
import type { Page, Tier } from "../types.ts";
import { defineTier, type TierContext, type TierSlice } from "./define.ts";

/** The settings the llms.txt tier reads. */
type LlmsTxtSettings = TierSlice<"llms_txt_domains" | "llms_txt_extra_domains">;

const log = getGleanerLogger("read", "llms_txt");

/** How long a fetched (or missing) llms.txt is trusted, by default (15 minutes). */
const LLMS_TXT_TTL_MS = 15 * 60 * 1000;

/** Origins whose llms.txt is kept in memory at most (least recently used dropped first). */
const LLMS_TXT_MAX_ORIGINS = 64;

/** The files looked for, in order. */
const LLMS_TXT_FILES = ["llms-full.txt", "llms.txt"] as const;

/** One section of an llms.txt file. */
export interface LlmsSection {
  /** Heading level (1-6). */
  level: number;
  /** Heading text. */
  heading: string;
  /** The section's own lines (heading included, subsections excluded). */
  own: string;
  /** The section with its subsections. */
  full: string;
}

/** A fetched llms.txt file. */
interface LlmsFile {
  /** Where it came from. */
  url: string;
  /** Its sections. */
  sections: LlmsSection[];
}

interface Entry {
  file: LlmsFile | null;
  expires: number;
}

/** Options of {@link createLlmsTxtTier}. */
export interface LlmsTxtTierOptions {
  /** Where llms.txt presence per domain is remembered when the read's context has no `domains`. */
  domains?: DomainStats;
  /** How long a file (or its absence) is trusted; default {@link LLMS_TXT_TTL_MS}. */
  ttlMs?: number;
  /** Clock, for tests of expiry. */
  now?: () => number;
}

/**
 * True when `host` is `domain` or one of its subdomains (a leading `www.` ignored on both).
 *
 * @internal exported for tests only
 */
export function hostOnList(host: string, domains: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, "").replace(/^www\./, "");
  return domains.some((entry) => {
    const d = entry.trim().toLowerCase().replace(/\.$/, "").replace(/^www\./, "");
    return d !== "" && (h === d || h.endsWith(`.${d}`));
  });
}

/** A heading's slug, GitHub style: lower case, punctuation dropped, spaces to `-`. */
function slugify(text: string): string {
  return text.toLowerCase().trim()
    .replace(/[`*_~[\]()]/g, "")
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .replace(/\s+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");
}

/**
 * Splits Markdown into sections at ATX headings (outside code fences).
 *
 * @example
 * ```ts
 * import { splitSections } from "./llms_txt.ts";
 * const sections = splitSections("# A\ntext\n## B\nmore\n# C\nend");
 * console.assert(sections.length === 3 && sections[0].full.includes("more") && !sections[0].own.includes("more"));
 * ```
 *
 * @internal exported for tests only
 */
export function splitSections(markdown: string): LlmsSection[] {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const starts: { line: number; level: number; heading: string }[] = [];
  let fence: string | undefined;
  lines.forEach((line, i) => {
    const marker = line.match(/^\s{0,3}(`{3,}|~{3,})/)?.[1];
    if (marker && (!fence || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence ? undefined : marker;
      return;
    }
    if (fence) return;
    const m = line.match(/^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/);
    if (m && m[2]) starts.push({ line: i, level: m[1].length, heading: m[2] });
  });
  return starts.map((start, k) => {
    const nextAny = starts[k + 1]?.line ?? lines.length;
    let end = lines.length;
    for (let j = k + 1; j < starts.length; j++) {
      if (starts[j].level <= start.level) {
        end = starts[j].line;
        break;
      }
    }
    return {
      level: start.level,
      heading: start.heading.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").trim(),
      own: lines.slice(start.line, nextAny).join("\n").trim(),
      full: lines.slice(start.line, end).join("\n").trim(),
    };
  });
}

/** A URL reduced for comparison: no scheme, `www.`, query, fragment, trailing `/`, `index` or `.md`/`.html`. */
function comparableUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const host = url.hostname.toLowerCase().replace(/^www\./, "");
  let pathname = url.pathname;
  try {
    pathname = decodeURI(pathname);
  } catch {
    // Malformed escapes: compare as written.
  }
  const path = pathname
    .replace(/\/index(\.[a-z]+)?$/i, "/")
    .replace(/\.(md|mdx|html?|txt)$/i, "")
    .replace(/\/+$/, "");
  return `${host}${url.port ? `:${url.port}` : ""}${path}`;
}

const URL_IN_TEXT = /https?:\/\/[^\s)<>\]"'`]+/g;
const LIST_LINK_LINE = /^\s*(?:[-*+]|\d+\.)\s+\[[^\]]*\]\([^)]*\)/;

/**
 * Picks the section of an llms.txt file that holds the page at `url`, or
 * `undefined`.
 *
 * @example
 * ```ts
 * import { matchSection, splitSections } from "./llms_txt.ts";
 * const sections = splitSections("# Install\nSource: https://docs.example.com/install\nRun it.\n# Usage\nUse it.");
 * console.assert(matchSection(sections, new URL("https://docs.example.com/install"))?.heading === "Install");
 * console.assert(matchSection(sections, new URL("https://docs.example.com/guide/usage"))?.heading === "Usage");
 * ```
 *
 * @internal exported for tests only
 */
export function matchSection(sections: LlmsSection[], url: URL): LlmsSection | undefined {
  const wanted = comparableUrl(url.href);
  if (!wanted) return undefined;
  let byUrl: LlmsSection | undefined;
  for (const section of sections) {
    const lines = section.own.split("\n").filter((line) => !LIST_LINK_LINE.test(line));
    const found = lines.join("\n").match(URL_IN_TEXT)?.some((u) =>
      comparableUrl(u.replace(/[.,;:]+$/, "")) === wanted
    );
    // Deepest section naming the URL wins (a subsection is more precise than its parent).
    if (found && (!byUrl || section.level > byUrl.level)) byUrl = section;
  }
  if (byUrl) return byUrl;
  let last = url.pathname.split("/").filter(Boolean).pop() ?? "";
  try {
    last = decodeURIComponent(last);
  } catch {
    // Malformed escapes: use the segment as written.
  }
  last = last.replace(/\.(md|mdx|html?)$/i, "");
  const slug = slugify(last.replace(/[-_]+/g, " "));
  if (!slug) return undefined;
  return sections.find((section) => slugify(section.heading) === slug);
}

/**
 * Books what the files showed in domain memory: whether an llms.txt file exists, the size
 * of `llms-full.txt` (`null`: absent), a capability of the origin. A failure is only logged.
 */
async function noteFiles(
  domains: DomainStats | undefined,
  origin: string,
  note: { exists?: boolean; fullBytes?: number | null },
): Promise<void> {
  try {
    if (note.exists !== undefined) await domains?.setLlmsTxt(origin, note.exists);
    if (note.fullBytes !== undefined) {
      await domains?.noteCapabilities(origin, { llms_full_txt_bytes: note.fullBytes });
    }
  } catch (error) {
    log.debug("llms.txt presence or size not recorded: {error}", { error });
  }
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** Whether `host` is on `read.llms_txt_domains` or `read.llms_txt_extra_domains`. */
function listedForLlmsTxt(host: string, settings: LlmsTxtSettings): boolean {
  const { llms_txt_domains, llms_txt_extra_domains } = settings.read;
  return hostOnList(host, llms_txt_domains) || hostOnList(host, llms_txt_extra_domains);
}

/**
 * Creates the llms.txt tier with its own in-memory cache of files.
 *
 * @example
 * ```ts ignore
 * import { createLlmsTxtTier } from "./llms_txt.ts";
 * import { createReader } from "../cascade.ts";
 * import { httpTier } from "./http.ts";
 * const reader = createReader({ config, fetcher, tiers: [createLlmsTxtTier({ domains: store.domains }), httpTier] });
 * const page = await reader.read({ url: "https://docs.example.com/guide/install" });
 * console.log(page.tier); // "llms_txt" when the site's llms-full.txt has that page
 * ```
 */
export function createLlmsTxtTier(options: LlmsTxtTierOptions = {}): Tier & {
  /** Forgets every cached file. */
  clear(): void;
} {
  const ttlMs = options.ttlMs ?? LLMS_TXT_TTL_MS;
  const now = options.now ?? Date.now;
  const cache = new LruCache<string, Entry>(LLMS_TXT_MAX_ORIGINS);
  const inflight = new SingleFlight<string, Entry>();

  const remember = (origin: string, entry: Entry): Entry => {
    cache.set(origin, entry);
    return entry;
  };

  async function load(origin: string, context: TierContext<LlmsTxtSettings>): Promise<Entry> {
    // The reading reader's memory first (in hosted mode, the reading user's own).
    const domains = context.domains ?? options.domains;
    for (const name of LLMS_TXT_FILES) {
      const fileUrl = `${origin}/${name}`;
      try {
        const response = await context.fetcher.fetch(fileUrl, {
          robots: context.config.network.respect_robots,
          headers: { accept: "text/markdown,text/plain;q=0.9,*/*;q=0.1" },
        });
        const type = response.mediaType;
        const text = response.status >= 200 && response.status < 300 ? response.text() : "";
        const usable = text.trim() !== "" && (type.startsWith("text/") && type !== "text/html") &&
          !/^\s*<(!doctype|html)/i.test(text);
        if (name === "llms-full.txt") {
          await noteFiles(domains, origin, { fullBytes: usable ? byteLength(text) : null });
        }
        if (usable) {
          await noteFiles(domains, origin, { exists: true });
          return remember(origin, {
            file: { url: response.url, sections: splitSections(text) },
            expires: now() + ttlMs,
          });
        }
      } catch (error) {
        log.debug("{url} could not be read: {error}", { url: fileUrl, error });
      }
    }
    await noteFiles(domains, origin, { exists: false });
    return remember(origin, { file: null, expires: now() + ttlMs });
  }

  async function fileFor(
    origin: string,
    context: TierContext<LlmsTxtSettings>,
  ): Promise<LlmsFile | null> {
    const hit = cache.get(origin);
    if (hit && hit.expires > now()) return hit.file;
    return (await inflight.run(origin, () => load(origin, context))).file;
  }

  const tier = defineTier({
    name: "llms_txt",
    scope: "shared",
    settings: { read: ["llms_txt_domains", "llms_txt_extra_domains"] },
    canHandle: (url, request) =>
      request.render !== "always" && (url.protocol === "https:" || url.protocol === "http:") &&
      url.pathname.replace(/\/+$/, "") !== "" &&
      !LLMS_TXT_FILES.some((name) => url.pathname === `/${name}`),
    async read(url, request, context): Promise<Page | undefined> {
      if (!listedForLlmsTxt(url.hostname, context.config)) return undefined;
      request.signal?.throwIfAborted();
      const file = await fileFor(url.origin, context);
      if (!file) return undefined;
      const section = matchSection(file.sections, url);
      if (!section) return undefined;
      const { markdown, links } = stripMarkdownLinks(section.full, url.href);
      return markdownPage({
        url: request.url,
        finalUrl: url.href,
        title: section.heading,
        markdown,
        links,
        tier: "llms_txt",
        mediaType: "text/markdown",
      });
    },
  });
  return Object.assign(tier, {
    clear() {
      cache.clear();
    },
  });
}
