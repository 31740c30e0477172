/**
 * The management views (`tinysuite.manage/1`) as MCP resources: the manifest
 * (`manage://gleaner/manifest`) and its three views, Memories, Overview and Service
 * (`manage://gleaner/memories`, `…/overview`, `…/service`), each the JSON document
 * `GET /manage…` serves (`http/manage.ts`).
 *
 * Served only when the operator turns the views on (`server.management` with
 * `server.management_token`) and the server is not hosted (there the HTTP views are the
 * operator's console: an MCP session belongs to one user). `resources/list` names them;
 * `resources/read` answers only a request carrying the management token, in the request's
 * `_meta["tinysuite/management_token"]` (any transport) or the `X-Management-Token` header
 * (Streamable HTTP, where `Authorization` carries the API key). Without it, or with another
 * token, the read is refused (`-32600`, `data.code` `unauthorized`); the token is compared in
 * constant time and never shown.
 *
 * Resources: https://modelcontextprotocol.io/specification/2025-06-18/server/resources
 * (`_meta` on every request: https://modelcontextprotocol.io/specification/2025-06-18/basic#meta).
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ErrorCode,
  type ReadResourceResult,
  type Resource,
} from "@modelcontextprotocol/sdk/types.js";
import type { MemorySection, ServerSection } from "../lib/config/sections.ts";
import {
  MANAGE_MANIFEST_URI,
  MANAGE_PROTOCOL,
  MANAGE_TOKEN_HEADER,
  MANAGE_TOKEN_META,
  MANAGE_VIEWS,
  type SessionCounter,
} from "../lib/config/management.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { RpcError } from "./tool_server.ts";

/** MIME type of every management resource. */
const MIME_TYPE = "application/json";

/** What the management resources of one server need. */
export interface ManageResources {
  /** The management token (`server.management_token`). */
  token: string;
  /** The tools the server serves (the Service view lists them). */
  tools: readonly AnyToolSpec[];
  /** The MCP sessions kept (the Overview view counts them); none on stdio. */
  sessions?: SessionCounter;
  /** When the service started (default: when the resources were set up). */
  startedAt?: Date;
}

/**
 * The management token when a server with `config` serves the views as resources: the views
 * on, with their token, and not hosted; else `undefined`.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../lib/config/parse.ts";
 * import { manageResourcesToken } from "./manage_resources.ts";
 * console.assert(manageResourcesToken(parseConfig({})) === undefined);
 * const token = "t".repeat(24);
 * const on = parseConfig({ server: { management: true, management_token: token } });
 * console.assert(manageResourcesToken(on) === token);
 * ```
 */
export function manageResourcesToken(
  config: { server: ServerSection; memory: MemorySection },
): string | undefined {
  const { management, management_token: token } = config.server;
  return management && token && !config.memory.hosted ? token : undefined;
}

/** The manifest and its views, as `resources/list` names them. */
export function manageResourceList(): Resource[] {
  return [
    {
      uri: MANAGE_MANIFEST_URI,
      name: "manage-manifest",
      title: "Management views",
      description: `The ${MANAGE_PROTOCOL} manifest: Memories, Overview, Service`,
      mimeType: MIME_TYPE,
    },
    ...MANAGE_VIEWS.map((view) => ({
      uri: view.uri,
      name: `manage-${view.id}`,
      title: view.title,
      description: view.description,
      mimeType: MIME_TYPE,
    })),
  ];
}

/** True when `uri` names a management resource. */
export function isManageUri(uri: string): boolean {
  return uri === MANAGE_MANIFEST_URI || MANAGE_VIEWS.some((view) => view.uri === uri);
}

/**
 * Reads a management resource for a request carrying the management token (see the module's
 * documentation); refuses any other with `-32600` and `data.code` `unauthorized`.
 */
export async function readManageResource(
  uri: string,
  request: { _meta?: Record<string, unknown> },
  headers: Record<string, string | string[] | undefined> | undefined,
  gleaner: () => Promise<Gleaner>,
  options: ManageResources & { startedAt: Date },
): Promise<ReadResourceResult> {
  // Loaded with the first read: the call path stays out of the start-up graph.
  const [{ tokenMatches }, views] = await Promise.all([
    import("../lib/manage/token.ts"),
    import("../lib/manage/views.ts"),
  ]);
  const header = headers?.[MANAGE_TOKEN_HEADER];
  const given = request._meta?.[MANAGE_TOKEN_META] ?? (Array.isArray(header) ? header[0] : header);
  if (typeof given !== "string" || !tokenMatches(given, options.token)) {
    throw new RpcError(
      ErrorCode.InvalidRequest,
      `unauthorized: the management views need the management token (_meta["${MANAGE_TOKEN_META}"] or the ${MANAGE_TOKEN_HEADER} header)`,
      { code: "unauthorized" },
    );
  }
  let document: Record<string, unknown>;
  if (uri === MANAGE_MANIFEST_URI) document = views.manageManifest();
  else if (uri.endsWith("/memories")) document = await views.memoriesView(await gleaner(), {});
  else if (uri.endsWith("/overview")) {
    document = await views.overviewView(await gleaner(), options.sessions);
  } else document = views.serviceView(await gleaner(), options.tools, options.startedAt);
  return { contents: [{ uri, mimeType: MIME_TYPE, text: JSON.stringify(document) }] };
}
