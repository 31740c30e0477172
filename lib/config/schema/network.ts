/**
 * The `network` section: the guarded network layer.
 *
 * @module
 */
import { z } from "zod";
import { USER_AGENT } from "../../version.ts";
import { operatorOnly, shared } from "../setting.ts";

/** Settings of the guarded network layer. */
export const NetworkSchema: z.ZodObject<{
  allow_private: z.ZodDefault<z.ZodUnion<readonly [z.ZodBoolean, z.ZodArray<z.ZodString>]>>;
  allowed_ports: z.ZodDefault<z.ZodArray<z.ZodNumber>>;
  connect_timeout_ms: z.ZodDefault<z.ZodNumber>;
  timeout_ms: z.ZodDefault<z.ZodNumber>;
  max_bytes: z.ZodDefault<z.ZodNumber>;
  max_decompressed_bytes: z.ZodDefault<z.ZodNumber>;
  max_redirects: z.ZodDefault<z.ZodNumber>;
  user_agent: z.ZodDefault<z.ZodString>;
  respect_robots: z.ZodDefault<z.ZodBoolean>;
  per_host_concurrency: z.ZodDefault<z.ZodNumber>;
  proxy_url: z.ZodOptional<z.ZodString>;
  no_proxy: z.ZodDefault<z.ZodArray<z.ZodString>>;
}, z.core.$strip> = z.object({
  /**
   * Reach private/loopback addresses: `false` (default), `true` (all), or a
   * list of origins (`http://127.0.0.1:8080`) that alone are allowed.
   */
  allow_private: operatorOnly(z.union([z.boolean(), z.array(z.string())]).default(false), {
    env: ["GLEANER_ALLOW_PRIVATE_NETWORK"],
  }),
  /** Ports a URL may name. */
  allowed_ports: operatorOnly(
    z.array(z.number().int().min(1).max(65535)).default([80, 443, 8080, 8443]),
  ),
  /** Time to establish a connection. */
  connect_timeout_ms: shared(z.number().int().positive().default(10_000)),
  /** Time for a whole request, redirects included. */
  timeout_ms: shared(z.number().int().positive().default(20_000)),
  /** Largest body read from the wire (bytes). */
  max_bytes: shared(z.number().int().positive().default(5_000_000), { writable: false }),
  /** Largest body after decompression (bytes). */
  max_decompressed_bytes: shared(z.number().int().positive().default(20_000_000), {
    writable: false,
  }),
  /** Redirect hops followed (each checked again). */
  max_redirects: shared(z.number().int().min(0).max(20).default(5), { writable: false }),
  /** User-Agent sent with every request. */
  user_agent: operatorOnly(z.string().default(USER_AGENT)),
  /** Obey robots.txt when reading pages. */
  respect_robots: shared(z.boolean().default(true), { writable: false }),
  /** Concurrent requests per host. */
  per_host_concurrency: shared(z.number().int().positive().default(2), { writable: false }),
  /**
   * Outbound HTTP proxy, `http://[user:password@]host:port` (default: `HTTPS_PROXY`, else
   * `HTTP_PROXY`, when set). `http:` URLs go to it in absolute form, `https:` URLs through a
   * `CONNECT` tunnel; the address policy still refuses private targets by name and literal
   * address before anything is sent, but names are resolved by the proxy (DNS pinning is then
   * the proxy's job). Credentials are redacted wherever the configuration is shown.
   */
  proxy_url: operatorOnly(
    z.string().refine(isProxyUrl, {
      message: "must be an http:// proxy URL (http://[user:password@]host[:port])",
    }).optional(),
  ),
  /**
   * Hosts that bypass the proxy (default: `NO_PROXY`): `*`, names (`example.com` also covers
   * its subdomains; `.example.com` only them), IP addresses or CIDR ranges, each optionally
   * `:port`. A bypassed host goes direct under the normal checks: this never opens an
   * address the policy refuses.
   */
  no_proxy: operatorOnly(z.array(z.string()).default([])),
});

/** True for an `http://` URL with a host and nothing past the authority (a proxy address). */
function isProxyUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === "http:" && url.hostname !== "" &&
    (url.pathname === "/" || url.pathname === "") && url.search === "" && url.hash === "";
}

/** True when private addresses may be reached for this origin. */
export function privateAllowed(
  config: Pick<z.infer<typeof NetworkSchema>, "allow_private">,
  origin: string,
): boolean {
  const allow = config.allow_private;
  if (allow === true) return true;
  if (allow === false) return false;
  return allow.some((entry) => {
    try {
      return new URL(entry).origin === origin;
    } catch {
      return false;
    }
  });
}
