/**
 * The `domain_stats` tool: what Gleaner remembers about reading each domain.
 *
 * @module
 */
import { z } from "zod";
import { defineTool, type ToolSpec } from "./spec.ts";

const Counts: z.ZodObject<{
  attempts: z.ZodNumber;
  successes: z.ZodNumber;
  failures: z.ZodNumber;
  success_rate: z.ZodNullable<z.ZodNumber>;
}, z.core.$strip> = z.object({
  attempts: z.number().int(),
  successes: z.number().int(),
  failures: z.number().int(),
  success_rate: z.number().nullable(),
});

/** Output of `domain_stats`. */
export const DomainStatsOutput: z.ZodObject<{
  domain: z.ZodOptional<
    z.ZodObject<{
      domain: z.ZodString;
      window_days: z.ZodNumber;
      tiers: z.ZodRecord<
        z.ZodString,
        z.ZodObject<{
          attempts: z.ZodNumber;
          successes: z.ZodNumber;
          failures: z.ZodNumber;
          success_rate: z.ZodNullable<z.ZodNumber>;
        }, z.core.$strip>
      >;
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
      attempts: z.ZodNumber;
      successes: z.ZodNumber;
      failures: z.ZodNumber;
      success_rate: z.ZodNullable<z.ZodNumber>;
    }, z.core.$strip>
  >;
  summary: z.ZodOptional<
    z.ZodArray<
      z.ZodObject<{
        attempts: z.ZodNumber;
        successes: z.ZodNumber;
        failures: z.ZodNumber;
        success_rate: z.ZodNullable<z.ZodNumber>;
        domain: z.ZodString;
      }, z.core.$strip>
    >
  >;
}, z.core.$strip> = z.object({
  domain: z.object({
    domain: z.string(),
    window_days: z.number().int(),
    tiers: z.record(z.string(), Counts),
    last_failure: z.object({ tier: z.string(), reason: z.string(), at: z.string() }).optional(),
    robots: z.object({ state: z.string(), checked_at: z.string() }).optional(),
    llms_txt: z.object({ exists: z.boolean(), checked_at: z.string() }).optional(),
  }).extend(Counts.shape).optional(),
  summary: z.array(Counts.extend({ domain: z.string() })).optional(),
});

/** The tool definition. */
export const domainStatsTool: ToolSpec<
  z.ZodObject<{
    domain: z.ZodOptional<z.ZodString>;
    limit: z.ZodDefault<z.ZodNumber>;
  }, z.core.$strip>,
  typeof DomainStatsOutput
> = defineTool({
  name: "domain_stats",
  title: "Domain reading memory",
  description:
    "Shows what Gleaner remembers about reading a domain over the last 30 days (attempts and success per reading tier, last failure, robots.txt, llms.txt), or a summary of the most-read domains when no domain is given.",
  input: z.object({
    domain: z.string().min(1).max(253).optional().describe(
      "A domain such as example.com; omit for a summary",
    ),
    limit: z.number().int().min(1).max(200).default(20).describe("Domains in the summary"),
  }),
  output: DomainStatsOutput,
  http: { path: "/v1/domains" },
  readOnly: true,
  openWorld: false,
  handler: async (input, { gleaner }) => {
    if (input.domain) return { domain: await gleaner.store.domains.get(input.domain) };
    return { summary: await gleaner.store.domains.summary({ limit: input.limit }) };
  },
  render: (out) => {
    if (out.summary) {
      if (out.summary.length === 0) return "No domains read yet.";
      return out.summary.map((d) =>
        `${d.domain}: ${d.successes}/${d.attempts} ok` +
        (d.success_rate === null ? "" : ` (${Math.round(d.success_rate * 100)}%)`)
      ).join("\n");
    }
    const d = out.domain;
    if (!d) return "Nothing recorded for this domain.";
    const tiers = Object.entries(d.tiers).map(([tier, c]) =>
      `  ${tier}: ${c.successes}/${c.attempts} ok`
    );
    return [
      `${d.domain} (last ${d.window_days} days): ${d.successes}/${d.attempts} ok`,
      ...tiers,
      d.last_failure
        ? `last failure: ${d.last_failure.tier} ${d.last_failure.reason} at ${d.last_failure.at}`
        : "",
      d.robots ? `robots.txt: ${d.robots.state}` : "",
      d.llms_txt ? `llms.txt: ${d.llms_txt.exists ? "present" : "absent"}` : "",
    ].filter(Boolean).join("\n");
  },
});
