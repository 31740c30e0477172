/**
 * Ad and tracker blocking for the browser tier, from filter lists the operator provides as files
 * (`read.block_lists`; nothing is downloaded). Two formats are read:
 *
 * - Adblock Plus / EasyList network rules
 *   (https://help.adblockplus.org/hc/en-us/articles/360062733293-How-to-write-filters):
 *   `||example.com^` (the domain and its subdomains), `|https://…` (start of the URL), `…|` (end
 *   of the URL), plain patterns with `*` (any characters) and `^` (a separator: anything but a
 *   letter, digit or `_-.%`, or the end of the URL), `@@` exceptions, and the options `script`,
 *   `image`, `stylesheet`, `font`, `media`, `xmlhttprequest`, `subdocument`, `ping`, `other`
 *   (and their `~` negations), `third-party` / `~third-party` and `domain=a.com|~b.com`. A rule
 *   with any other option, a regular expression rule (`/…/`) and element hiding (`##`, `#@#`,
 *   `#?#`) are left out: a page is never blocked by a rule that is not understood.
 * - Hosts files (`0.0.0.0 ads.example.com`, `127.0.0.1 …`): the host and its subdomains.
 *
 * Matching costs no backtracking: a pattern is a list of literal pieces (with `^`) between `*`,
 * and each piece is taken at its first place after the previous one, which decides a `*`-only
 * pattern exactly. Domain rules are found by the request's host and its parents.
 *
 * @module
 */

/** Resource types of a filter option and the browser's resource types they stand for. */
const TYPE_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  script: ["script"],
  image: ["image"],
  stylesheet: ["stylesheet"],
  font: ["font"],
  media: ["media"],
  xmlhttprequest: ["xhr", "fetch"],
  subdocument: ["document"],
  ping: ["ping"],
  other: ["other", "texttrack", "eventsource", "manifest", "signedexchange", "cspviolationreport"],
};

interface Rule {
  /** `||host` anchor: the host the URL must be on (or under). */
  host?: string;
  /** Literal pieces (may hold `^`) between `*`, matched in order. */
  pieces: string[];
  /** The first piece must start the URL (`|…`, or right after `||host`). */
  start: boolean;
  /** The last piece must end the URL (`…|`). */
  end: boolean;
  /** Resource types it applies to (all when undefined). */
  types?: Set<string>;
  /** `true`: third-party requests only; `false`: first-party only. */
  thirdParty?: boolean;
  /** Page domains it applies on / not on. */
  domains?: string[];
  notDomains?: string[];
}

/** One request as the blocker sees it. */
export interface BlockRequest {
  /** The request URL. */
  url: string;
  /** The browser's resource type (`script`, `image`, `xhr`, …). */
  type: string;
  /** The host of the page that makes it (the read's page). */
  pageHost?: string;
}

/** Rules read from the operator's filter lists. */
export interface BlockList {
  /** Network rules kept (exceptions included). */
  readonly rules: number;
  /** Lines left out (options or syntax not understood). */
  readonly skipped: number;
  /** True when the request should never be sent. */
  blocks(request: BlockRequest): boolean;
}

const SEPARATOR = /[^A-Za-z0-9_\-.%]/;

/** Whether `piece` (with `^` as a separator class) matches `url` at `at`. */
function pieceAt(url: string, at: number, piece: string): boolean {
  for (let i = 0; i < piece.length; i++) {
    const ch = piece[i];
    if (ch === "^") {
      // The end of the URL counts as a separator only for a trailing `^`.
      if (at + i === url.length) return i === piece.length - 1;
      if (!SEPARATOR.test(url[at + i])) return false;
    } else if (url[at + i] !== ch) return false;
  }
  return true;
}

/** The length `piece` takes at `at` (a trailing `^` at the end of the URL takes nothing). */
function pieceLength(url: string, at: number, piece: string): number {
  return Math.min(piece.length, url.length - at);
}

function matchPieces(url: string, from: number, rule: Rule): boolean {
  let at = from;
  for (let p = 0; p < rule.pieces.length; p++) {
    const piece = rule.pieces[p];
    const last = p === rule.pieces.length - 1;
    if (p === 0 && rule.start) {
      if (!pieceAt(url, at, piece)) return false;
      at += pieceLength(url, at, piece);
      if (last && rule.end && at !== url.length) return false;
      continue;
    }
    if (last && rule.end) {
      // The last piece must end the URL: try it there only.
      const startAt = url.length - piece.length;
      return startAt >= at && pieceAt(url, startAt, piece);
    }
    let found = -1;
    for (let i = at; i <= url.length; i++) {
      if (pieceAt(url, i, piece)) {
        found = i;
        break;
      }
    }
    if (found === -1) return false;
    at = found + pieceLength(url, found, piece);
  }
  return true;
}

function hostUnder(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** The registrable-ish part of a host for first/third-party: its last two labels. */
function site(host: string): string {
  return host.split(".").slice(-2).join(".");
}

function parseOptions(text: string, rule: Rule): boolean {
  const types = new Set<string>();
  const notTypes = new Set<string>();
  for (const raw of text.split(",")) {
    const option = raw.trim().toLowerCase();
    const negated = option.startsWith("~");
    const name = negated ? option.slice(1) : option;
    if (TYPE_OPTIONS[name]) {
      for (const t of TYPE_OPTIONS[name]) (negated ? notTypes : types).add(t);
    } else if (name === "third-party" || name === "3p") {
      rule.thirdParty = !negated;
    } else if (name === "first-party" || name === "1p") {
      rule.thirdParty = negated;
    } else if (!negated && name.startsWith("domain=")) {
      for (const d of name.slice(7).split("|")) {
        if (d.startsWith("~")) (rule.notDomains ??= []).push(d.slice(1));
        else if (d) (rule.domains ??= []).push(d);
      }
    } else {
      return false;
    }
  }
  if (types.size > 0) rule.types = types;
  else if (notTypes.size > 0) {
    rule.types = new Set(
      Object.values(TYPE_OPTIONS).flat().filter((t) => !notTypes.has(t)),
    );
  }
  return true;
}

/** One network rule, or undefined for a line that is not one (or not understood). */
function parseRule(line: string): { rule: Rule; exception: boolean } | undefined {
  let text = line;
  const exception = text.startsWith("@@");
  if (exception) text = text.slice(2);
  const rule: Rule = { pieces: [], start: false, end: false };
  const dollar = text.lastIndexOf("$");
  if (dollar !== -1 && !text.slice(dollar).includes("/")) {
    if (!parseOptions(text.slice(dollar + 1), rule)) return undefined;
    text = text.slice(0, dollar);
  }
  if (text.startsWith("/") && text.endsWith("/") && text.length > 1) return undefined;
  if (text.startsWith("||")) {
    text = text.slice(2);
    const end = text.search(/[\^/*|:?]/);
    const host = (end === -1 ? text : text.slice(0, end)).toLowerCase();
    if (!/^[a-z0-9.-]+$/.test(host) || host.includes("*")) return undefined;
    rule.host = host;
    text = end === -1 ? "" : text.slice(end);
    rule.start = true;
  } else if (text.startsWith("|")) {
    rule.start = true;
    text = text.slice(1);
  }
  if (text.endsWith("|")) {
    rule.end = true;
    text = text.slice(0, -1);
  }
  rule.pieces = text.split("*").filter((p, i, all) => p !== "" || (i === 0 && all.length === 1));
  if (rule.pieces.length === 1 && rule.pieces[0] === "") rule.pieces = [];
  if (!rule.host && rule.pieces.join("").replace(/\^/g, "").length < 3) return undefined;
  return { rule, exception };
}

/** Whether `entry`'s rule matches `request` (already parsed as `url`), options and all. */
function ruleApplies(entry: { rule: Rule }, request: BlockRequest, url: URL): boolean {
  const { rule } = entry;
  if (rule.types && !rule.types.has(request.type)) return false;
  const host = url.hostname.toLowerCase();
  const pageHost = request.pageHost?.toLowerCase();
  if (rule.thirdParty !== undefined) {
    if (!pageHost) return false;
    if ((site(host) !== site(pageHost)) !== rule.thirdParty) return false;
  }
  if (rule.domains && !(pageHost && rule.domains.some((d) => hostUnder(pageHost, d)))) {
    return false;
  }
  if (rule.notDomains && pageHost && rule.notDomains.some((d) => hostUnder(pageHost, d))) {
    return false;
  }
  const href = url.href;
  if (rule.host) {
    if (!hostUnder(host, rule.host)) return false;
    // The rest of the pattern right after the host name (a port's `:` is a separator).
    const after = href.indexOf(url.hostname, url.protocol.length) + url.hostname.length;
    return rule.pieces.length === 0 || matchPieces(href, after, rule);
  }
  return matchPieces(href, 0, rule);
}

/**
 * Reads filter lists' texts into a {@link BlockList}.
 *
 * @example
 * ```ts
 * import { parseBlockLists } from "./block_lists.ts";
 * const list = parseBlockLists([
 *   "! EasyList-style\n||ads.example^\n/banner/*.gif$image\n@@||ads.example/ok.js$script",
 *   "0.0.0.0 tracker.example",
 * ]);
 * const page = "news.example";
 * console.assert(list.blocks({ url: "https://ads.example/x.js", type: "script", pageHost: page }));
 * console.assert(!list.blocks({ url: "https://ads.example/ok.js", type: "script", pageHost: page }));
 * console.assert(list.blocks({ url: "https://cdn.example/banner/1.gif", type: "image" }));
 * console.assert(!list.blocks({ url: "https://cdn.example/banner/1.gif", type: "script" }));
 * console.assert(list.blocks({ url: "http://px.tracker.example/p", type: "image" }));
 * ```
 *
 * @internal exported for tests only
 */
export function parseBlockLists(texts: readonly string[]): BlockList {
  const byHost = new Map<string, { rule: Rule; exception: boolean }[]>();
  const generic: { rule: Rule; exception: boolean }[] = [];
  let rules = 0;
  let skipped = 0;
  for (const text of texts) {
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim();
      if (line === "" || line.startsWith("!") || line.startsWith("[") || line.startsWith("#")) {
        continue;
      }
      const hosts = line.match(/^(?:0\.0\.0\.0|127\.0\.0\.1|::1?)\s+([A-Za-z0-9.-]+)(?:\s|$)/);
      if (hosts) {
        const host = hosts[1].toLowerCase();
        if (host === "localhost" || host === "0.0.0.0") continue;
        const entry = { rule: { host, pieces: [], start: true, end: false }, exception: false };
        byHost.set(host, [...(byHost.get(host) ?? []), entry]);
        rules++;
        continue;
      }
      if (/#[@?$]?#|#\?#/.test(line)) {
        skipped++;
        continue;
      }
      const parsed = parseRule(line);
      if (!parsed) {
        skipped++;
        continue;
      }
      rules++;
      if (parsed.rule.host) {
        byHost.set(parsed.rule.host, [...(byHost.get(parsed.rule.host) ?? []), parsed]);
      } else generic.push(parsed);
    }
  }

  return {
    rules,
    skipped,
    blocks(request) {
      if (rules === 0) return false;
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return false;
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") return false;
      const candidates: { rule: Rule; exception: boolean }[] = [];
      const labels = url.hostname.toLowerCase().split(".");
      for (let i = 0; i < labels.length; i++) {
        candidates.push(...(byHost.get(labels.slice(i).join(".")) ?? []));
      }
      candidates.push(...generic);
      let blocked = false;
      for (const entry of candidates) {
        if (!ruleApplies(entry, request, url)) continue;
        if (entry.exception) return false;
        blocked = true;
      }
      return blocked;
    },
  };
}

/** Largest filter list file read (bytes): EasyList is about 1.5 MB. */
const MAX_BLOCK_LIST_BYTES = 32 * 1024 * 1024;

/**
 * Reads the operator's filter list files into one {@link BlockList}.
 *
 * @throws {Error} naming the file when one cannot be read or is larger than
 * {@link MAX_BLOCK_LIST_BYTES}.
 */
export async function loadBlockLists(paths: readonly string[]): Promise<BlockList> {
  const texts: string[] = [];
  for (const path of paths) {
    const info = await Deno.stat(path);
    if (info.size > MAX_BLOCK_LIST_BYTES) {
      throw new Error(`read.block_lists: ${path} is larger than ${MAX_BLOCK_LIST_BYTES} bytes`);
    }
    texts.push(await Deno.readTextFile(path));
  }
  return parseBlockLists(texts);
}
