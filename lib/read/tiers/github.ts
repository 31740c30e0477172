/**
 * The GitHub tier: repositories, files and API URLs read through GitHub's
 * API and raw-content host instead of the HTML pages.
 *
 * - `github.com/<owner>/<repo>` → the README (`<read.github_api_url>/repos/<o>/<r>/readme`);
 *   `…/tree/<ref>/<dir>` → the README of that directory at that ref.
 * - `github.com/<o>/<r>/blob|raw/<ref>/<path>` and `raw.githubusercontent.com/<o>/<r>/<ref>/<path>`
 *   → `<read.github_raw_url>/<o>/<r>/<ref>/<path>`.
 * - `api.github.com/<path>` → `<read.github_api_url>/<path>`: JSON pretty-printed in a code
 *   block, `content` fields in base64 decoded; a file object is shown as the file.
 *
 * Markdown files pass through as Markdown (link targets and images moved to
 * `links`), other files are fenced with a language from their extension.
 * Requests go only to the configured bases, so a GitHub Enterprise or a test
 * double can answer for `github.com` URLs. A tier made with a token
 * ({@link createGithubTier}, `read.github_token` in the default cascade) sends
 * it as `Authorization: Bearer …` to those bases and never logs it; it reads
 * what that token reaches (private repositories too), so it belongs to the
 * operator (scope `operator`). A tier made without one reads anonymously, as
 * anyone could (scope `shared`): a hosted tenant's reader gets that one unless
 * the operator lists the user in `read.github_token_users`.
 * Other github.com pages (issues, pulls, users) are left to the next tier.
 *
 * @module
 */
import { GleanerError } from "../../errors.ts";
import { getGleanerLogger } from "../../log.ts";
import type { FetchedResponse } from "../../net/types.ts";
import { pageFromResponse } from "./http.ts";
import { markdownPage, renderSourceFile } from "./markdown_source.ts";
import { assertPageStatus } from "../status.ts";
import type { Page, ReadRequest, Tier } from "../types.ts";
import { defineTier, type TierContext, type TierSlice } from "./define.ts";

/** The settings the GitHub tier reads (its token is given when it is built). */
type GithubSettings = TierSlice<
  "github_api_url" | "github_raw_url" | "max_html_chars" | "max_links"
>;
import { safeEndpoint } from "../../config/redact.ts";

const log = getGleanerLogger("read", "github");

/** First path segments of github.com that are not owners. */
const RESERVED_OWNERS = new Set([
  "about",
  "apps",
  "collections",
  "customer-stories",
  "enterprise",
  "events",
  "explore",
  "features",
  "login",
  "marketplace",
  "new",
  "notifications",
  "orgs",
  "organizations",
  "pricing",
  "pulls",
  "issues",
  "search",
  "security",
  "settings",
  "site",
  "sponsors",
  "topics",
  "trending",
  "users",
]);

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;

/** What a GitHub URL is read as. */
export type GithubTarget =
  | {
    /** The README of a repository (or of a directory at a ref). */
    kind: "readme";
    /** Owner. */
    owner: string;
    /** Repository. */
    repo: string;
    /** Branch, tag or commit (`tree/<ref>` URLs). */
    ref?: string;
    /** Directory inside the repository (`tree/<ref>/<dir>` URLs). */
    dir?: string;
  }
  | {
    /** One file's raw content. */
    kind: "raw";
    /** Owner. */
    owner: string;
    /** Repository. */
    repo: string;
    /** Branch, tag or commit (the first segment after the repository). */
    ref: string;
    /** Path of the file, percent-encoded as in the URL. */
    path: string;
  }
  | {
    /** A REST API URL. */
    kind: "api";
    /** Path and query below the API base, starting with `/`. */
    path: string;
  };

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // Malformed escapes: keep the text as written.
  }
}

function splitPath(pathname: string): string[] {
  return pathname.split("/").filter(Boolean);
}

function trimBase(base: string): string {
  return base.replace(/\/+$/, "");
}

function rawTarget(segments: string[]): GithubTarget | undefined {
  const [owner, repo, ref, ...rest] = segments;
  if (!owner || !repo || !ref || rest.length === 0) return undefined;
  if (!OWNER.test(owner) || !REPO.test(repo)) return undefined;
  return { kind: "raw", owner, repo, ref, path: rest.join("/") };
}

/**
 * Says how the GitHub tier reads a URL (`github.com`, `raw.githubusercontent.com`,
 * `api.github.com`), or `undefined` when it does not.
 *
 * @example
 * ```ts
 * import { githubTarget } from "./github.ts";
 * const target = githubTarget(new URL("https://github.com/denoland/deno/blob/main/README.md"));
 * console.assert(target?.kind === "raw" && target.path === "README.md");
 * console.assert(githubTarget(new URL("https://github.com/denoland/deno/issues/1")) === undefined);
 * ```
 *
 * @internal exported for tests only
 */
export function githubTarget(url: URL): GithubTarget | undefined {
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  const host = url.hostname.toLowerCase();
  if (host === "api.github.com") return { kind: "api", path: `${url.pathname}${url.search}` };
  if (host === "raw.githubusercontent.com") return rawTarget(splitPath(url.pathname));
  if (host === "github.com" || host === "www.github.com") {
    const segments = splitPath(url.pathname);
    const [owner, rawRepo, kind, ref, ...rest] = segments;
    if (!owner || !rawRepo || RESERVED_OWNERS.has(owner.toLowerCase())) return undefined;
    const repo = rawRepo.replace(/\.git$/, "");
    if (!OWNER.test(owner) || !REPO.test(repo)) return undefined;
    if (segments.length === 2) return { kind: "readme", owner, repo };
    if (kind === "tree" && ref) {
      return { kind: "readme", owner, repo, ref, dir: rest.length ? rest.join("/") : undefined };
    }
    if ((kind === "blob" || kind === "raw") && ref && rest.length) {
      return { kind: "raw", owner, repo, ref, path: rest.join("/") };
    }
    return undefined;
  }
  return undefined;
}

function apiHeaders(token: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    accept: "application/vnd.github+json",
    "x-github-api-version": "2022-11-28",
  };
  if (token) headers.authorization = `Bearer ${token}`;
  return headers;
}

function rawHeaders(token: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { accept: "*/*" };
  if (token) headers.authorization = `Bearer ${token}`;
  return headers;
}

/** How one read reaches GitHub: the context, and the token of the tier (when it has one). */
interface GithubCall {
  /** The read's context. */
  context: TierContext<GithubSettings>;
  /** The tier's token, sent to the configured bases only. */
  token?: string;
}

/** One request to the configured GitHub API or raw host (token only ever sent there; robots.txt is not consulted for APIs). */
function fetchGithub(
  endpoint: string,
  kind: "api" | "raw",
  request: ReadRequest,
  call: GithubCall,
): Promise<FetchedResponse> {
  return call.context.fetcher.fetch(endpoint, {
    signal: request.signal,
    robots: false,
    headers: kind === "api" ? apiHeaders(call.token) : rawHeaders(call.token),
  });
}

/** The JSON body of a GitHub API answer. */
function githubJson(response: FetchedResponse, where: string): unknown {
  try {
    return JSON.parse(response.text());
  } catch {
    throw new GleanerError("provider_unavailable", `GitHub API answered invalid JSON for ${where}`);
  }
}

/** Throws the error a GitHub status stands for (rate limits and bad tokens named as such). */
function assertGithubStatus(response: FetchedResponse, where: string): void {
  const { status } = response;
  if (status >= 200 && status < 300) return;
  const remaining = response.headers.get("x-ratelimit-remaining");
  if (status === 429 || (status === 403 && remaining === "0")) {
    throw new GleanerError(
      "rate_limited",
      `GitHub rate limit reached reading ${where}; setting read.github_token raises it`,
    );
  }
  if (status === 401) {
    throw new GleanerError(
      "unauthorized",
      `GitHub refused the credentials for ${where} (read.github_token)`,
    );
  }
  assertPageStatus(status, where);
}

/** Decodes GitHub's base64 (with line breaks) into UTF-8 text, or `undefined` when it is not text. */
function decodeBase64Text(content: string): string | undefined {
  try {
    const binary = atob(content.replace(/\s+/g, ""));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    if (looksBinary(bytes)) return undefined;
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

interface ContentFile {
  type?: string;
  name?: string;
  path?: string;
  content?: string;
  encoding?: string;
  html_url?: string;
}

function isContentFile(value: unknown): value is ContentFile & { content: string } {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as ContentFile;
  return typeof v.content === "string" && v.encoding === "base64" &&
    (typeof v.path === "string" || typeof v.name === "string");
}

/** Replaces base64 `content` fields (with `encoding: "base64"`) by their text, at any depth. */
function decodeContentFields(value: unknown, depth = 0): unknown {
  if (depth > 20 || !value || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => decodeContentFields(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = decodeContentFields(v, depth + 1);
  if (typeof out.content === "string" && out.encoding === "base64") {
    const text = decodeBase64Text(out.content);
    if (text !== undefined) {
      out.content = text;
      out.encoding = "utf-8";
    }
  }
  return out;
}

function blobUrl(owner: string, repo: string, ref: string, path: string): string {
  return `https://github.com/${owner}/${repo}/blob/${ref}/${path}`;
}

async function readReadme(
  target: Extract<GithubTarget, { kind: "readme" }>,
  url: URL,
  request: ReadRequest,
  call: GithubCall,
): Promise<Page | undefined> {
  const { context } = call;
  const settings = context.config.read;
  const { owner, repo, ref, dir } = target;
  const api = `${trimBase(settings.github_api_url)}/repos/${owner}/${repo}/readme${
    dir ? `/${dir}` : ""
  }${ref ? `?ref=${encodeURIComponent(safeDecode(ref))}` : ""}`;
  const where = safeEndpoint(url);
  const response = await fetchGithub(api, "api", request, call);
  if (response.status === 404) {
    // Not a repository (or no README): the HTML page may still be worth reading.
    log.debug("no README through the API for {url}", { url: where });
    return undefined;
  }
  assertGithubStatus(response, where);
  const file = githubJson(response, where);
  if (!isContentFile(file)) {
    throw new GleanerError("unsupported_content", `GitHub API gave no README content for ${where}`);
  }
  const text = decodeBase64Text(file.content);
  if (text === undefined) {
    throw new GleanerError("unsupported_content", `README of ${where} is not text`);
  }
  const path = file.path ?? file.name ?? "README.md";
  const base = file.html_url ?? blobUrl(owner, repo, ref ?? "HEAD", path);
  const rendered = renderSourceFile(path, text, base);
  const finalUrl = `https://github.com/${owner}/${repo}${
    ref ? `/tree/${ref}${dir ? `/${dir}` : ""}` : ""
  }`;
  return markdownPage({
    url: request.url,
    finalUrl,
    title: dir ? `${owner}/${repo}/${safeDecode(dir)}` : `${owner}/${repo}`,
    markdown: rendered.markdown,
    links: rendered.links,
    tier: "github",
    mediaType: rendered.mediaType,
    canonical: file.html_url,
  });
}

async function readRaw(
  target: Extract<GithubTarget, { kind: "raw" }>,
  url: URL,
  request: ReadRequest,
  call: GithubCall,
): Promise<Page> {
  const { context } = call;
  const settings = context.config.read;
  const { owner, repo, ref, path } = target;
  const raw = `${trimBase(settings.github_raw_url)}/${owner}/${repo}/${ref}/${path}`;
  const where = safeEndpoint(url);
  const response = await fetchGithub(raw, "raw", request, call);
  assertGithubStatus(response, where);
  const human = blobUrl(owner, repo, ref, path);
  if (looksBinary(response.body)) {
    if (response.mediaType === "application/pdf") {
      return {
        ...(await pageFromResponse(response, request.url, {
          extract: context.extract,
          config: context.config,
          signal: request.signal,
        })),
        finalUrl: human,
      };
    }
    throw new GleanerError("unsupported_content", `${where} is a binary file, not a readable page`);
  }
  const decodedPath = safeDecode(path);
  const rendered = renderSourceFile(decodedPath, response.text(), human);
  return markdownPage({
    url: request.url,
    finalUrl: human,
    title: `${owner}/${repo}: ${decodedPath}`,
    markdown: rendered.markdown,
    links: rendered.links,
    tier: "github",
    mediaType: rendered.mediaType,
  });
}

async function readApi(
  target: Extract<GithubTarget, { kind: "api" }>,
  url: URL,
  request: ReadRequest,
  call: GithubCall,
): Promise<Page> {
  const { context } = call;
  const settings = context.config.read;
  const api = `${trimBase(settings.github_api_url)}${target.path}`;
  const where = safeEndpoint(url);
  const response = await fetchGithub(api, "api", request, call);
  assertGithubStatus(response, where);
  let data: unknown;
  try {
    data = JSON.parse(response.text());
  } catch {
    // Not JSON (a raw media type was asked for): read it as any response.
    return {
      ...(await pageFromResponse(response, request.url, {
        extract: context.extract,
        config: context.config,
        signal: request.signal,
      })),
      tier: "github",
    };
  }
  if (isContentFile(data)) {
    const text = decodeBase64Text(data.content);
    if (text !== undefined) {
      const path = data.path ?? data.name!;
      const rendered = renderSourceFile(path, text, data.html_url ?? url.href);
      return markdownPage({
        url: request.url,
        finalUrl: data.html_url ?? url.href,
        title: path,
        markdown: rendered.markdown,
        links: rendered.links,
        tier: "github",
        mediaType: rendered.mediaType,
        canonical: data.html_url,
      });
    }
  }
  const pretty = JSON.stringify(decodeContentFields(data), null, 2);
  const fence = pretty.includes("```") ? "````" : "```";
  return markdownPage({
    url: request.url,
    finalUrl: url.href,
    title: `GitHub API ${url.pathname}`,
    markdown: `${fence}json\n${pretty}\n${fence}`,
    tier: "github",
    mediaType: "application/json",
  });
}

/** Options of {@link createGithubTier}. */
export interface GithubTierOptions {
  /**
   * A GitHub token (`read.github_token`) sent to the configured bases: the tier then
   * reads what the token reaches and belongs to the operator (scope `operator`).
   * Without one the tier reads anonymously (scope `shared`).
   */
  token?: string;
}

/**
 * The GitHub tier, anonymous or with the operator's token.
 *
 * @example
 * ```ts ignore
 * import { createReader } from "../cascade.ts";
 * import { createGithubTier } from "./github.ts";
 * import { httpTier } from "./http.ts";
 * const github = createGithubTier({ token: config.read.github_token });
 * const reader = createReader({ config, fetcher, tiers: [github, httpTier] });
 * const page = await reader.read({ url: "https://github.com/denoland/deno" });
 * console.log(page.tier, page.title); // "github" "denoland/deno"
 * ```
 */
export function createGithubTier(options: GithubTierOptions = {}): Tier {
  const token = options.token || undefined;
  return defineTier({
    name: "github",
    // With a token it reads what the token reaches: the operator's (private repositories).
    scope: token ? "operator" : "shared",
    settings: { read: ["github_api_url", "github_raw_url", "max_html_chars", "max_links"] },
    canHandle: (url, request) => request.render !== "always" && githubTarget(url) !== undefined,
    async read(url, request, context): Promise<Page | undefined> {
      const target = githubTarget(url);
      if (!target) return undefined;
      const call: GithubCall = { context, token };
      if (target.kind === "readme") return await readReadme(target, url, request, call);
      if (target.kind === "raw") return await readRaw(target, url, request, call);
      return await readApi(target, url, request, call);
    },
  });
}
