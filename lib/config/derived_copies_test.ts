/**
 * The copies of the settings' declarations kept outside the schema stay equal
 * to it: what `redactConfig` hides is every declared secret, the README's
 * settings tables say "secret" exactly on the secrets' rows, and every
 * environment alias is documented (the short ones in the Configuration
 * section). The launcher's environment list (`env_names.ts`) is held by
 * `tests/permissions_test.ts`, which also holds that `deno.json`'s tasks carry
 * no permission list of their own.
 */
import assert from "node:assert/strict";
import { ENV_ALIASES, parseConfig, redactConfig, SECRET_KEYS } from "./config.ts";

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
