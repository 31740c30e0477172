/**
 * Preloaded by `deno task test` (through `tests/preload.ts`): the tests never
 * read or write the user's own Gleaner files. `XDG_DATA_HOME` (the store,
 * the memories) and `XDG_CONFIG_HOME` (the config file) point at one folder
 * per test process under the system's temporary folder, unless the run sets
 * them itself. A test that needs other folders passes its own environment.
 *
 * @module
 */
const root = `${Deno.env.get("TMPDIR") ?? "/tmp"}/gleaner-test-${Deno.pid}`;
for (const [name, dir] of [["XDG_DATA_HOME", "data"], ["XDG_CONFIG_HOME", "config"]]) {
  if (Deno.env.get(name)?.startsWith(root)) continue;
  Deno.mkdirSync(`${root}/${dir}`, { recursive: true });
  Deno.env.set(name, `${root}/${dir}`);
}
