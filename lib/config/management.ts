/**
 * Constants of the management views (`tinysuite.manage/1`) and of their settings
 * (`server.management`, `server.management_token`): the views' manifest, served over HTTP
 * (`GET /manage` and one path per view) and as MCP resources (one URI per view).
 *
 * @module
 */

/** The shortest management token accepted (characters). */
export const MANAGEMENT_TOKEN_MIN = 24;

/** The protocol name and version the manifest declares. */
export const MANAGE_PROTOCOL = "tinysuite.manage/1";

/** The URI of the manifest as an MCP resource. */
export const MANAGE_MANIFEST_URI = "manage://gleaner/manifest";

/**
 * Where an MCP client puts the management token: `_meta` of a `resources/read` request (any
 * transport), or this HTTP header on Streamable HTTP (`Authorization` carries the API key).
 */
export const MANAGE_TOKEN_META = "tinysuite/management_token";

/** The HTTP header an MCP client over Streamable HTTP may carry the management token in. */
export const MANAGE_TOKEN_HEADER = "x-management-token";

/** What the Overview view counts the MCP sessions with (`McpSessions` of `mcp/sessions.ts`). */
export interface SessionCounter {
  /** The sessions' counts, as `/health` shows them. */
  counts(): unknown;
}

/** One view of the manifest. */
export interface ManageView {
  /** Stable id (`memories`, `overview`, `service`). */
  id: string;
  /** Title for a console. */
  title: string;
  /** What it shows. */
  description: string;
  /** Where its JSON document is served over HTTP (`GET`). */
  path: string;
  /** Its URI as an MCP resource (`resources/read`). */
  uri: string;
}

/** The views, in the order a console shows them. */
export const MANAGE_VIEWS: readonly ManageView[] = [
  {
    id: "memories",
    title: "Memories",
    description: "The stored memories, newest first (limit, offset, search, kind)",
    path: "/manage/memories",
    uri: "manage://gleaner/memories",
  },
  {
    id: "overview",
    title: "Overview",
    description: "Health of the store, cache, browser and memory; MCP sessions; memory count",
    path: "/manage/overview",
    uri: "manage://gleaner/overview",
  },
  {
    id: "service",
    title: "Service",
    description: "Version, runtime, start time, tools served, effective settings (redacted)",
    path: "/manage/service",
    uri: "manage://gleaner/service",
  },
];
