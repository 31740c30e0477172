/**
 * The configuration as `gleaner doctor` loads it: like `loadConfig`, but a
 * problem does not stop it. Every problem is collected (a config file that is
 * not JSON, with its line and column; each unknown setting; each value the
 * schema refuses, with where it came from) and left out, so that the other
 * checks run on the rest: defaults, the environment and the flags.
 *
 * Permissions: those of `loadConfig` (env access to `envNames()`, read access to the file).
 *
 * @module
 */
import { permissionError } from "../errors.ts";
import { readEnv } from "./env.ts";
import { parseConfigText, stripJsonComments } from "./jsonc.ts";
import { coerceSetting, configFromEnv, envName, envNames } from "./env_settings.ts";
import { loadedConfigFile, mergeConfig, proxyFromEnv } from "./load.ts";
import { parseConfig, unknownSettings } from "./parse.ts";
import { oldProviderKeyWarnings } from "./provider_keys.ts";
import { type Config, type ConfigInput, ConfigSchema, PARSED_RARELY } from "./schema.ts";
import { ENV_ONLY_KEYS } from "./setting_index.ts";
import { unknownEnvWarnings } from "./suggest.ts";

/** One problem of the configuration. */
export interface ConfigProblem {
  /** The setting (`search.region`), or `config file` for the file as a whole. */
  setting: string;
  /** `fail`: left out, the default applies; `warn`: taken, but worth a look. */
  status: "fail" | "warn";
  /** What is wrong, and where (the file with line and column, a variable, a flag). */
  message: string;
  /** What to do. */
  fix: string;
}

/** What {@link diagnoseConfig} found. */
export interface DiagnosedConfig {
  /** The configuration without the parts that have a problem. */
  config: Config;
  /** The config file looked at, when there is one. */
  file?: string;
  /** Every problem, in the order of the layers (file, environment, flags). */
  problems: ConfigProblem[];
}

/** Options of {@link diagnoseConfig}, as those of `loadConfig`. */
export interface DiagnoseOptions {
  /** The environment (default: the process environment, Gleaner's names only). */
  env?: Record<string, string | undefined>;
  /** `section.key` → string, from the command line. */
  flags?: Record<string, string>;
  /** The config file given on the command line (`--config`). */
  file?: string;
}

/** Line and column (1-based) of a character offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/**
 * Why a config file's text is not JSON, with the line and column: `line 3, column 24: a
 * trailing comma (JSON allows none)`.
 *
 * @example
 * ```ts
 * import { jsonProblem } from "./diagnose.ts";
 * const text = '{\n  "search": { "region": "de-de", }\n}';
 * console.assert(jsonProblem(text) === "line 2, column 32: a trailing comma (JSON allows none)");
 * console.assert(jsonProblem("{}") === undefined);
 * ```
 *
 * @internal exported for tests only
 */
export function jsonProblem(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    const offset = position ? Number(position[1]) : text.length;
    // The character before the offending one, white space skipped: a comma there is the cause.
    let back = offset - 1;
    while (back >= 0 && /\s/.test(text[back])) back--;
    if (text[back] === "," && /^[}\]]/.test(text.slice(offset).trimStart())) {
      const { line, column } = lineColumn(text, back);
      return `line ${line}, column ${column}: a trailing comma (JSON allows none)`;
    }
    if (text.trim() === "") return "the file is empty (write {} for no settings)";
    const { line, column } = lineColumn(text, Math.min(offset, text.length));
    // V8 quotes the text around the error ("…" is not valid JSON): never echoed (secrets).
    const reason = message.replace(/, ".*$/s, "").replace(/\s*(in JSON )?at position \d+.*$/s, "");

    return `line ${line}, column ${column}: ${reason}`;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Removes `section.key` (or a deeper path) from a layer, in place. */
function drop(layer: Record<string, unknown> | undefined, path: readonly PropertyKey[]): boolean {
  let node: unknown = layer;
  for (const key of path.slice(0, -1)) {
    if (!isRecord(node)) return false;
    node = node[String(key)];
  }
  const last = String(path.at(-1));
  if (!isRecord(node) || !(last in node)) return false;
  delete node[last];
  return true;
}

function hasPath(
  layer: Record<string, unknown> | undefined,
  path: readonly PropertyKey[],
): boolean {
  let node: unknown = layer;
  for (const key of path) {
    if (!isRecord(node) || !(String(key) in node)) return false;
    node = node[String(key)];
  }
  return true;
}

/**
 * Loads the configuration as `loadConfig` does, collecting every problem
 * instead of stopping at the first; the parts with a problem are left out.
 *
 * @example
 * ```ts
 * import { diagnoseConfig } from "./diagnose.ts";
 * const { config, problems } = await diagnoseConfig({
 *   env: { GLEANER_SERVER_PORT: "eighty", GLEANER_SEARCH_REGION: "de-de" },
 * });
 * console.assert(problems[0].setting === "server.port" && problems[0].message.includes("GLEANER_SERVER_PORT"));
 * console.assert(config.server.port === 8787 && config.search.region === "de-de");
 * ```
 */
export async function diagnoseConfig(options: DiagnoseOptions = {}): Promise<DiagnosedConfig> {
  const env = options.env ?? readEnv(envNames());
  const problems: ConfigProblem[] = [];
  for (const message of unknownEnvWarnings(env)) {
    problems.push({
      setting: "environment",
      status: "warn",
      message,
      fix: "rename or unset the variable",
    });
  }
  const file = loadedConfigFile({ file: options.file, env });
  const explicit = options.file !== undefined || env.GLEANER_CONFIG !== undefined;
  let fileLayer: Record<string, unknown> | undefined;
  if (file) {
    let text: string | undefined;
    try {
      text = await Deno.readTextFile(file);
    } catch (error) {
      const named = permissionError(error, "reading the config file");
      if (named) {
        problems.push({
          setting: "config file",
          status: "fail",
          message: `${file}: ${named.message}`,
          fix: `grant read access to ${file}`,
        });
      } else if (!(error instanceof Deno.errors.NotFound) || explicit) {
        problems.push({
          setting: "config file",
          status: "fail",
          message: error instanceof Deno.errors.NotFound
            ? `${file} does not exist`
            : `${file} could not be read (${(error as Error).name})`,
          fix: "create it, or name the right file with --config or GLEANER_CONFIG",
        });
      }
    }
    if (text !== undefined) {
      const problem = jsonProblem(stripJsonComments(text));
      const parsed = problem === undefined ? parseConfigText(text) : undefined;
      if (problem !== undefined) {
        problems.push({
          setting: "config file",
          status: "fail",
          message: `${file}: ${problem}`,
          fix: "correct the file (it is JSON); until then none of its settings apply",
        });
      } else if (!isRecord(parsed)) {
        problems.push({
          setting: "config file",
          status: "fail",
          message: `${file}: not a JSON object`,
          fix: 'write the settings as an object: { "search": { "region": "de-de" } }',
        });
      } else fileLayer = parsed;
    }
  }
  const where = `config file ${file}`;
  for (const unknown of unknownSettings(fileLayer)) {
    drop(fileLayer, unknown.path.split("."));
    problems.push({
      setting: unknown.path,
      status: "fail",
      message: `${where}: unknown ${unknown.section ? "section" : "setting"} "${unknown.path}"`,
      fix: unknown.guess ? `did you mean "${unknown.guess}"?` : "remove it (see the settings)",
    });
  }
  for (const key of ENV_ONLY_KEYS) {
    const path = key.split(".");
    if (!hasPath(fileLayer, path)) continue;
    drop(fileLayer, path);
    problems.push({
      setting: key,
      status: "fail",
      message: `${where}: ${key} is taken from the environment only`,
      fix: `set ${envName(key)} instead`,
    });
  }
  const flagLayer: Record<string, Record<string, unknown>> = {};
  for (const [path, raw] of Object.entries(options.flags ?? {})) {
    const [section, key] = path.split(".");
    (flagLayer[section] ??= {})[key] = coerceSetting(path, raw);
  }
  for (const message of oldProviderKeyWarnings(fileLayer as ConfigInput | undefined, where)) {
    problems.push({
      setting: "search",
      status: "warn",
      message,
      fix: "write the key as search.providers.<name>.api_key",
    });
  }

  const envLayer = configFromEnv(env) as Record<string, unknown>;
  const layers = [
    { layer: proxyFromEnv(env) as Record<string, unknown>, source: "the proxy variables" },
    { layer: fileLayer, source: where },
    { layer: envLayer, source: "environment" },
    { layer: flagLayer as Record<string, unknown>, source: "--set" },
  ];
  // Each refused value is reported with its source and left out; a few rounds settle it (a
  // value left out can only reveal a problem of the same path in a lower layer).
  for (let round = 0; round < 4; round++) {
    const merged = mergeConfig(...layers.map((l) => l.layer as ConfigInput | undefined));
    const result = ConfigSchema.safeParse(merged, PARSED_RARELY);
    if (result.success) {
      try {
        return { config: parseConfig(merged), ...(file ? { file } : {}), problems };
      } catch (error) {
        // A cross-field rule (crawl.engine firecrawl without read.firecrawl_url).
        const field = String((error as { details?: { field?: unknown } }).details?.field ?? "");
        problems.push({
          setting: field || "config",
          status: "fail",
          message: (error as Error).message,
          fix: "set what the message names, or remove the setting",
        });
        if (!field || !layers.some((l) => drop(l.layer, field.split(".")))) break;
        continue;
      }
    }
    for (const issue of result.error.issues) {
      const setting = issue.path.join(".") || "(root)";
      // A value inside a setting (a provider's key) is left out alone; the setting names it.
      const exact = layers.some((l) => hasPath(l.layer, issue.path));
      const path = exact ? issue.path : issue.path.slice(0, 2);
      // The highest layer that gives the value is where it came from.
      const from = [...layers].reverse().find((l) => hasPath(l.layer, path));
      const top = issue.path.slice(0, 2).join(".");
      const source = !from
        ? "config"
        : from.source === "environment"
        ? `environment ${envName(top)}`
        : from.source === "--set"
        ? `--set ${top}`
        : from.source;
      problems.push({
        setting,
        status: "fail",
        message: `${source}: ${setting}: ${issue.message}`,
        fix: "correct the value (see the README's settings); until then the default applies",
      });
      for (const { layer } of layers) drop(layer, path);
    }
  }
  return { config: parseConfig({}), ...(file ? { file } : {}), problems };
}
