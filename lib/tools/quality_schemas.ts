/**
 * The search-quality arguments the search tools share (`domain_profile`,
 * `expand`) and the shape of a generated summary. A tool list built for a
 * configuration (`toolsFor`) offers only what that configuration serves: the
 * profile names it defines as an enum, and `expand` only with a language
 * model; the library's static definitions accept any name and check it on
 * the call.
 *
 * @module
 */
import { z } from "zod";
import type { Config } from "../config/config.ts";
import { domainProfileNames } from "../search/domain_profiles.ts";
import { llmConfigured } from "../search/llm.ts";

const PROFILE_HELP = "Raise a profile's preferred domains, drop its excluded ones";
const EXPAND_HELP = "Rewrite the query with the language model first";

/** The quality arguments' shape, as the static (library) definitions type it. */
export interface QualityShape {
  /** `domain_profile` */
  domain_profile: z.ZodOptional<z.ZodString>;
  /** `expand` */
  expand: z.ZodOptional<z.ZodBoolean>;
}

/**
 * What a configuration changes in the quality arguments, and all it changes: the names of its
 * domain profiles, and whether a language model is set (`expand`).
 */
export interface QualityFacts {
  /** The configuration's domain profile names, sorted. */
  profiles: string[];
  /** A language model is configured: `expand` is offered. */
  expand: boolean;
}

/**
 * The {@link QualityFacts} of a configuration.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { qualityFacts } from "./quality_schemas.ts";
 * const facts = qualityFacts(parseConfig({}));
 * console.assert(facts.profiles.includes("dev") && !facts.expand);
 * ```
 */
export function qualityFacts(config: Config): QualityFacts {
  return { profiles: domainProfileNames(config), expand: llmConfigured(config) };
}

/**
 * The quality arguments: for a configuration's facts, `domain_profile` as the
 * enum of its profiles and `expand` only when a language model is set;
 * without them, both loosely typed (checked on the call).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { qualityFacts, qualityShape } from "./quality_schemas.ts";
 * const shape = qualityShape(qualityFacts(parseConfig({})));
 * console.assert(shape.domain_profile.safeParse("dev").success);
 * console.assert(!Object.keys(shape).includes("expand"), "no model, no expand");
 * ```
 */
export function qualityShape(facts?: QualityFacts): QualityShape {
  if (!facts) {
    return {
      domain_profile: z.string().min(1).max(32).optional().describe(PROFILE_HELP),
      expand: z.boolean().optional().describe(EXPAND_HELP),
    };
  }
  const profile = z.enum(facts.profiles as [string, ...string[]]).optional().describe(
    PROFILE_HELP,
  );
  // The enum's output is a string: the loose type holds for both.
  const shape = { domain_profile: profile as unknown as z.ZodOptional<z.ZodString> };
  return (facts.expand
    ? { ...shape, expand: z.boolean().optional().describe(EXPAND_HELP) }
    : shape) as QualityShape;
}

/** A summary written by the language model: marked as generated, never evidence. */
export const SummarySchema: z.ZodObject<{
  text: z.ZodString;
  generated: z.ZodLiteral<true>;
  model: z.ZodString;
}, z.core.$strip> = z.object({
  text: z.string().describe("The model's summary of the evidence (generated text, not a source)"),
  generated: z.literal(true).describe("Always true: this text was generated, not read"),
  model: z.string().describe("The model that wrote it"),
});
