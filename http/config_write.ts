/**
 * `PUT /config`: change settings of a running server. Off unless the
 * operator opts in from the environment (`GLEANER_ALLOW_CONFIG_WRITE=1`)
 * and `server.api_key` is set (the bearer guard then requires it on the
 * request). The body is a partial configuration validated by the one schema;
 * settings read at call time are applied at once, the others are written to
 * the config file and named as needing a restart. Values are never echoed:
 * the answer names settings, and shows the configuration redacted.
 *
 * @module
 */
import type { Context } from "hono";
import {
  type Config,
  type ConfigInput,
  ENV_ONLY_KEYS,
  mergeConfig,
  parseConfig,
  redactConfig,
} from "../lib/config/config.ts";
import { GleanerError, HTTP_STATUS, toGleanerError } from "../lib/errors.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { getGleanerLogger } from "../lib/log.ts";
import { readJsonBody } from "./body.ts";

const log = getGleanerLogger("http", "config");

/**
 * Settings a running server reads on every call (the evidence budget and
 * ranking weights, the llms.txt allowlist): `PUT /config` applies them at
 * once. Every other setting is captured when the server starts.
 */
export const HOT_SETTINGS: ReadonlySet<string> = new Set([
  "rank.max_tokens",
  "rank.per_source_share",
  "rank.share_slack",
  "rank.dense_weight",
  "rank.unit_min_words",
  "rank.unit_max_words",
  "rank.rerank_top_k",
  "rank.rerank_weight",
  "rank.rerank_max_words",
  "rank.rrf_k",
  "rank.dedupe_jaccard",
  "rank.dedupe_cosine",
  "rank.oversample",
  "rank.links_max_tokens",
  "read.llms_txt_domains",
  "read.llms_txt_extra_domains",
]);

/** What `PUT /config` answers. */
export interface ConfigWriteResult {
  /** Settings applied to the running server. */
  applied: string[];
  /** Settings written to the config file, in force after a restart. */
  restart_required: string[];
  /** The config file written, when one was. */
  written?: string;
  /** The running configuration, secrets redacted. */
  config: Config;
}

function refuse(code: "not_found" | "unauthorized", message: string, status: 403 | 404): Response {
  return Response.json({ error: { code, message } }, { status });
}

/** `section.key` of every setting a partial configuration names. */
function pathsOf(body: Record<string, Record<string, unknown>>): string[] {
  return Object.entries(body).flatMap(([section, values]) =>
    Object.keys(values).map((key) => `${section}.${key}`)
  );
}

/**
 * Handles `PUT /config` for `gleaner` (see the module documentation).
 * `configFile` is where settings that need a restart are written; without
 * one, such settings are refused.
 */
export async function handleConfigWrite(
  c: Context,
  gleaner: Gleaner,
  options: { configFile?: string; maxBytes: number },
): Promise<Response> {
  const config = gleaner.config;
  if (!config.server.allow_config_write) {
    return refuse(
      "not_found",
      "PUT /config is off: the operator turns it on with GLEANER_ALLOW_CONFIG_WRITE=1 and server.api_key",
      404,
    );
  }
  if (!config.server.api_key) {
    return refuse("unauthorized", "PUT /config needs server.api_key (GLEANER_API_KEY)", 403);
  }
  try {
    const body = await readJsonBody(c.req.raw, options.maxBytes);
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      throw new GleanerError("invalid_arguments", "config: the body must be a JSON object", {
        details: { field: "(root)" },
      });
    }
    for (const [section, values] of Object.entries(body)) {
      if (!values || typeof values !== "object" || Array.isArray(values)) {
        throw new GleanerError("invalid_arguments", `config: ${section}: must be an object`, {
          details: { field: section },
        });
      }
    }
    const input = body as Record<string, Record<string, unknown>>;
    const paths = pathsOf(input);
    const envOnly = paths.find((path) => ENV_ONLY_KEYS.has(path));
    if (envOnly) {
      throw new GleanerError(
        "invalid_arguments",
        `config: ${envOnly} is taken from the environment only`,
        { details: { field: envOnly } },
      );
    }
    // The whole configuration after the change must pass the one schema.
    const next = parseConfig(mergeConfig(config as ConfigInput, input as ConfigInput));
    const current = config as unknown as Record<string, Record<string, unknown>>;
    const wanted = next as unknown as Record<string, Record<string, unknown>>;
    const changed = paths.filter((path) => {
      const [section, key] = path.split(".");
      return JSON.stringify(current[section][key]) !== JSON.stringify(wanted[section][key]);
    });
    const hot = changed.filter((path) => HOT_SETTINGS.has(path));
    const cold = changed.filter((path) => !HOT_SETTINGS.has(path));
    if (cold.length > 0 && !options.configFile) {
      throw new GleanerError(
        "invalid_arguments",
        `config: ${
          cold.join(", ")
        } take effect only at start-up and this server has no config file to write them to`,
        { details: { field: cold[0] } },
      );
    }
    let written: string | undefined;
    if (cold.length > 0 && options.configFile) {
      written = options.configFile;
      await writeSettings(options.configFile, input, cold);
    }
    for (const path of hot) {
      const [section, key] = path.split(".");
      current[section][key] = wanted[section][key];
    }
    if (changed.length > 0) {
      log.info("PUT /config: applied {applied}; restart required for {cold}", {
        applied: hot.join(", ") || "nothing",
        cold: cold.join(", ") || "nothing",
      });
    }
    const result: ConfigWriteResult = {
      applied: hot,
      restart_required: cold,
      ...(written ? { written } : {}),
      config: redactConfig(config),
    };
    return c.json(result);
  } catch (error) {
    const failure = toGleanerError(error, "config");
    return Response.json({ error: failure.toJSON() }, { status: HTTP_STATUS[failure.code] });
  }
}

/** Merges `paths` of `input` into the config file (created 0600 when missing), atomically. */
async function writeSettings(
  file: string,
  input: Record<string, Record<string, unknown>>,
  paths: string[],
): Promise<void> {
  let stored: Record<string, Record<string, unknown>> = {};
  try {
    stored = JSON.parse(await Deno.readTextFile(file));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new GleanerError("internal", `config file ${file} could not be read`, { cause: error });
    }
  }
  for (const path of paths) {
    const [section, key] = path.split(".");
    (stored[section] ??= {})[key] = input[section][key];
  }
  // What the file will hold must pass the schema on its own, as at the next start.
  parseConfig(stored);
  const temp = `${file}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temp, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  await Deno.rename(temp, file);
}
