import assert from "node:assert/strict";
import { ENV_ALIASES, ENV_ONLY_KEYS, loadConfig, parseConfig } from "./config.ts";
import type { Config } from "./schema.ts";
import {
  loadPathSettings,
  PATH_DEFAULTS,
  PATH_SETTING_KEYS,
  type PathSettings,
  type PathSettingsOptions,
} from "./path_settings.ts";
import { permissionGrants } from "../permissions.ts";

/** A value each setting accepts, as a config file holds it and as a string. */
const SAMPLES: Record<string, [unknown, string]> = {
  "server.allow_config_write": [true, "1"],
  "store.path": ["/srv/a/gleaner.db", "/srv/b/gleaner.db"],
  "store.cache_url": ["redis://127.0.0.1:6379", "redis://10.0.0.1:6380"],
  "memory.enabled": [false, "off"],
  "memory.backend": ["postgres", "postgres"],
  "memory.postgres_url": ["postgres://g@db/g", "postgres://g@%2Frun%2Fpg/g"],
  "memory.path": ["/srv/a/memory.db", "~/m/memory.db"],
  "memory.hosted": [true, "yes"],
  "memory.hosted_dir": ["/srv/users", "users"],
  "embed.provider": ["none", "none"],
  "embed.models_dir": ["/srv/models", "models"],
  "read.render": ["never", "always"],
  "read.chrome_path": ["/opt/chrome/chrome", "/opt/chromium/chrome"],
  "read.browser_cdp_url": ["ws://127.0.0.1:9222", "http://127.0.0.1:9223"],
  "read.tier_rules_path": ["/srv/rules.json", "rules.json"],
  "read.block_lists": [["/srv/lists/easylist.txt"], "easylist.txt, hosts"],
  "events.nats_credentials_file": ["/srv/nats/user.creds", "user.creds"],
  "events.nats_ca_file": ["/srv/nats/ca.pem", "ca.pem"],
};

function envName(key: string): string {
  return `GLEANER_${key.replace(".", "_").toUpperCase()}`;
}

/** The {@link PathSettings} fields of a whole configuration. */
function pick(config: Config): PathSettings {
  const settings: Record<string, Record<string, unknown>> = {};
  for (const key of PATH_SETTING_KEYS) {
    const [section, name] = key.split(".");
    (settings[section] ??= {})[name] =
      (config as unknown as Record<string, Record<string, unknown>>)[
        section
      ][name];
  }
  return settings as unknown as PathSettings;
}

/** Both readers on the same layers (the config file written to a temporary folder). */
async function both(
  layers:
    & { file?: Record<string, Record<string, unknown>>; env?: Record<string, string> }
    & Omit<
      PathSettingsOptions,
      "env" | "file"
    >,
): Promise<[PathSettings, PathSettings]> {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/config.json`;
    if (layers.file) await Deno.writeTextFile(file, JSON.stringify(layers.file));
    const env = { HOME: dir, XDG_CONFIG_HOME: dir, ...layers.env };
    const options = { env, flags: layers.flags, file: layers.file ? file : undefined };
    const full = await loadConfig({ ...options, warn: () => {} });
    return [await loadPathSettings(options), pick(full)];
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("path settings: the defaults are the schema's", async () => {
  const defaults = pick(parseConfig({}));
  const [read] = await both({});
  assert.deepEqual(read, defaults);
  for (const [key, value] of Object.entries(PATH_DEFAULTS)) {
    const [section, name] = key.split(".");
    assert.equal(
      (defaults as unknown as Record<string, Record<string, unknown>>)[section][name],
      value,
    );
  }
});

Deno.test("path settings: each setting from the config file, the environment (names and aliases) and --set, as loadConfig reads it", async () => {
  for (const key of PATH_SETTING_KEYS) {
    const [section, name] = key.split(".");
    const [fileValue, text] = SAMPLES[key];
    if (ENV_ONLY_KEYS.has(key)) {
      // From the environment only: loadConfig refuses it anywhere else, the launcher ignores it.
      const names = [
        envName(key),
        ...Object.entries(ENV_ALIASES).filter(([, target]) => target === key).map(([n]) => n),
      ];
      for (const env of [...names.map((n) => ({ [n]: text })), { [envName(key)]: "" }]) {
        const [read, full] = await both({ env });
        assert.deepEqual(read, full, `${key}: ${JSON.stringify(env)}`);
      }
      const ignored = await loadPathSettings({ env: {}, flags: { [key]: text } });
      assert.equal(
        (ignored as unknown as Record<string, Record<string, unknown>>)[section][name],
        PATH_DEFAULTS[key],
      );
      continue;
    }
    const cases: Parameters<typeof both>[0][] = [
      { file: { [section]: { [name]: fileValue } } },
      { env: { [envName(key)]: text } },
      { flags: { [key]: text } },
      ...Object.entries(ENV_ALIASES).filter(([, target]) => target === key)
        .map(([alias]) => ({ env: { [alias]: text } })),
      // Precedence: --set over the environment over the file.
      { file: { [section]: { [name]: fileValue } }, env: { [envName(key)]: text } },
      {
        file: { [section]: { [name]: fileValue } },
        env: { [envName(key)]: text },
        flags: { [key]: typeof fileValue === "string" ? fileValue : String(fileValue) },
      },
      // An empty variable is no setting.
      { file: { [section]: { [name]: fileValue } }, env: { [envName(key)]: "" } },
    ];
    for (const layers of cases) {
      const [read, full] = await both(layers);
      assert.deepEqual(read, full, `${key}: ${JSON.stringify(layers)}`);
    }
  }
});

Deno.test("path settings: the grants from them are the grants from the whole configuration", async () => {
  const file = {
    store: { path: "/srv/s/gleaner.db" },
    memory: { backend: "postgres", postgres_url: "postgres://g@%2Frun%2Fpg/g?sslrootcert=ca.pem" },
    read: { chrome_path: "/nonexistent/chrome", tier_rules_path: "rules.json" },
    events: { nats_credentials_file: "user.creds" },
  };
  const env = { GLEANER_DB: "/srv/t/gleaner.db", GLEANER_EMBED_MODELS_DIR: "/srv/models" };
  const [read, full] = await both({ file, env, flags: { "memory.hosted_dir": "/srv/users" } });
  const options = { env: { HOME: "/home/a" }, cwd: "/work", libraries: false };
  assert.deepEqual(
    await permissionGrants(read, options),
    await permissionGrants(full as unknown as Config, options),
  );
});

Deno.test("path settings: a config file that is not JSON counts as empty (the server explains it)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/config.json`, "{ not json");
    const read = await loadPathSettings({ env: {}, file: `${dir}/config.json` });
    assert.deepEqual(read, pick(parseConfig({})));
    await assert.rejects(loadConfig({ env: {}, file: `${dir}/config.json`, warn: () => {} }));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
