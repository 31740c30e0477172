/**
 * The `server` section: the HTTP/MCP server.
 *
 * @module
 */
import { z } from "zod";
import { secret } from "./secret.ts";
import { MANAGEMENT_TOKEN_MIN } from "../management.ts";
import { operatorOnly } from "../setting.ts";

/** Settings of the HTTP/MCP server: every one is the operator's. */
export const ServerSchema: z.ZodObject<{
  host: z.ZodDefault<z.ZodString>;
  port: z.ZodDefault<z.ZodNumber>;
  allowed_hosts: z.ZodDefault<z.ZodArray<z.ZodString>>;
  api_key: z.ZodOptional<z.ZodString>;
  health_ttl_ms: z.ZodDefault<z.ZodNumber>;
  allow_config_write: z.ZodDefault<z.ZodBoolean>;
  mcp_max_sessions: z.ZodDefault<z.ZodNumber>;
  mcp_session_idle_ms: z.ZodDefault<z.ZodNumber>;
  management: z.ZodDefault<z.ZodBoolean>;
  management_token: z.ZodOptional<z.ZodString>;
}, z.core.$strip> = z.object({
  /** Address to bind; loopback by default. */
  host: operatorOnly(z.string().default("127.0.0.1"), { env: ["GLEANER_HOST"] }),
  /** Port to bind. */
  port: operatorOnly(z.number().int().min(0).max(65535).default(8787), { env: ["GLEANER_PORT"] }),
  /**
   * Extra host names (besides localhost, 127.0.0.1, [::1]) accepted in `Host`; entries written
   * as origins (`https://app.example:8443`) are the other origins accepted in `Origin` (besides
   * the server's own: the scheme, host and port it was reached on).
   */
  allowed_hosts: operatorOnly(z.array(z.string()).default([])),
  /** Bearer token required on every request when set. */
  api_key: secret({ env: ["GLEANER_API_KEY"] }),
  /**
   * How long `/health` answers its last component checks before running them again (ms);
   * a stale report is answered while one refresh runs in the background.
   */
  health_ttl_ms: operatorOnly(z.number().int().min(0).max(600_000).default(5_000)),
  /**
   * Serve `PUT /config` (environment only: `GLEANER_ALLOW_CONFIG_WRITE=1`), and only when
   * `api_key` is set: requests must carry the key (in hosted mode the admin key too). The
   * launcher grants write access to the config file's folder only with it.
   */
  allow_config_write: operatorOnly(z.boolean().default(false), {
    env: ["GLEANER_ALLOW_CONFIG_WRITE"],
    envOnly: true,
  }),
  /**
   * Most MCP sessions open at once over Streamable HTTP (`Mcp-Session-Id`, given on
   * `initialize`); past it a new `initialize` is refused with 503 until one ends (`DELETE /mcp`)
   * or idles out. `0` turns sessions off: every request is answered on its own (stateless).
   */
  mcp_max_sessions: operatorOnly(z.number().int().min(0).max(10_000).default(100)),
  /** An MCP session unused this long (ms) is ended; a request naming it then gets 404. */
  mcp_session_idle_ms: operatorOnly(
    z.number().int().min(1_000).max(86_400_000).default(1_800_000),
  ),
  /**
   * Serve the management views (`tinysuite.manage/1`: `GET /manage` and its Memories, Overview
   * and Service views, and the same as MCP resources `manage://gleaner/…`) to requests carrying
   * `management_token`; off by default.
   */
  management: operatorOnly(z.boolean().default(false), { env: ["GLEANER_MANAGEMENT"] }),
  /** The bearer token of the management views: at least 24 characters (a secret). */
  management_token: operatorOnly(
    z.string().min(MANAGEMENT_TOKEN_MIN, {
      message: `must be at least ${MANAGEMENT_TOKEN_MIN} characters`,
    }).optional(),
    { secret: true, env: ["GLEANER_MANAGEMENT_TOKEN"] },
  ),
});
