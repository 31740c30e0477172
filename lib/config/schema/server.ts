/**
 * The `server` section: the HTTP/MCP server.
 *
 * @module
 */
import { z } from "zod";
import { secret } from "./secret.ts";

/** Settings of the HTTP/MCP server. */
export const ServerSchema: z.ZodObject<{
  host: z.ZodDefault<z.ZodString>;
  port: z.ZodDefault<z.ZodNumber>;
  allowed_hosts: z.ZodDefault<z.ZodArray<z.ZodString>>;
  api_key: z.ZodOptional<z.ZodString>;
  health_ttl_ms: z.ZodDefault<z.ZodNumber>;
  allow_config_write: z.ZodDefault<z.ZodBoolean>;
}, z.core.$strip> = z.object({
  /** Address to bind; loopback by default. */
  host: z.string().default("127.0.0.1"),
  /** Port to bind. */
  port: z.number().int().min(0).max(65535).default(8787),
  /**
   * Extra host names (besides localhost, 127.0.0.1, [::1]) accepted in `Host`; entries written
   * as origins (`https://app.example:8443`) are the other origins accepted in `Origin` (besides
   * the server's own: the scheme, host and port it was reached on).
   */
  allowed_hosts: z.array(z.string()).default([]),
  /** Bearer token required on every request when set. */
  api_key: secret(),
  /**
   * How long `/health` answers its last component checks before running them again (ms);
   * a stale report is answered while one refresh runs in the background.
   */
  health_ttl_ms: z.number().int().min(0).max(600_000).default(5_000),
  /**
   * Serve `PUT /config` (environment only: `GLEANER_ALLOW_CONFIG_WRITE=1`), and only when
   * `api_key` is set: requests must carry the key.
   */
  allow_config_write: z.boolean().default(false),
});
