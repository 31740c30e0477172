/**
 * The YouTube tier: a video's transcript instead of its watch page, which
 * holds little but script.
 *
 * For `youtube.com/watch?v=<id>`, `youtube.com/shorts/<id>`, `youtube.com/live/<id>`,
 * `youtube.com/embed/<id>` and `youtu.be/<id>`:
 *
 * 1. The watch page `<read.youtube_url>/watch?v=<id>` is fetched like any page
 *    (robots.txt consulted, network policy applied) and its player response
 *    (`var ytInitialPlayerResponse = {…}`) is read: `videoDetails` (title,
 *    author, description, length), `microformat.playerMicroformatRenderer.publishDate`
 *    and `captions.playerCaptionsTracklistRenderer.captionTracks[]` (`baseUrl`,
 *    `languageCode`, `name`, `kind: "asr"` for automatic captions), the shape
 *    youtube-transcript-api reads
 *    (https://github.com/jdepoix/youtube-transcript-api/blob/master/youtube_transcript_api/_transcripts.py).
 * 2. A track is picked: the first of `read.youtube_languages` (and the URL's
 *    `hl`) that has one, a manual track before an automatic one; else the
 *    first manual track; else the first automatic one.
 * 3. Its timed text is fetched from the track's `baseUrl`, re-based onto
 *    `read.youtube_url`, robots.txt consulted again. The formats YouTube
 *    serves (yt-dlp's `_SUBTITLE_FORMATS`,
 *    https://github.com/yt-dlp/yt-dlp/blob/master/yt_dlp/extractor/youtube/_video.py)
 *    that are read here: the default/srv1 XML `<transcript><text start dur>`
 *    (text HTML-escaped inside the XML), srv3 `<timedtext format="3"><body><p t d>`
 *    (word segments in `<s>`) and json3 `{"events":[{"tStartMs","dDurationMs","segs":[{"utf8"}]}]}`.
 * 4. The page is the title, a line naming the channel and the captions, the
 *    description, and the transcript, grouped in lines of about 30 seconds,
 *    each starting with `[mm:ss]` (`read.youtube_timestamps`).
 *
 * The tier passes (`undefined`, the generic tiers read the watch page) when
 * the video has no captions, when YouTube's robots.txt refuses the timed-text
 * path (it disallows `/api/` for every agent, so with `network.respect_robots`
 * on, transcripts are read only where a mirror allows them or the operator set
 * `read.youtube_ignore_robots`, which skips robots.txt for this tier's requests only),
 * when the track needs a proof-of-origin token (`exp=xpe` in its URL) or
 * comes back empty. An unavailable video is `not_found`; a captcha page is
 * `rate_limited`.
 *
 * @module
 */
import { runPaced, type Steps } from "../../async/pace.ts";
import { GleanerError } from "../../errors.ts";
import { getGleanerLogger } from "../../log.ts";
import type { FetchedResponse } from "../../net/types.ts";
import { safeEndpoint } from "../../config/redact.ts";
import { markdownPage } from "./markdown_source.ts";
import { assertPageStatus } from "../status.ts";
import type { Page, ReadRequest, Tier } from "../types.ts";
import { defineTier, type TierContext, type TierSlice } from "./define.ts";

/** The settings this tier reads. */
type YoutubeSettings = TierSlice<
  "youtube_url" | "youtube_ignore_robots" | "youtube_languages" | "youtube_timestamps"
>;

const log = getGleanerLogger("read", "youtube");

/** The public origin of watch pages (provenance of every page this tier produces). */
const PUBLIC_ORIGIN = "https://www.youtube.com";

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const YOUTUBE_HOSTS = new Set(["youtube.com", "www.youtube.com", "m.youtube.com"]);

/** Largest part of a watch page scanned for the player response (characters). */
const YOUTUBE_MAX_PLAYER_CHARS = 4_000_000;
/**
 * Most cues read from one timed-text track.
 *
 * @internal exported for tests only
 */
export const YOUTUBE_MAX_CUES = 20_000;
/** Most characters of the video description kept. */
const YOUTUBE_MAX_DESCRIPTION_CHARS = 5_000;
/** Seconds of speech gathered on one transcript line. */
const LINE_SECONDS = 30;

/** One caption cue. */
export interface Cue {
  /** Start (seconds). */
  start: number;
  /** Text, entities decoded, tags removed. */
  text: string;
}

/**
 * The video ID a YouTube URL names, or `undefined`.
 *
 * @example
 * ```ts
 * import { youtubeVideoId } from "./youtube.ts";
 * console.assert(youtubeVideoId(new URL("https://youtu.be/dQw4w9WgXcQ?t=3")) === "dQw4w9WgXcQ");
 * console.assert(youtubeVideoId(new URL("https://www.youtube.com/shorts/dQw4w9WgXcQ")) === "dQw4w9WgXcQ");
 * console.assert(youtubeVideoId(new URL("https://www.youtube.com/results?q=x")) === undefined);
 * ```
 *
 * @internal exported for tests only
 */
export function youtubeVideoId(url: URL): string | undefined {
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  const host = url.hostname.toLowerCase();
  let id: string | null | undefined;
  if (host === "youtu.be") {
    id = url.pathname.split("/")[1];
  } else if (YOUTUBE_HOSTS.has(host)) {
    const [, first, second] = url.pathname.split("/");
    if (first === "watch") id = url.searchParams.get("v");
    else if (first === "shorts" || first === "live" || first === "embed") id = second;
  }
  return id && VIDEO_ID.test(id) ? id : undefined;
}

/** Decodes XML/HTML character references (named ones YouTube uses, and numeric). */
function decodeEntities(text: string): string {
  return text.replace(
    /&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,6});/g,
    (whole, body: string) => {
      if (body[0] === "#") {
        const code = body[1] === "x" || body[1] === "X"
          ? parseInt(body.slice(2), 16)
          : parseInt(body.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return NAMED[body] ?? whole;
    },
  );
}

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/** Cue text: entities decoded (twice for the HTML-inside-XML of srv1), tags gone, spaces tidied. */
function cueText(raw: string, times: 1 | 2): string {
  let text = decodeEntities(raw);
  if (times === 2) text = decodeEntities(text.replace(/<[^>]{0,200}>/g, ""));
  return text.replace(/<[^>]{0,200}>/g, "").replace(/\s+/g, " ").trim();
}

function attribute(attributes: string, name: string): string | undefined {
  const m = attributes.match(new RegExp(`\\b${name}="([^"]*)"`));
  return m?.[1];
}

/** Longest start tag read (characters): attributes past it are ignored. */
const MAX_TAG_CHARS = 1_000;

/**
 * The `<tag …>inner</tag>` elements of `body`, in order, found with
 * `indexOf` so that hostile input (unclosed tags, no `>`) costs linear time.
 */
function* elements(body: string, tag: string): Generator<{ attributes: string; inner: string }> {
  const open = `<${tag}`;
  const close = `</${tag}>`;
  let at = body.indexOf(open);
  while (at >= 0) {
    const next = body.charAt(at + open.length);
    if (next !== ">" && next !== " " && next !== "\t" && next !== "\n" && next !== "\r") {
      at = body.indexOf(open, at + open.length);
      continue;
    }
    const tagEnd = body.indexOf(">", at + open.length);
    if (tagEnd < 0) return;
    const end = body.indexOf(close, tagEnd + 1);
    if (end < 0) return;
    yield {
      attributes: body.slice(at + open.length, Math.min(tagEnd, at + open.length + MAX_TAG_CHARS)),
      inner: body.slice(tagEnd + 1, end),
    };
    at = body.indexOf(open, end + close.length);
  }
}

/**
 * Reads a timed-text body in any of the formats this tier asks for
 * (json3, srv3, srv1/default XML), at most {@link YOUTUBE_MAX_CUES} cues.
 *
 * @example
 * ```ts
 * import { parseTimedText } from "./youtube.ts";
 * const xml = '<transcript><text start="1.5" dur="2">It&amp;#39;s here</text></transcript>';
 * console.assert(parseTimedText(xml)[0].text === "It's here");
 * const json = '{"events":[{"tStartMs":2000,"segs":[{"utf8":"a"},{"utf8":" b"}]}]}';
 * console.assert(parseTimedText(json)[0].start === 2);
 * ```
 *
 * @internal exported for tests only
 */
export function parseTimedText(body: string): Cue[] {
  const text = body.trimStart();
  const cues: Cue[] = [];
  const push = (start: number, value: string) => {
    if (cues.length >= YOUTUBE_MAX_CUES || !Number.isFinite(start) || !value) return;
    cues.push({ start: Math.max(0, start), text: value });
  };
  if (text.startsWith("{")) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return [];
    }
    const events = (data as { events?: unknown }).events;
    if (!Array.isArray(events)) return [];
    for (const event of events) {
      if (cues.length >= YOUTUBE_MAX_CUES) break;
      const e = event as { tStartMs?: unknown; segs?: unknown; aAppend?: unknown };
      if (!Array.isArray(e.segs) || typeof e.tStartMs !== "number") continue;
      const joined = e.segs.map((s) => typeof s?.utf8 === "string" ? s.utf8 : "").join("");
      push(e.tStartMs / 1000, joined.replace(/\s+/g, " ").trim());
    }
    return cues;
  }
  if (/^(<\?xml[^>]*>\s*)?<timedtext\b/.test(text)) {
    for (const p of elements(text, "p")) {
      if (cues.length >= YOUTUBE_MAX_CUES) break;
      push(Number(attribute(p.attributes, "t")) / 1000, cueText(p.inner, 1));
    }
    return cues;
  }
  for (const t of elements(text, "text")) {
    if (cues.length >= YOUTUBE_MAX_CUES) break;
    push(Number(attribute(t.attributes, "start")), cueText(t.inner, 2));
  }
  return cues;
}

/**
 * `[m:ss]`, or `[h:mm:ss]` past an hour (minutes padded to two digits as `mm:ss`).
 *
 * @example
 * ```ts
 * import { formatTimestamp } from "./youtube.ts";
 * console.assert(formatTimestamp(65) === "[01:05]");
 * console.assert(formatTimestamp(3725) === "[1:02:05]");
 * ```
 *
 * @internal exported for tests only
 */
export function formatTimestamp(seconds: number): string {
  const total = Math.floor(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(2, "0");
  const ss = String(s).padStart(2, "0");
  return h > 0 ? `[${h}:${mm}:${ss}]` : `[${mm}:${ss}]`;
}

/** Transcript lines of about {@link LINE_SECONDS} seconds each. */
function transcriptLines(cues: readonly Cue[], timestamps: boolean): string[] {
  const lines: string[] = [];
  let start = -Infinity;
  let words: string[] = [];
  const flush = () => {
    if (words.length === 0) return;
    const text = words.join(" ");
    lines.push(timestamps ? `${formatTimestamp(start)} ${text}` : text);
    words = [];
  };
  for (const cue of cues) {
    if (words.length === 0 || cue.start - start >= LINE_SECONDS) {
      flush();
      start = cue.start;
    }
    words.push(cue.text);
  }
  flush();
  return lines;
}

/** A caption track of the player response. */
interface CaptionTrack {
  baseUrl: string;
  languageCode: string;
  name: string;
  asr: boolean;
}

function trackName(name: unknown): string {
  const n = name as { simpleText?: unknown; runs?: { text?: unknown }[] } | undefined;
  if (typeof n?.simpleText === "string") return n.simpleText;
  if (Array.isArray(n?.runs)) {
    return n.runs.map((r) => typeof r?.text === "string" ? r.text : "").join("");
  }
  return "";
}

function captionTracks(player: Record<string, unknown>): CaptionTrack[] {
  const renderer = (player.captions as Record<string, unknown> | undefined)
    ?.playerCaptionsTracklistRenderer as { captionTracks?: unknown } | undefined;
  if (!Array.isArray(renderer?.captionTracks)) return [];
  const tracks: CaptionTrack[] = [];
  for (const raw of renderer.captionTracks.slice(0, 200)) {
    const t = raw as Record<string, unknown>;
    if (typeof t?.baseUrl !== "string" || typeof t.languageCode !== "string") continue;
    tracks.push({
      baseUrl: t.baseUrl,
      languageCode: t.languageCode,
      name: trackName(t.name) || t.languageCode,
      asr: t.kind === "asr",
    });
  }
  return tracks;
}

/**
 * The track to read: the first wanted language that has one (manual before
 * automatic; `en` also matches `en-GB`), else the first manual, else the
 * first automatic track.
 *
 * @example
 * ```ts
 * import { pickTrack } from "./youtube.ts";
 * const tracks = [
 *   { baseUrl: "a", languageCode: "en", name: "English (auto-generated)", asr: true },
 *   { baseUrl: "b", languageCode: "de", name: "German", asr: false },
 * ];
 * console.assert(pickTrack(tracks, [])?.baseUrl === "b");
 * console.assert(pickTrack(tracks, ["en"])?.baseUrl === "a");
 * ```
 *
 * @internal exported for tests only
 */
export function pickTrack<T extends { languageCode: string; asr: boolean }>(
  tracks: readonly T[],
  languages: readonly string[],
): T | undefined {
  const matches = (code: string, want: string) => {
    const c = code.toLowerCase();
    const w = want.toLowerCase();
    return c === w || c.startsWith(`${w}-`);
  };
  for (const want of languages) {
    const found = tracks.find((t) => !t.asr && matches(t.languageCode, want)) ??
      tracks.find((t) => t.asr && matches(t.languageCode, want));
    if (found) return found;
  }
  return tracks.find((t) => !t.asr) ?? tracks[0];
}

/**
 * The JSON object assigned to `name` in a page's script (`name = {…}`), found
 * by scanning braces outside strings, at most {@link YOUTUBE_MAX_PLAYER_CHARS}
 * characters, pausing between slices so other work keeps running.
 */
function* scanAssignedObject(html: string, name: string): Steps<string | undefined> {
  const at = html.search(new RegExp(`\\b${name}\\s*=\\s*\\{`));
  if (at < 0) return undefined;
  const begin = html.indexOf("{", at);
  const end = Math.min(html.length, begin + YOUTUBE_MAX_PLAYER_CHARS);
  let depth = 0;
  let inString = false;
  for (let i = begin; i < end; i++) {
    if ((i - begin) % 65_536 === 65_535) yield;
    const c = html.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 /* { */) depth++;
    else if (c === 125 /* } */ && --depth === 0) return html.slice(begin, i + 1);
  }
  return undefined;
}

/** The player response of a watch page, or `undefined` when there is none to read. */
async function playerResponse(html: string): Promise<Record<string, unknown> | undefined> {
  const json = await runPaced(scanAssignedObject(html, "ytInitialPlayerResponse"));
  if (!json) return undefined;
  try {
    const value = JSON.parse(json);
    return value && typeof value === "object" ? value as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

function trimBase(base: string): string {
  return base.replace(/\/+$/, "");
}

/**
 * The timed-text URL of a track on the configured base, or `undefined` when
 * the track's URL is not on a YouTube host.
 */
function timedTextUrl(baseUrl: string, base: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl, PUBLIC_ORIGIN);
  } catch {
    return undefined;
  }
  if (!YOUTUBE_HOSTS.has(url.hostname.toLowerCase()) && url.origin !== new URL(base).origin) {
    return undefined;
  }
  return `${trimBase(base)}${url.pathname}${url.search}`;
}

/**
 * Fetches one URL of the tier through the guarded fetcher, robots.txt consulted unless the
 * operator set `read.youtube_ignore_robots` (the tier's own paths only: other tiers keep it).
 */
async function fetchYoutube(
  endpoint: string,
  request: ReadRequest,
  context: TierContext<YoutubeSettings>,
  headers: Record<string, string> = {},
): Promise<FetchedResponse> {
  return await context.fetcher.fetch(endpoint, {
    signal: request.signal,
    robots: !context.config.read.youtube_ignore_robots,
    headers,
  });
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

/** The watch page, with YouTube's consent interstitial answered once (as youtube-transcript-api does). */
async function watchPage(
  endpoint: string,
  where: string,
  request: ReadRequest,
  context: TierContext<YoutubeSettings>,
): Promise<string> {
  let response = await fetchYoutube(endpoint, request, context, { "accept-language": "en" });
  assertPageStatus(response.status, where);
  let html = response.text();
  if (html.includes('action="https://consent.youtube.com/s"')) {
    const v = html.match(/name="v" value="([^"]{1,200})"/)?.[1];
    if (v) {
      response = await fetchYoutube(endpoint, request, context, {
        "accept-language": "en",
        cookie: `CONSENT=YES+${v}`,
      });
      assertPageStatus(response.status, where);
      html = response.text();
    }
  }
  return html;
}

async function readVideo(
  id: string,
  url: URL,
  request: ReadRequest,
  context: TierContext<YoutubeSettings>,
): Promise<Page | undefined> {
  const settings = context.config.read;
  const base = trimBase(settings.youtube_url);
  const publicUrl = `${PUBLIC_ORIGIN}/watch?v=${id}`;
  const where = safeEndpoint(url);
  const html = await watchPage(`${base}/watch?v=${id}`, where, request, context);
  const player = await playerResponse(html);
  if (!player) {
    if (html.includes('class="g-recaptcha"')) {
      throw new GleanerError("rate_limited", `YouTube asked for a captcha reading ${where}`);
    }
    log.debug("no player response in the watch page of {url}", { url: where });
    return undefined;
  }
  const playability = player.playabilityStatus as { status?: unknown } | undefined;
  if (playability?.status === "ERROR") {
    throw new GleanerError("not_found", `YouTube video ${id} is unavailable`);
  }
  const tracks = captionTracks(player);
  const languages = [url.searchParams.get("hl") ?? "", ...settings.youtube_languages].filter(
    Boolean,
  );
  const track = pickTrack(tracks, languages);
  if (!track) {
    log.debug("no captions for {url}", { url: where });
    return undefined;
  }
  const endpoint = timedTextUrl(track.baseUrl, base);
  if (!endpoint || /[?&]exp=(xpe|xpv)\b/.test(endpoint)) {
    log.debug("caption track of {url} is not readable without a player token", { url: where });
    return undefined;
  }
  let response: FetchedResponse;
  try {
    response = await fetchYoutube(endpoint, request, context, { accept: "*/*" });
  } catch (error) {
    if (error instanceof GleanerError && error.code === "robots_disallowed") {
      log.debug("robots.txt refuses the timed text of {url}", { url: where });
      return undefined;
    }
    throw error;
  }
  if (response.status === 429) {
    throw new GleanerError("rate_limited", `YouTube is rate limiting captions of ${where} (429)`);
  }
  assertPageStatus(response.status, `captions of ${where}`);
  const cues = parseTimedText(response.text());
  if (cues.length === 0) {
    log.debug("empty caption track for {url}", { url: where });
    return undefined;
  }
  const details = (player.videoDetails ?? {}) as Record<string, unknown>;
  const micro = ((player.microformat as Record<string, unknown> | undefined)
    ?.playerMicroformatRenderer ?? {}) as Record<string, unknown>;
  const title = str(details.title) ?? str(html.match(/<title>([^<]{1,500})<\/title>/)?.[1]) ??
    `YouTube video ${id}`;
  const author = str(details.author);
  const description = str(details.shortDescription)?.slice(0, YOUTUBE_MAX_DESCRIPTION_CHARS);
  const published = str(micro.publishDate);
  const seconds = Number(details.lengthSeconds);
  const about = [
    author ? `Video by ${author}` : "Video",
    Number.isFinite(seconds) && seconds > 0
      ? `length ${formatTimestamp(seconds).slice(1, -1)}`
      : "",
    `captions: ${track.name}${track.asr && !/auto/i.test(track.name) ? " (automatic)" : ""}`,
  ].filter(Boolean).join(", ");
  const parts = [`${about}.`];
  // Plain text: a line that starts with `#` must not become a heading of the page.
  if (description) parts.push(`## Description\n\n${description.replace(/^(\s*)#/gm, "$1\\#")}`);
  parts.push(`## Transcript\n\n${transcriptLines(cues, settings.youtube_timestamps).join("\n")}`);
  return markdownPage({
    url: request.url,
    finalUrl: publicUrl,
    canonical: publicUrl,
    title,
    markdown: parts.join("\n\n"),
    tier: "youtube",
    mediaType: response.mediaType,
    lang: track.languageCode,
    ...(published ? { published } : {}),
    ...(author ? { byline: author } : {}),
  });
}

/**
 * The YouTube tier.
 *
 * @example
 * ```ts ignore
 * import { createReader } from "../cascade.ts";
 * import { httpTier } from "./http.ts";
 * import { youtubeTier } from "./youtube.ts";
 * const reader = createReader({ config, fetcher, tiers: [youtubeTier, httpTier] });
 * const page = await reader.read({ url: "https://youtu.be/dQw4w9WgXcQ" });
 * console.log(page.tier); // "youtube" when the video has readable captions, else "http"
 * ```
 */
export const youtubeTier: Tier = defineTier({
  settings: {
    read: ["youtube_url", "youtube_ignore_robots", "youtube_languages", "youtube_timestamps"],
  },
  name: "youtube",
  scope: "shared",
  canHandle: (url, request) => request.render !== "always" && youtubeVideoId(url) !== undefined,
  async read(
    url: URL,
    request: ReadRequest,
    context: TierContext<YoutubeSettings>,
  ): Promise<Page | undefined> {
    const id = youtubeVideoId(url);
    return id ? await readVideo(id, url, request, context) : undefined;
  },
});
