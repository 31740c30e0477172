/**
 * Domain capabilities: what reads have shown an origin can do, kept beside
 * its tier counts by every domain-memory backend.
 *
 * - `metadata_fetch`: whether a cheap fetch of a page (the plain HTTP tier, no
 *   browser) gave its metadata (a title or description from the page's head);
 * - `json_ld_article`, `og_title`: of the first {@link CAPABILITY_SAMPLE_PAGES}
 *   HTML pages read on the origin, how many carried a JSON-LD Article-family
 *   node and an `og:title`;
 * - `llms_full_txt`: whether the origin has a `/llms-full.txt`, and its size
 *   in bytes (`size_bytes`), from the llms.txt tier's own fetch;
 * - `preferred_strategy`: the reading tier that last produced a page on the
 *   origin; the cascade tries it first there.
 *
 * Backends store them as flat fields (`cap_*` columns of `origin_info` in
 * SQLite, fields of the origin's info hash in Valkey), times in ms since the
 * epoch; {@link capabilitiesFromFields} turns those into the shape shown.
 *
 * @module
 */
import { z } from "zod";

/** HTML pages per origin sampled for `json_ld_article` and `og_title`. */
export const CAPABILITY_SAMPLE_PAGES = 20;

/** A share of the sampled pages. */
export interface SampledShare {
  /** Pages sampled. */
  sampled: number;
  /** Pages of those that had it. */
  present: number;
  /** present / sampled. */
  rate: number;
}

/** What reads have shown an origin can do (see the module's documentation). */
export interface DomainCapabilities {
  /** Whether the cheap fetch (plain HTTP) gave the page's metadata, when last tried. */
  metadata_fetch?: { ok: boolean; checked_at: string };
  /** Sampled pages with a JSON-LD Article-family node. */
  json_ld_article?: SampledShare;
  /** Sampled pages with an `og:title`. */
  og_title?: SampledShare;
  /** Whether `/llms-full.txt` exists, and its size in bytes when it does. */
  llms_full_txt?: { present: boolean; size_bytes?: number; last_checked: string };
  /** The tier that last produced a page here; the cascade tries it first. */
  preferred_strategy?: { tier: string; at: string };
}

/** What one read learnt, handed to `DomainStats.noteCapabilities`. */
export interface CapabilityFacts {
  /** One HTML page read: whether it had JSON-LD Article data and an `og:title`. */
  page?: { json_ld_article: boolean; og_title: boolean };
  /** Whether the plain HTTP fetch gave the page's metadata. */
  metadata_fetch?: boolean;
  /** Size of `/llms-full.txt` in bytes, `null` when absent. */
  llms_full_txt_bytes?: number | null;
  /** The tier that produced the page. */
  preferred_strategy?: string;
}

/** The stored fields, as snapshots carry them. */
export const CAPABILITY_FIELDS = [
  "cap_sampled",
  "cap_json_ld",
  "cap_og_title",
  "cap_meta_ok",
  "cap_meta_at",
  "cap_llms_full_bytes",
  "cap_llms_full_at",
  "cap_strategy",
  "cap_strategy_at",
] as const;

/** One stored field's name. */
export type CapabilityField = typeof CAPABILITY_FIELDS[number];

/** The stored fields of one origin (numbers, but `cap_strategy`, a tier name). */
export type CapabilityFields = Partial<Record<CapabilityField, number | string>>;

const int = z.number().int().min(-1).max(8.64e15);

/** Validation of the stored fields in a snapshot entry. */
export const CapabilityFieldsSchema: z.ZodType<CapabilityFields> = z.strictObject({
  cap_sampled: int.optional(),
  cap_json_ld: int.optional(),
  cap_og_title: int.optional(),
  cap_meta_ok: z.union([z.literal(0), z.literal(1)]).optional(),
  cap_meta_at: int.optional(),
  cap_llms_full_bytes: int.optional(),
  cap_llms_full_at: int.optional(),
  cap_strategy: z.string().regex(/^[a-z0-9_-]{1,32}$/).optional(),
  cap_strategy_at: int.optional(),
});

/** The stored fields present in a row or hash (nulls and empty strings dropped). */
export function pickCapabilityFields(
  row: Record<string, unknown> | undefined,
): CapabilityFields | undefined {
  if (!row) return undefined;
  const out: CapabilityFields = {};
  for (const field of CAPABILITY_FIELDS) {
    const value = row[field];
    if (value === null || value === undefined || value === "") continue;
    out[field] = field === "cap_strategy" ? String(value) : Number(value);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

const iso = (ms: number | string | undefined) => new Date(Number(ms)).toISOString();

function share(sampled: number, present: number): SampledShare {
  return { sampled, present, rate: sampled > 0 ? present / sampled : 0 };
}

/**
 * The capabilities shown for stored fields, `undefined` when none is known.
 *
 * @example
 * ```ts
 * import { capabilitiesFromFields } from "./capabilities.ts";
 * const caps = capabilitiesFromFields({ cap_sampled: 4, cap_json_ld: 1, cap_og_title: 4 });
 * console.assert(caps?.json_ld_article?.rate === 0.25 && caps?.og_title?.present === 4);
 * console.assert(capabilitiesFromFields({}) === undefined);
 * ```
 */
export function capabilitiesFromFields(
  fields: CapabilityFields | undefined,
): DomainCapabilities | undefined {
  if (!fields) return undefined;
  const caps: DomainCapabilities = {};
  const f = fields;
  if (f.cap_meta_ok !== undefined && f.cap_meta_at !== undefined) {
    caps.metadata_fetch = { ok: Number(f.cap_meta_ok) === 1, checked_at: iso(f.cap_meta_at) };
  }
  const sampled = Number(f.cap_sampled ?? 0);
  if (sampled > 0) {
    caps.json_ld_article = share(sampled, Number(f.cap_json_ld ?? 0));
    caps.og_title = share(sampled, Number(f.cap_og_title ?? 0));
  }
  if (f.cap_llms_full_bytes !== undefined && f.cap_llms_full_at !== undefined) {
    const bytes = Number(f.cap_llms_full_bytes);
    caps.llms_full_txt = bytes < 0
      ? { present: false, last_checked: iso(f.cap_llms_full_at) }
      : { present: true, size_bytes: bytes, last_checked: iso(f.cap_llms_full_at) };
  }
  if (f.cap_strategy !== undefined && f.cap_strategy_at !== undefined) {
    caps.preferred_strategy = { tier: String(f.cap_strategy), at: iso(f.cap_strategy_at) };
  }
  return Object.keys(caps).length > 0 ? caps : undefined;
}

/**
 * The fields one read sets outright (everything but the page sample, which
 * the backends count with {@link CAPABILITY_SAMPLE_PAGES} as the cap).
 */
export function capabilitySetFields(facts: CapabilityFacts, now: number): CapabilityFields {
  const out: CapabilityFields = {};
  if (facts.metadata_fetch !== undefined) {
    out.cap_meta_ok = facts.metadata_fetch ? 1 : 0;
    out.cap_meta_at = now;
  }
  if (facts.llms_full_txt_bytes !== undefined) {
    const bytes = facts.llms_full_txt_bytes;
    out.cap_llms_full_bytes = bytes === null ? -1 : Math.max(0, Math.floor(bytes));
    out.cap_llms_full_at = now;
  }
  if (facts.preferred_strategy !== undefined) {
    out.cap_strategy = facts.preferred_strategy;
    out.cap_strategy_at = now;
  }
  return out;
}
