/**
 * TinySearch's service contract for hosts, over HTTP: the
 * `ai.tinyhumans.tinysearch.Search` interface at `/ai/tinyhumans/tinysearch/Search`, contract
 * version 2.0, with its two members `ListTools` and `ExecuteTool`, answered from the same tool
 * specs MCP and REST use (one definition feeds all).
 *
 * TinySearch serves the contract on a TinyBus (length-framed JSON messages); this is the same
 * exchange as one HTTP request. The envelope follows TinyBus's message (its protocol: a
 * `method_call` names a `member` and carries a positional `body` array; the reply is a
 * `method_return` whose `body` is one value, or an `error` whose `error_name` is stable and whose
 * `body` is the message):
 *
 * - `POST /ai/tinyhumans/tinysearch/Search` `{ "member": "ListTools", "body": [] }` →
 *   `{ "kind": "method_return", "contract_version": "2.0", "body": { "tools": [{ name,
 *   description, parameters }] } }` — the tools declared under this configuration, `parameters`
 *   their JSON Schema.
 * - `{ "member": "ExecuteTool", "body": [{ "name": "…", "arguments": { … } }] }` → `{ "kind":
 *   "method_return", "contract_version": "2.0", "body": { name, status, results, citations,
 *   answer?, role?, provider?, fallback_from?, provider_data } }`: `status` is `completed` or
 *   `in_progress`, `results` and `citations` the normalized hits, `provider_data` the tool's
 *   whole structured output.
 * - A failure: `{ "kind": "error", "contract_version": "2.0", "error_name":
 *   "ai.tinyhumans.tinysearch.Search.Error.Failed", "body": "tinysearch.<code>: <message>" }`
 *   with the HTTP status of the code; the codes are TinySearch's (`insufficient_balance`,
 *   `rate_limited`, `provider_unavailable` — a timeout too —, `invalid_arguments`,
 *   `provider_unauthorized` for a provider that refused its key), else Gleaner's own. An unknown
 *   member is `ai.tinyhumans.tinybus.Error.UnknownMethod`, a malformed call
 *   `ai.tinyhumans.tinybus.Error.BadArguments`, an undeclared tool
 *   `ai.tinyhumans.tinysearch.Search.Error.UnknownTool`.
 *
 * @module
 */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { callTool } from "../lib/api.ts";
import { type ErrorCode, GleanerError, HTTP_STATUS, toGleanerError } from "../lib/errors.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { listedInputSchema } from "../lib/tools/listing.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { readJsonBody } from "./body.ts";

/**
 * The object path of the Search service.
 *
 * @internal exported for tests only
 */
export const TINYSEARCH_PATH = "/ai/tinyhumans/tinysearch/Search";

/**
 * The interface name of the Search service.
 *
 * @internal exported for tests only
 */
export const TINYSEARCH_INTERFACE = "ai.tinyhumans.tinysearch.Search";

/**
 * The contract version served.
 *
 * @internal exported for tests only
 */
export const TINYSEARCH_CONTRACT_VERSION = "2.0";

const FAILED = `${TINYSEARCH_INTERFACE}.Error.Failed`;
const UNKNOWN_TOOL = `${TINYSEARCH_INTERFACE}.Error.UnknownTool`;
const UNKNOWN_METHOD = "ai.tinyhumans.tinybus.Error.UnknownMethod";
const BAD_ARGUMENTS = "ai.tinyhumans.tinybus.Error.BadArguments";

/** TinySearch's code for a Gleaner error code, where the two vocabularies differ. */
const TINYSEARCH_CODES: Partial<Record<ErrorCode, string>> = {
  timeout: "provider_unavailable",
  unauthorized: "provider_unauthorized",
};

function reply(body: unknown): Response {
  return Response.json({
    kind: "method_return",
    contract_version: TINYSEARCH_CONTRACT_VERSION,
    body,
  });
}

function failure(errorName: string, error: GleanerError): Response {
  const code = TINYSEARCH_CODES[error.code] ?? error.code;
  return Response.json({
    kind: "error",
    contract_version: TINYSEARCH_CONTRACT_VERSION,
    error_name: errorName,
    body: `tinysearch.${code}: ${error.message}`,
  }, { status: HTTP_STATUS[error.code] as ContentfulStatusCode });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The normalized `ExecuteTool` answer of one tool's structured output. */
function executed(name: string, output: Record<string, unknown>): Record<string, unknown> {
  const items = Array.isArray(output.items) ? output.items.filter(isRecord) : [];
  // `search` answers per query: its hits, in order, are the results.
  const results = Array.isArray(output.results)
    ? output.results
    : items.flatMap((item) => (Array.isArray(item.results) ? item.results : []));
  return {
    name,
    status: output.status === "in_progress" ? "in_progress" : "completed",
    results,
    citations: Array.isArray(output.citations) ? output.citations : [],
    ...(typeof output.answer === "string" ? { answer: output.answer } : {}),
    ...(typeof output.role === "string" ? { role: output.role } : {}),
    ...(typeof output.provider === "string" ? { provider: output.provider } : {}),
    ...(Array.isArray(output.fallback_from) ? { fallback_from: output.fallback_from } : {}),
    provider_data: output,
  };
}

/**
 * Mounts the Search service on `app`, over the declared `tools`; `gleanerOf` gives the Gleaner
 * a request runs with (the hosted user's view). The app's guards (host, bearer key, hosted
 * identity) apply as to every route.
 *
 * @example
 * ```ts ignore
 * mountTinySearch(app, tools, (c) => requestGleaner(c, gleaner), 1 << 20);
 * ```
 */
export function mountTinySearch(
  app: Hono,
  tools: readonly AnyToolSpec[],
  gleanerOf: (c: Context) => Gleaner,
  maxBytes: number,
): void {
  let listing: unknown;
  app.post(TINYSEARCH_PATH, async (c) => {
    let call: unknown;
    try {
      call = await readJsonBody(c.req.raw, maxBytes);
    } catch (error) {
      return failure(BAD_ARGUMENTS, toGleanerError(error, "tinysearch"));
    }
    const member = isRecord(call) ? call.member : undefined;
    const args = isRecord(call) ? call.body ?? [] : undefined;
    if (!Array.isArray(args)) {
      return failure(
        BAD_ARGUMENTS,
        new GleanerError("invalid_arguments", "body: must be the call's argument array"),
      );
    }
    if (member === "ListTools") {
      listing ??= {
        tools: tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parameters: listedInputSchema(tool),
        })),
      };
      return reply(listing);
    }
    if (member !== "ExecuteTool") {
      return failure(
        UNKNOWN_METHOD,
        new GleanerError(
          "invalid_arguments",
          `member: ${TINYSEARCH_INTERFACE} has ListTools and ExecuteTool, not ${String(member)}`,
        ),
      );
    }
    const request = args[0];
    if (!isRecord(request) || typeof request.name !== "string") {
      return failure(
        BAD_ARGUMENTS,
        new GleanerError("invalid_arguments", "body[0]: must be { name, arguments }"),
      );
    }
    const tool = tools.find((t) => t.name === request.name);
    if (!tool) {
      return failure(
        UNKNOWN_TOOL,
        new GleanerError("invalid_arguments", `name: ${request.name} is not a listed tool`, {
          details: { field: "name" },
        }),
      );
    }
    try {
      const output = await callTool(tool, gleanerOf(c), request.arguments ?? {}, {
        signal: c.req.raw.signal,
      });
      return reply(executed(tool.name, output as Record<string, unknown>));
    } catch (error) {
      return failure(FAILED, toGleanerError(error, tool.name));
    }
  });
}
