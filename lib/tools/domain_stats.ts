/**
 * The `domain_stats` tool: what Gleaner remembers about reading each origin.
 *
 * @module
 */
import { z } from "zod";
import { type DomainCapabilities, type DomainRecord, normalizeOrigin } from "../store/types.ts";
import { defineTool, type ToolSpec } from "./spec.ts";

const Counts = z.object({
  attempts: z.number().int(),
  successes: z.number().int(),
  failures: z.number().int(),
  success_rate: z.number().nullable(),
});

const TierState = Counts.extend({
  consecutive_failures: z.number().int(),
  skipped_until: z.string().optional(),
  low_success_rate: z.boolean().optional(),
});

const Share = z.object({
  sampled: z.number().int(),
  present: z.number().int(),
  rate: z.number(),
});

/** An origin's capabilities as `domain_stats` shows them (see `lib/store/capabilities.ts`). */
const CapabilitiesShown: z.ZodType<DomainCapabilities> = z.object({
  metadata_fetch: z.object({ ok: z.boolean(), checked_at: z.string() }).optional(),
  json_ld_article: Share.optional(),
  og_title: Share.optional(),
  llms_full_txt: z.object({
    present: z.boolean(),
    size_bytes: z.number().int().optional(),
    last_checked: z.string(),
  }).optional(),
  preferred_strategy: z.object({ tier: z.string(), at: z.string() }).optional(),
});

/** One origin as `domain_stats` shows it. */
export const OriginStats: z.ZodObject<{
  origin: z.ZodString;
  host: z.ZodString;
  window_days: z.ZodNumber;
  tiers: z.ZodRecord<
    z.ZodString,
    z.ZodObject<{
      attempts: z.ZodNumber;
      successes: z.ZodNumber;
      failures: z.ZodNumber;
      success_rate: z.ZodNullable<z.ZodNumber>;
      consecutive_failures: z.ZodNumber;
      skipped_until: z.ZodOptional<z.ZodString>;
      low_success_rate: z.ZodOptional<z.ZodBoolean>;
    }, z.core.$strip>
  >;
  window: z.ZodEnum<{ current: "current"; expired: "expired"; no_reads: "no_reads" }>;
  last_failure: z.ZodOptional<
    z.ZodObject<{
      tier: z.ZodString;
      reason: z.ZodString;
      at: z.ZodString;
    }, z.core.$strip>
  >;
  robots: z.ZodOptional<
    z.ZodObject<{
      state: z.ZodString;
      checked_at: z.ZodString;
    }, z.core.$strip>
  >;
  llms_txt: z.ZodOptional<
    z.ZodObject<{
      exists: z.ZodBoolean;
      checked_at: z.ZodString;
    }, z.core.$strip>
  >;
  seen_in_search: z.ZodOptional<
    z.ZodObject<{
      count: z.ZodNumber;
      last_at: z.ZodString;
    }, z.core.$strip>
  >;
  capabilities: z.ZodOptional<z.ZodType<DomainCapabilities>>;
  attempts: z.ZodNumber;
  successes: z.ZodNumber;
  failures: z.ZodNumber;
  success_rate: z.ZodNullable<z.ZodNumber>;
}, z.core.$strip> = z.object({
  origin: z.string(),
  host: z.string(),
  window_days: z.number().int(),
  tiers: z.record(z.string(), TierState),
  /**
   * `current`: reads counted in the window; `expired`: the origin was read before, but every
   * count is older than the window (apart from an origin never read, which is not listed);
   * `no_reads`: only robots.txt or llms.txt was checked, or it was only seen in search results.
   */
  window: z.enum(["current", "expired", "no_reads"]),
  last_failure: z.object({ tier: z.string(), reason: z.string(), at: z.string() }).optional(),
  robots: z.object({ state: z.string(), checked_at: z.string() }).optional(),
  llms_txt: z.object({ exists: z.boolean(), checked_at: z.string() }).optional(),
  seen_in_search: z.object({ count: z.number().int(), last_at: z.string() }).optional(),
  capabilities: CapabilitiesShown.optional(),
}).extend(Counts.shape);

/** Output of `domain_stats`. */
export const DomainStatsOutput: z.ZodObject<{
  origins: z.ZodOptional<
    z.ZodArray<
      typeof OriginStats
    >
  >;
  summary: z.ZodOptional<
    z.ZodArray<
      z.ZodObject<{
        attempts: z.ZodNumber;
        successes: z.ZodNumber;
        failures: z.ZodNumber;
        success_rate: z.ZodNullable<z.ZodNumber>;
        origin: z.ZodString;
      }, z.core.$strip>
    >
  >;
}, z.core.$strip> = z.object({
  origins: z.array(OriginStats).optional(),
  summary: z.array(Counts.extend({ origin: z.string() })).optional(),
});

/** The tool definition. */
export const domainStatsTool: ToolSpec<
  z.ZodObject<{
    domain: z.ZodOptional<z.ZodString>;
    limit: z.ZodDefault<z.ZodNumber>;
  }, z.core.$strict>,
  typeof DomainStatsOutput
> = defineTool({
  name: "domain_stats",
  scope: "tenant",
  title: "Domain reading memory",
  description:
    "What Gleaner remembers about reading a site, per origin: successes per reading tier (30 days), tiers skipped and until when, last failure, robots.txt, llms.txt. clear_cache target domains forgets it.",
  input: z.strictObject({
    domain: z.string().min(1).max(300).optional().describe(
      "A host (each of its origins) or an origin; omit for the most-read origins",
    ),
    limit: z.number().int().min(1).max(200).default(20),
  }),
  output: DomainStatsOutput,
  http: { path: "/v1/domains" },
  readOnly: true,
  openWorld: false,
  handler: async (input, { gleaner }) => {
    const domains = gleaner.store.domains;
    // Loaded on the first call: listing the tool needs no hashing (`node:crypto`).
    const { memoryPolicy } = await import("../read/outcomes.ts");
    // Probation is shown as it applies to this instance's settings.
    const scope = { policy: memoryPolicy(gleaner.config) };
    const shown = (record: DomainRecord) => ({
      ...record,
      window: record.attempts > 0
        ? "current" as const
        : record.last_failure || Object.keys(record.tiers).length > 0
        ? "expired" as const
        : "no_reads" as const,
    });
    if (input.domain?.includes("://")) {
      const record = await domains.get(normalizeOrigin(input.domain), scope);
      return { origins: record ? [shown(record)] : [] };
    }
    if (input.domain) {
      return { origins: (await domains.forHost(input.domain, scope)).map(shown) };
    }
    return { summary: await domains.summary({ limit: input.limit }) };
  },
  render: (out) => {
    if (out.summary) {
      if (out.summary.length === 0) return "No sites read yet.";
      return out.summary.map((d) =>
        `${d.origin}: ${d.successes}/${d.attempts} ok` +
        (d.success_rate === null ? "" : ` (${Math.round(d.success_rate * 100)}%)`)
      ).join("\n");
    }
    if (!out.origins?.length) return "Nothing recorded for this site.";
    return out.origins.map((d) =>
      [
        d.window === "expired"
          ? `${d.origin}: no reads in the last ${d.window_days} days (older counts expired)`
          : `${d.origin} (last ${d.window_days} days): ${d.successes}/${d.attempts} ok`,
        ...Object.entries(d.tiers).filter(([, c]) => c.attempts > 0 || c.skipped_until).map((
          [tier, c],
        ) =>
          `  ${tier}: ${c.successes}/${c.attempts} ok` +
          (c.skipped_until ? `, skipped until ${c.skipped_until}` : "") +
          (c.low_success_rate ? ", skipped: under 30 % success" : "")
        ),
        d.last_failure
          ? `last failure: ${d.last_failure.tier} ${d.last_failure.reason} at ${d.last_failure.at}`
          : "",
        d.robots ? `robots.txt: ${d.robots.state}` : "",
        d.llms_txt ? `llms.txt: ${d.llms_txt.exists ? "present" : "absent"}` : "",
        d.seen_in_search
          ? `seen in search results: ${d.seen_in_search.count} times, last ${d.seen_in_search.last_at}`
          : "",
        d.capabilities ? capabilitiesLine(d.capabilities) : "",
      ].filter(Boolean).join("\n")
    ).join("\n\n");
  },
});

/** One line of what an origin can do. */
function capabilitiesLine(c: DomainCapabilities): string {
  const pct = (rate: number) => `${Math.round(rate * 100)}%`;
  return "capabilities: " + [
    c.preferred_strategy ? `preferred ${c.preferred_strategy.tier}` : "",
    c.metadata_fetch ? `metadata fetch ${c.metadata_fetch.ok ? "ok" : "fails"}` : "",
    c.json_ld_article
      ? `JSON-LD article ${pct(c.json_ld_article.rate)} of ${c.json_ld_article.sampled}`
      : "",
    c.og_title ? `og:title ${pct(c.og_title.rate)} of ${c.og_title.sampled}` : "",
    c.llms_full_txt
      ? `llms-full.txt ${
        c.llms_full_txt.present ? `${c.llms_full_txt.size_bytes} bytes` : "absent"
      }`
      : "",
  ].filter(Boolean).join(", ");
}
