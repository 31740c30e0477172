/**
 * `PUT /config`: change settings of a running server. Off unless the
 * operator opts in from the environment (`GLEANER_ALLOW_CONFIG_WRITE=1`);
 * then it needs `server.api_key` (the bearer guard requires it on the
 * request), and in hosted mode the operator's admin key as well (a tenant is
 * refused before this handler runs: `operatorRoute` in `hosted.ts`).
 *
 * Only settings declared writable on their field (`WRITABLE_SETTINGS`: shared
 * values that tune results or time) may change; an operator setting (secrets,
 * the server's own settings, endpoints, files, the network guard's openings)
 * or a limit is refused naming it. The body is a partial configuration checked
 * by the one schema, cross-field rules included, against the running
 * configuration and against what the config file will hold. Settings read at
 * call time are applied at once, the others are written to the config file the
 * server loaded (atomically: a temporary file beside it, mode 0600, renamed
 * over it) and named as needing a restart. Writes run one at a time, so
 * concurrent requests all land. Values are never echoed and no error names a
 * path of the server: the answer names settings and shows the configuration
 * redacted.
 *
 * @module
 */
import type { Context } from "hono";
import {
  type Config,
  type ConfigInput,
  ENV_ONLY_KEYS,
  LIVE_SETTINGS,
  mergeConfig,
  parseConfig,
  redactConfig,
  settingMeta,
  WRITABLE_SETTINGS,
} from "../lib/config/config.ts";
import { assertKnownSettings } from "../lib/config/parse.ts";
import { parseConfigText } from "../lib/config/jsonc.ts";
import { Mutex } from "../lib/async/mutex.ts";
import { GleanerError, HTTP_STATUS, toGleanerError } from "../lib/errors.ts";
import type { Gleaner } from "../lib/gleaner.ts";
import { getGleanerLogger } from "../lib/log.ts";
import { readJsonBody } from "./body.ts";

const log = getGleanerLogger("http", "config");

/**
 * One queue per running configuration: the read-modify-write of the config
 * file and the change of the running settings happen one request at a time.
 */
const queues = new WeakMap<Config, Mutex>();

/** What `PUT /config` answers. */
export interface ConfigWriteResult {
  /** Settings applied to the running server. */
  applied: string[];
  /** Settings written to the config file, in force after a restart. */
  restart_required: string[];
  /** The base name of the config file written, when one was (never its folder). */
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

/** The refusal of a setting `PUT /config` may not change, with the reason its declaration gives. */
function notWritable(path: string): GleanerError {
  const meta = settingMeta(path);
  const why = ENV_ONLY_KEYS.has(path)
    ? "it is taken from the environment only"
    : meta?.secret
    ? "it is a secret, an operator setting"
    : meta?.scope === "operator"
    ? "it is an operator setting"
    : "it bounds work or the network guard";
  return new GleanerError(
    "invalid_arguments",
    `config: ${path} cannot be changed through PUT /config (${why}); the operator sets it in ` +
      `the config file or the environment and restarts the server`,
    { details: { field: path } },
  );
}

/** The body as a partial configuration: an object of known sections and settings, all writable. */
function checkedBody(body: unknown): Record<string, Record<string, unknown>> {
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new GleanerError("invalid_arguments", "config: the body must be a JSON object", {
      details: { field: "(root)" },
    });
  }
  // Unknown sections and settings first (inherited names such as `constructor` or `__proto__`
  // included), each named with the nearest known one.
  assertKnownSettings(body, "config");
  for (const [section, values] of Object.entries(body)) {
    if (!values || typeof values !== "object" || Array.isArray(values)) {
      throw new GleanerError("invalid_arguments", `config: ${section}: must be an object`, {
        details: { field: section },
      });
    }
  }
  const input = body as Record<string, Record<string, unknown>>;
  const refused = pathsOf(input).find((path) => !WRITABLE_SETTINGS.has(path));
  if (refused !== undefined) throw notWritable(refused);
  return input;
}

/**
 * Handles `PUT /config` for `gleaner` (see the module documentation).
 * `configFile` is the config file the server loaded, where settings that need
 * a restart are written; without one, such settings are refused.
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
    const input = checkedBody(await readJsonBody(c.req.raw, options.maxBytes));
    let queue = queues.get(config);
    if (!queue) queues.set(config, queue = new Mutex());
    const result = await queue.run(() => apply(config, input, options.configFile));
    return c.json(result);
  } catch (error) {
    const failure = toGleanerError(error, "config");
    if (failure.code === "internal") log.error("PUT /config failed: {error}", { error });
    return Response.json({ error: failure.toJSON() }, { status: HTTP_STATUS[failure.code] });
  }
}

/** Checks, writes and applies one request's settings (one request at a time). */
async function apply(
  config: Config,
  input: Record<string, Record<string, unknown>>,
  configFile: string | undefined,
): Promise<ConfigWriteResult> {
  const paths = pathsOf(input);
  // The whole running configuration after the change must pass the one schema.
  const next = parseConfig(mergeConfig(config as ConfigInput, input as ConfigInput));
  const current = config as unknown as Record<string, Record<string, unknown>>;
  const wanted = next as unknown as Record<string, Record<string, unknown>>;
  const changed = paths.filter((path) => {
    const [section, key] = path.split(".");
    return JSON.stringify(current[section][key]) !== JSON.stringify(wanted[section][key]);
  });
  const hot = changed.filter((path) => LIVE_SETTINGS.has(path));
  const cold = changed.filter((path) => !LIVE_SETTINGS.has(path));
  if (cold.length > 0 && !configFile) {
    throw new GleanerError(
      "invalid_arguments",
      `config: ${
        cold.join(", ")
      } take effect only at start-up and this server has no config file to write them to`,
      { details: { field: cold[0] } },
    );
  }
  let written: string | undefined;
  if (cold.length > 0 && configFile) {
    await writeSettings(configFile, input, cold);
    written = baseName(configFile);
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
  return {
    applied: hot,
    restart_required: cold,
    ...(written ? { written } : {}),
    config: redactConfig(config),
  };
}

/**
 * Merges `paths` of `input` into the config file, atomically: the new content
 * goes to a temporary file in the same folder (mode 0600) that is renamed over
 * the file, so a reader sees the old file or the new one, never a part. The
 * folder is created (0700) when missing.
 */
async function writeSettings(
  file: string,
  input: Record<string, Record<string, unknown>>,
  paths: string[],
): Promise<void> {
  const shown = `the config file (${baseName(file)})`;
  let stored: Record<string, Record<string, unknown>> = {};
  try {
    const parsed: unknown = parseConfigText(await Deno.readTextFile(file));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      stored = parsed as Record<string, Record<string, unknown>>;
    } else throw new SyntaxError("not a JSON object");
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw fileError(error, shown, "read");
  }
  for (const path of paths) {
    const [section, key] = path.split(".");
    const values = Object.hasOwn(stored, section) ? stored[section] : undefined;
    stored[section] = { ...(values && typeof values === "object" ? values : {}) };
    stored[section][key] = input[section][key];
  }
  // What the file will hold must pass the schema on its own, as at the next start.
  parseConfig(stored);
  const folder = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) || "/" : ".";
  const temp = `${folder}/.${baseName(file)}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.mkdir(folder, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(temp, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    if (Deno.build.os !== "windows") await Deno.chmod(temp, 0o600);
    await Deno.rename(temp, file);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw fileError(error, shown, "write");
  }
}

/** The last part of a path: how an answer or an error names a file of the server. */
function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** A failure to read or write the config file, named without the server's paths. */
function fileError(error: unknown, shown: string, action: "read" | "write"): GleanerError {
  log.error("PUT /config: could not {action} the config file: {error}", { action, error });
  if (error instanceof Deno.errors.NotCapable) {
    return new GleanerError(
      "internal",
      `config: Deno permission missing (${action} access to ${shown} and its folder); ` +
        `the launcher (deno task start) grants it when GLEANER_ALLOW_CONFIG_WRITE=1`,
      { cause: error, details: { permission: action } },
    );
  }
  const reason = error instanceof SyntaxError
    ? "it is not a JSON object"
    : error instanceof Deno.errors.PermissionDenied
    ? "permission denied"
    : error instanceof Error
    ? error.name
    : "unknown error";
  return new GleanerError("internal", `config: could not ${action} ${shown}: ${reason}`, {
    cause: error,
  });
}
