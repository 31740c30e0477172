/**
 * The copies of the settings' declarations kept outside the schema stay equal
 * to it: what `redactConfig` hides is every declared secret, the README's
 * settings tables say "secret" exactly on the secrets' rows, and every
 * environment alias is documented (the short ones in the Configuration
 * section). The launcher's environment list (`env_names.ts`) is held by
 * `tests/permissions_test.ts`, which also holds that `deno.json`'s tasks carry
 * no permission list of their own. The README's provider table names every
 * provider of the registry, and each key name it gives is an environment
 * alias of a key the provider declared it reads.
 */
import assert from "node:assert/strict";
import { ENV_ALIASES, parseConfig, redactConfig, SECRET_KEYS } from "./config.ts";
import { declaredSettings } from "../search/providers/define.ts";
import { PROVIDERS } from "../search/providers/registry.ts";
import { GLEANER_READER } from "../search/providers/reader.ts";

const README = await Deno.readTextFile(new URL("../../README.md", import.meta.url));

Deno.test("derived copies: redactConfig hides every declared secret and every provider key", () => {
  const config = parseConfig({ search: { providers: { exa: { api_key: "marker-provider" } } } });
  const sections = config as unknown as Record<string, Record<string, unknown>>;
  for (const path of SECRET_KEYS) {
    const [section, key] = path.split(".");
    sections[section][key] = `marker-${path}`;
  }
  const shown = JSON.stringify(redactConfig(config));
  assert.deepEqual(shown.match(/marker-[a-z_.]+/g), null);
  assert.ok(SECRET_KEYS.size > 20, `${SECRET_KEYS.size} secrets`);
});

/** The settings a README table row names (`section.key`, later ones of the cell without section). */
function rowSettings(row: string): string[] {
  const names = [...row.split("|")[1].matchAll(/`([a-z0-9_<>.]+)`/g)].map((m) => m[1]);
  const section = names[0]?.split(".")[0];
  return names.map((name) => name.includes(".") ? name : `${section}.${name}`);
}

Deno.test("derived copies: the README's settings tables mark the secrets, and only them", () => {
  const rows = README.split("\n").filter((line) => /^\| `[a-z]+\.[a-z0-9_<>.]+`/.test(line));
  assert.ok(rows.length > 50, `${rows.length} rows`);
  const faults: string[] = [];
  for (const row of rows) {
    const settings = rowSettings(row);
    const secret = settings.some((path) =>
      SECRET_KEYS.has(path) || path === "search.providers.<name>.api_key"
    );
    const said = /\bsecrets?\b/i.test(row.split("|").slice(2).join("|"));
    if (secret !== said) {
      faults.push(`${settings.join(" / ")}: ${secret ? "secret" : "not secret"}`);
    }
  }
  assert.deepEqual(faults, []);
});

Deno.test("derived copies: every environment alias is in the README, the short ones in Configuration", () => {
  const missing = Object.keys(ENV_ALIASES).filter((name) => !README.includes(`\`${name}\``));
  assert.deepEqual(missing, []);
  const sentence = README.slice(README.indexOf("short aliases:"));
  const listed = new Set(
    [...sentence.slice(0, sentence.indexOf(".")).matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]),
  );
  // Providers' key names are listed in the provider table instead.
  const short = Object.entries(ENV_ALIASES)
    .filter(([, path]) => !/^search\.[a-z]+_api_key$/.test(path)).map(([name]) => name);
  assert.deepEqual(short.filter((name) => !listed.has(name)), []);
  assert.deepEqual([...listed].filter((name) => !short.includes(name)), []);
});

Deno.test("derived copies: the README's provider table is the registry, its key names the providers' aliases", () => {
  const start = README.indexOf("| provider                | roles");
  assert.ok(start > 0, "the provider table");
  const rows = README.slice(start).split("\n\n")[0].split("\n").slice(2);
  const named = new Map<string, string[]>();
  for (const row of rows) {
    const [, providers, , key] = row.split("|");
    const envNames = [...key.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]);
    for (const m of providers.matchAll(/`([a-z_]+)`/g)) named.set(m[1], envNames);
  }
  const registry = [...PROVIDERS.map((p) => p.name), GLEANER_READER];
  assert.deepEqual([...named.keys()].sort(), [...registry].sort());
  const faults: string[] = [];
  for (const provider of PROVIDERS) {
    const reads = declaredSettings(provider)?.providers ?? [provider.name];
    for (const name of named.get(provider.name) ?? []) {
      const path = ENV_ALIASES[name];
      if (!reads.some((own) => path === `search.${own}_api_key`)) {
        faults.push(`${provider.name}: ${name} is ${path ?? "no alias"}`);
      }
    }
  }
  assert.deepEqual(faults, []);
});
