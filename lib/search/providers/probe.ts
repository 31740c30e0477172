/**
 * `gleaner doctor --online`: asks each configured keyed provider one cheap
 * documented question, to tell whether its key is accepted and what it
 * serves. Opt-in, since most providers count the call: a provider with a
 * free way to check its key declares it (`Provider.probe`, Gemini's
 * `models.get`); the others answer a one-result search, or read one page
 * when they only read pages.
 *
 * @module
 */
import { ERROR_CODES, type ErrorCode, GleanerError } from "../../errors.ts";
import type { Fetcher } from "../../net/types.ts";
import { configuredProviders, servesRole } from "./registry.ts";
import type { Provider, ProviderConfig, ProviderEnv, Role } from "./types.ts";

/** What the probe found of one provider. */
export interface ProviderProbe {
  /** The provider (`brave`, `exa`, …). */
  name: string;
  /** The roles it serves here. */
  roles: Role[];
  /** False when its key, credit, plan or settings need the operator. */
  ok: boolean;
  /** What it answered, or what to do. */
  detail: string;
  /** The error's code, when the call failed. */
  code?: string;
}

/** Codes that only the operator can fix (a key, a plan, a setting); others pass (busy, down). */
const OPERATOR_FIXES: Readonly<Record<string, string>> = {
  unauthorized: "the key was refused: check it",
  insufficient_balance: "out of credit or over quota: check the plan",
  not_found: "a configured model or endpoint does not exist: check its setting",
  invalid_arguments: "the request was refused: check the provider's settings",
};

/** The page read by providers that only read pages. */
const PROBE_PAGE = "https://example.com/";

async function ask(provider: Provider, env: ProviderEnv): Promise<string> {
  if (provider.probe) return await provider.probe(env);
  if (provider.search && servesRole(provider, "search", env.config)) {
    const hits = await provider.search({ query: "gleaner", max_results: 1 }, env);
    return `key accepted (a one-result search: ${hits.length} result${
      hits.length === 1 ? "" : "s"
    })`;
  }
  if (provider.contents) {
    const { pages } = await provider.contents({ urls: [PROBE_PAGE] }, env);
    const error = pages[0]?.error;
    if (error) {
      const code = (ERROR_CODES as readonly string[]).includes(error.code)
        ? error.code as ErrorCode
        : "provider_unavailable";
      throw new GleanerError(code, error.message);
    }
    return `key accepted (read ${PROBE_PAGE})`;
  }
  return "nothing to ask";
}

/**
 * Probes every configured provider that takes a key, one at a time (a
 * keyless one has no key to check). Never throws: each failure is in its row.
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "../../config/parse.ts";
 * import { createFetcher } from "../../net/fetch.ts";
 * import { probeProviders } from "./probe.ts";
 * const config = parseConfig({ search: { brave_api_key: "..." } });
 * for (const row of await probeProviders(config, createFetcher(config.network))) {
 *   console.log(row.name, row.ok, row.detail);
 * }
 * ```
 */
export async function probeProviders(
  config: ProviderConfig,
  fetcher: Fetcher,
): Promise<ProviderProbe[]> {
  const rows: ProviderProbe[] = [];
  for (const provider of configuredProviders(config)) {
    if (provider.keyless) continue;
    const roles = provider.roles.filter((role) => servesRole(provider, role, config));
    try {
      rows.push({
        name: provider.name,
        roles,
        ok: true,
        detail: await ask(provider, { config, fetcher }),
      });
    } catch (error) {
      const code = error instanceof GleanerError ? error.code : "internal";
      const fix = OPERATOR_FIXES[code];
      rows.push({
        name: provider.name,
        roles,
        ok: fix === undefined,
        code,
        detail: `${(error as Error).message}${fix ? ` (${fix}: ${provider.configHint})` : ""}`,
      });
    }
  }
  return rows;
}
