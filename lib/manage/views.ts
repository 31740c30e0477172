/**
 * The management views (`tinysuite.manage/1`) as JSON documents, one function each: the
 * manifest, Memories, Overview and Service. The HTTP surface serves them at `/manage`
 * (`http/manage.ts`) and the MCP surface as resources (`mcp/manage_resources.ts`); both check
 * the management token first (`token.ts`).
 *
 * @module
 */
import { redactConfig } from "../config/config.ts";
import { callTool } from "../api.ts";
import type { Gleaner } from "../gleaner.ts";
import { listMemoriesTool } from "../tools/list_memories.ts";
import type { AnyToolSpec } from "../tools/spec.ts";
import { VERSION } from "../version.ts";
import { MANAGE_PROTOCOL, MANAGE_VIEWS, type SessionCounter } from "../config/management.ts";

/** The manifest: the protocol, the service, the views with their paths and resource URIs. */
export function manageManifest(): Record<string, unknown> {
  return {
    protocol: MANAGE_PROTOCOL,
    service: { name: "gleaner", title: "Gleaner", version: VERSION },
    views: MANAGE_VIEWS,
  };
}

/**
 * The Memories view: the stored memories as `list_memories` lists them (`args`: `limit`,
 * `offset`, `search`, `kind`), or `enabled: false` when memory is off.
 */
export async function memoriesView(
  gleaner: Gleaner,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  if (!gleaner.config.memory.enabled) {
    return { view: "memories", enabled: false, memories: [], total_count: 0 };
  }
  const listed = await callTool(listMemoriesTool, gleaner, args, signal ? { signal } : {});
  return { view: "memories", enabled: true, ...listed };
}

/** The Overview view: health, MCP sessions (`null` where none are kept), the memory count. */
export async function overviewView(
  gleaner: Gleaner,
  sessions: SessionCounter | undefined,
): Promise<Record<string, unknown>> {
  const health = await gleaner.health();
  let memories: number | undefined;
  if (gleaner.config.memory.enabled) {
    const listed = await callTool(listMemoriesTool, gleaner, { limit: 1 }).catch(() => undefined);
    memories = listed?.total_count;
  }
  return {
    view: "overview",
    status: health.status,
    version: VERSION,
    checked_at: health.checked_at,
    components: health.components,
    sessions: { mcp: sessions ? sessions.counts() : null },
    memories: { enabled: gleaner.config.memory.enabled, total: memories ?? null },
  };
}

/** The Service view: name, version, runtime, start time, tools served, settings (redacted). */
export function serviceView(
  gleaner: Gleaner,
  tools: readonly AnyToolSpec[],
  startedAt: Date,
): Record<string, unknown> {
  return {
    view: "service",
    name: "gleaner",
    version: VERSION,
    runtime: {
      deno: Deno.version.deno,
      v8: Deno.version.v8,
      typescript: Deno.version.typescript,
    },
    started_at: startedAt.toISOString(),
    uptime_s: Math.round((Date.now() - startedAt.getTime()) / 1000),
    hosted: gleaner.config.memory.hosted,
    tools: tools.map((tool) => tool.name),
    settings: redactConfig(gleaner.config),
  };
}
