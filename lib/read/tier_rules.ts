/**
 * Operator rules forcing reading tiers on or off per domain or path prefix,
 * from a JSON file (`read.tier_rules_path`):
 *
 * ```json
 * { "rules": [
 *   { "match": "example.com/docs/", "tiers": { "browser": true, "http": false } },
 *   { "match": "example.org", "tiers": { "wayback": false } }
 * ] }
 * ```
 *
 * `match` is a host (which also covers its subdomains and ignores `www.`)
 * optionally followed by a path prefix. For a URL and a tier, the longest
 * matching rule that names the tier decides; `undefined` means no rule does.
 * The file is checked for changes (mtime and size) at most once per second
 * and reloaded when it changed; a missing file means no rules. No file
 * watcher is kept, so nothing needs closing.
 *
 * @module
 */
import { z } from "zod";
import { GleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import { TIER_NAMES, type TierName } from "./types.ts";

const log = getGleanerLogger("read", "tier_rules");

/** How often the rules file is checked for changes, at most (ms). */
const TIER_RULES_CHECK_MS = 1000;

const RuleSchema = z.object({
  match: z.string().trim().min(1),
  tiers: z.partialRecord(z.enum(TIER_NAMES), z.boolean()),
});

const FileSchema = z.object({ rules: z.array(RuleSchema) });

/** One rule of the file. */
export interface TierRule {
  /** `host` or `host/path/prefix`. */
  match: string;
  /** Tiers forced on (`true`) or off (`false`). */
  tiers: Partial<Record<TierName, boolean>>;
}

/** A decision per URL and tier: `true` force on, `false` force off, `undefined` no rule. */
export type TierRuleFn = (url: URL, tier: TierName) => boolean | undefined;

/** Options of {@link createTierRules}. */
export interface TierRulesOptions {
  /** Clock (ms), for tests of the reload interval. */
  now?: () => number;
  /** Minimum time between two checks of the file (ms); default {@link TIER_RULES_CHECK_MS}. */
  checkIntervalMs?: number;
}

interface CompiledRule {
  host: string;
  path: string;
  length: number;
  tiers: Partial<Record<TierName, boolean>>;
}

function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, "").replace(/^www\./, "");
}

function compile(rule: TierRule): CompiledRule {
  const text = rule.match.trim().replace(/^[a-z]+:\/\//i, "");
  const slash = text.indexOf("/");
  const host = normalizeHost(slash === -1 ? text : text.slice(0, slash));
  const path = slash === -1 ? "" : text.slice(slash);
  return { host, path, length: host.length + path.length, tiers: rule.tiers };
}

/**
 * Parses the rules file's text; throws `invalid_arguments` naming `source`
 * and the offending field.
 *
 * @example
 * ```ts
 * import { parseTierRules } from "./tier_rules.ts";
 * const rules = parseTierRules('{"rules":[{"match":"example.com/docs/","tiers":{"browser":true}}]}');
 * console.assert(rules[0].tiers.browser === true);
 * ```
 *
 * @internal exported for tests only
 */
export function parseTierRules(text: string, source = "tier rules"): TierRule[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new GleanerError("invalid_arguments", `${source}: not valid JSON`);
  }
  const parsed = FileSchema.safeParse(data);
  if (!parsed.success) {
    const field = parsed.error.issues[0].path.join(".") || "(root)";
    throw new GleanerError(
      "invalid_arguments",
      `${source}: ${field}: ${parsed.error.issues[0].message}`,
      {
        details: { field },
      },
    );
  }
  return parsed.data.rules as TierRule[];
}

function decide(rules: readonly CompiledRule[], url: URL, tier: TierName): boolean | undefined {
  const host = normalizeHost(url.hostname);
  let best: CompiledRule | undefined;
  for (const rule of rules) {
    const decision = rule.tiers[tier];
    if (decision === undefined) continue;
    if (host !== rule.host && !host.endsWith(`.${rule.host}`)) continue;
    if (rule.path && !url.pathname.startsWith(rule.path)) continue;
    // Longest match wins; an exact host beats a parent domain of the same length.
    const length = rule.length + (host === rule.host ? 0.5 : 0);
    if (!best || length > best.length + (host === best.host ? 0.5 : 0)) best = rule;
  }
  return best?.tiers[tier];
}

/**
 * Loads the rules file at `path` and returns the decision function the
 * reader takes as `tierRule`. Throws `invalid_arguments` when the file exists
 * but is invalid at start; a later invalid edit is logged and the previous
 * rules stay in force.
 *
 * @example
 * ```ts ignore
 * import { createTierRules } from "./tier_rules.ts";
 * import { createReader } from "./cascade.ts";
 * const tierRule = createTierRules(config.read.tier_rules_path!);
 * const reader = createReader({ config, fetcher, tiers, tierRule });
 * tierRule(new URL("https://example.com/docs/a"), "browser"); // true, per the file above
 * ```
 */
export function createTierRules(path: string, options: TierRulesOptions = {}): TierRuleFn {
  const now = options.now ?? Date.now;
  const interval = options.checkIntervalMs ?? TIER_RULES_CHECK_MS;
  let rules: CompiledRule[] = [];
  let signature: string | undefined;
  let checkedAt = -Infinity;

  const stamp = (): string | undefined => {
    try {
      const info = Deno.statSync(path);
      return `${info.mtime?.getTime() ?? 0}:${info.size}`;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
  };

  const load = (strict: boolean) => {
    checkedAt = now();
    let current: string | undefined;
    try {
      current = stamp();
    } catch (error) {
      if (strict) {
        throw new GleanerError(
          "invalid_arguments",
          `read.tier_rules_path: ${path} cannot be read`,
          {
            cause: error,
            details: { field: "read.tier_rules_path" },
          },
        );
      }
      log.warning("tier rules {path} cannot be read; keeping the previous rules", { path });
      return;
    }
    if (current === signature) return;
    if (current === undefined) {
      signature = undefined;
      rules = [];
      log.info("tier rules {path} absent: no rules", { path });
      return;
    }
    try {
      const parsed = parseTierRules(Deno.readTextFileSync(path), `read.tier_rules_path (${path})`);
      rules = parsed.map(compile);
      signature = current;
      log.info("tier rules loaded from {path}: {count} rules", { path, count: rules.length });
    } catch (error) {
      if (strict) {
        throw error instanceof GleanerError ? error : new GleanerError(
          "invalid_arguments",
          `read.tier_rules_path: ${path} cannot be read`,
          { cause: error, details: { field: "read.tier_rules_path" } },
        );
      }
      // Remember the broken version so it is not parsed again every second.
      signature = current;
      log.warning("tier rules {path} invalid; keeping the previous rules: {error}", {
        path,
        error,
      });
    }
  };

  load(true);
  return (url, tier) => {
    if (now() - checkedAt >= interval) load(false);
    return decide(rules, url, tier);
  };
}
