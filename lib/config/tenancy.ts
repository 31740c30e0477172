/**
 * The one vocabulary of tenancy: who a setting, a read tier, a search
 * provider or a tool belongs to when several users share one server
 * (hosted mode, `memory.hosted`). Every such part declares a
 * {@link TenancyScope}; tests enumerate them and fail on one without a scope.
 *
 * @module
 */

/**
 * Who a part belongs to in hosted mode:
 *
 * - `operator`: the operator's alone. A tenant never reads it, writes it or
 *   benefits from it over any surface (REST, MCP, `/ui`): secrets, the
 *   server's own settings, anything that reads the operator's private data
 *   (browsing history, a personal access token) unless the operator maps it
 *   to a user.
 * - `shared`: one value or one resource for all tenants, named in the README
 *   (the evidence budget's default, robots.txt state, provider breakers).
 * - `tenant`: kept apart per tenant (memories, the web-side cache, domain
 *   memory).
 *
 * @example
 * ```ts
 * import { TENANCY_SCOPES, type TenancyScope } from "./tenancy.ts";
 * const scope: TenancyScope = "shared";
 * console.assert(TENANCY_SCOPES.includes(scope));
 * ```
 */
export type TenancyScope = "operator" | "shared" | "tenant";

/** Every {@link TenancyScope}, in order from most private to most apart. */
export const TENANCY_SCOPES: readonly TenancyScope[] = ["operator", "shared", "tenant"];
