/**
 * Hosted mode for tests: the secrets a trusted reverse proxy and the
 * server share, the headers it forwards for a user, and an MCP client that
 * speaks for that user.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/** The proxy token the tests' reverse proxy sends (`memory.hosted_proxy_token`). */
export const PROXY_TOKEN = "proxy-token-0123456789abcdef0123456789";

/** The secret user stores are named with (`memory.hosted_hmac_secret`). */
export const HMAC_SECRET = "hmac-secret-0123456789abcdef0123456789";

/** The `memory` settings of hosted mode with the tests' secrets, `extra` merged over them. */
export function hostedMemory(
  path: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    path,
    hosted: true,
    hosted_proxy_token: PROXY_TOKEN,
    hosted_hmac_secret: HMAC_SECRET,
    ...extra,
  };
}

/** The headers the proxy forwards for `user` (a verified id and the proxy token). */
export function userHeaders(user: string, token = PROXY_TOKEN): Record<string, string> {
  return { "x-gleaner-user": user, "x-gleaner-proxy-token": token };
}

/** An MCP client connected to `base` + `path` (Streamable HTTP) as `user`. */
export async function connectAs(base: string, user: string, path = "/mcp"): Promise<Client> {
  const client = new Client({ name: `gleaner-test-${user}`, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}${path}`), {
      requestInit: { headers: userHeaders(user) },
    }) as Transport,
  );
  return client;
}
