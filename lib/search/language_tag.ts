/**
 * The parts of a BCP 47 language tag that providers' vocabularies use: the
 * primary language, the script and the region (`zh-Hant-TW` → `zh`, `hant`,
 * `TW`). Underscores are read as hyphens (`pt_BR`), case is folded, and
 * anything else in the tag (variants, extensions) is ignored.
 *
 * @example
 * ```ts
 * import { parseLanguageTag } from "./language_tag.ts";
 * const tag = parseLanguageTag("zh_Hant-tw");
 * console.assert(tag.language === "zh" && tag.script === "hant" && tag.region === "TW");
 * console.assert(parseLanguageTag("en").region === undefined);
 * ```
 *
 * @module
 */

/** A language tag's parts, lower-case language and script, upper-case region. */
export interface LanguageTag {
  /** The primary language subtag (`pt`), or `""` for an empty tag. */
  language: string;
  /** The four-letter script subtag (`hant`), when present. */
  script?: string;
  /** The two-letter region subtag (`BR`), when present. */
  region?: string;
}

/** Splits a BCP 47 tag into the parts providers map (see the module doc). */
export function parseLanguageTag(tag: string): LanguageTag {
  const [language = "", ...rest] = tag.trim().replace(/_/g, "-").toLowerCase().split("-")
    .filter(Boolean);
  const script = rest.find((part) => /^[a-z]{4}$/.test(part));
  const region = rest.find((part) => /^[a-z]{2}$/.test(part))?.toUpperCase();
  return {
    language,
    ...(script ? { script } : {}),
    ...(region ? { region } : {}),
  };
}
