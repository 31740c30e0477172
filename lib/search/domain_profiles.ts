/**
 * Domain profiles: named sets of preferred and excluded domains that a
 * search call picks with `domain_profile`. Two are built in (`dev`,
 * `homelab`); operators add their own, or replace a built-in one, under
 * `search.domain_profiles`. Preferred results are raised by the profile's
 * `boost`; excluded ones are dropped (and, for providers that take
 * exclusions natively, never asked for).
 *
 * @module
 */
import type { SearchSection } from "../config/sections.ts";
import { GleanerError } from "../errors.ts";
import { normalizeDomain } from "./domains.ts";

/** A profile as written in the configuration. */
export interface DomainProfileSettings {
  /** Domains whose results are raised. */
  prefer: readonly string[];
  /** Domains whose results are dropped. */
  exclude: readonly string[];
  /** How far a preferred result is raised (share of the score range). */
  boost: number;
}

/** A profile ready to apply: its name and normalised domains. */
export interface DomainProfile extends DomainProfileSettings {
  /** The profile's name. */
  name: string;
}

/** Content farms and scraped copies of developer Q&A: excluded by both built-in profiles. */
const CONTENT_FARMS = [
  "w3schools.blog",
  "geeksforgeeks.org",
  "javatpoint.com",
  "tutorialspoint.com",
  "codegrepper.com",
  "stackoverflow.in",
  "stackovernet.com",
  "stackoom.com",
  "stackguides.com",
  "programmerall.com",
  "codeleading.com",
  "ittone.ma",
  "exchangetuts.com",
  "solveforum.com",
  "pythonshowcase.com",
  "answerbun.com",
];

/**
 * The built-in profiles.
 *
 * - `dev`: official documentation, source hosts, Q&A and references a
 *   developer trusts first (MDN, GitHub, Stack Overflow, language and
 *   runtime docs); content farms and scraped copies excluded.
 * - `homelab`: self-hosting documentation and wikis (Arch Wiki, Proxmox,
 *   TrueNAS, Home Assistant, Docker, the selfhosted community); the same
 *   exclusions.
 */
const DOMAIN_PROFILE_PRESETS: Readonly<Record<string, DomainProfileSettings>> = {
  dev: {
    prefer: [
      "developer.mozilla.org",
      "github.com",
      "stackoverflow.com",
      "docs.python.org",
      "docs.deno.com",
      "nodejs.org",
      "doc.rust-lang.org",
      "go.dev",
      "pkg.go.dev",
      "docs.rs",
      "learn.microsoft.com",
      "kubernetes.io",
      "postgresql.org",
      "sqlite.org",
      "rfc-editor.org",
      "w3.org",
      "readthedocs.io",
      "npmjs.com",
      "jsr.io",
    ],
    exclude: CONTENT_FARMS,
    boost: 0.25,
  },
  homelab: {
    prefer: [
      "wiki.archlinux.org",
      "selfh.st",
      "awesome-selfhosted.net",
      "pve.proxmox.com",
      "forum.proxmox.com",
      "truenas.com",
      "home-assistant.io",
      "docs.docker.com",
      "docs.linuxserver.io",
      "wiki.debian.org",
      "help.ubuntu.com",
      "opnsense.org",
      "docs.netgate.com",
      "tailscale.com",
      "github.com",
    ],
    exclude: CONTENT_FARMS,
    boost: 0.25,
  },
};

/**
 * The names of the profiles a configuration offers: the built-in ones and
 * the operator's, sorted.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { domainProfileNames } from "./domain_profiles.ts";
 * const config = parseConfig({ search: { domain_profiles: { news: { prefer: ["apnews.com"] } } } });
 * console.assert(domainProfileNames(config).join() === "dev,homelab,news");
 * ```
 */
export function domainProfileNames(config: { search: SearchSection }): string[] {
  return [
    ...new Set([
      ...Object.keys(DOMAIN_PROFILE_PRESETS),
      ...Object.keys(config.search.domain_profiles),
    ]),
  ].sort();
}

/**
 * The profile `name` of a configuration with its domains normalised.
 * Throws `invalid_arguments` naming `domain_profile` (and the known names)
 * for an unknown name, or naming the setting for a malformed domain.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { resolveDomainProfile } from "./domain_profiles.ts";
 * const dev = resolveDomainProfile(parseConfig({}), "dev");
 * console.assert(dev.prefer.includes("developer.mozilla.org") && dev.boost === 0.25);
 * ```
 */
export function resolveDomainProfile(
  config: { search: SearchSection },
  name: string,
): DomainProfile {
  const own = Object.hasOwn(config.search.domain_profiles, name)
    ? config.search.domain_profiles[name]
    : undefined;
  const settings = own ??
    (Object.hasOwn(DOMAIN_PROFILE_PRESETS, name) ? DOMAIN_PROFILE_PRESETS[name] : undefined);
  if (!settings) {
    throw new GleanerError(
      "invalid_arguments",
      `domain_profile: "${String(name).slice(0, 40)}" is not a profile; use one of ${
        domainProfileNames(config).join(", ")
      }`,
      { details: { field: "domain_profile" } },
    );
  }
  const field = own ? `search.domain_profiles.${name}` : "domain_profile";
  return {
    name,
    prefer: [...new Set(settings.prefer.map((d) => normalizeDomain(d, `${field}.prefer`)))],
    exclude: [...new Set(settings.exclude.map((d) => normalizeDomain(d, `${field}.exclude`)))],
    boost: settings.boost,
  };
}
