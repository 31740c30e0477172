/**
 * `PUT /config` over real HTTP: off unless the environment opts in and an
 * API key is set; in hosted mode the configuration is the operator's (a
 * tenant can neither read nor change it, the admin key can); only writable
 * settings, validated by the one schema with its cross-field rules; call-time
 * settings applied at once, the others written atomically, one request at a
 * time, to the config file the server loaded (also under the launcher's
 * scoped grants); secrets never echoed, no path of the server in an error.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../lib/config/config.ts";
import { createGleanerFromConfig } from "../lib/gleaner.ts";
import { serveHttp } from "../http/serve.ts";
import { HMAC_SECRET, PROXY_TOKEN, userHeaders } from "../testing/hosted.ts";
import { childArgv } from "../scripts/launch.ts";

const KEY = "config-write-test-key";
const ADMIN_KEY = "admin-key-0123456789abcdef0123456789ab";
const BASE_ENV = {
  GLEANER_STORE_PATH: ":memory:",
  GLEANER_MEMORY_ENABLED: "false",
  GLEANER_EMBED_PROVIDER: "none",
  GLEANER_PORT: "0",
};

async function withServer(
  env: Record<string, string>,
  fn: (base: string) => Promise<void>,
  configFile?: string,
): Promise<void> {
  const config = await loadConfig({ env: { ...BASE_ENV, ...env }, file: configFile ?? "" });
  const gleaner = createGleanerFromConfig(config);
  const server = serveHttp(gleaner, configFile ? { configFile } : {});
  try {
    await fn(server.url);
  } finally {
    await server.shutdown();
    await gleaner.close();
  }
}

function put(base: string, body: unknown, key?: string): Promise<Response> {
  return fetch(`${base}/config`, {
    method: "PUT",
    headers: {
      "content-type": "application/json",
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify(body),
  });
}

async function error(response: Response): Promise<{ code: string; message: string }> {
  return (await response.json()).error;
}

Deno.test("PUT /config: 404 without GLEANER_ALLOW_CONFIG_WRITE, 403 without an API key, 401 without the key", async () => {
  await withServer({}, async (base) => {
    const off = await put(base, { rank: { max_tokens: 100 } });
    assert.equal(off.status, 404);
    assert.match((await error(off)).message, /GLEANER_ALLOW_CONFIG_WRITE=1/);
  });
  await withServer({ GLEANER_ALLOW_CONFIG_WRITE: "1" }, async (base) => {
    const keyless = await put(base, { rank: { max_tokens: 100 } });
    assert.equal(keyless.status, 403);
    assert.equal((await error(keyless)).code, "unauthorized");
  });
  await withServer({ GLEANER_ALLOW_CONFIG_WRITE: "1", GLEANER_API_KEY: KEY }, async (base) => {
    const anonymous = await put(base, { rank: { max_tokens: 100 } });
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    const wrong = await put(base, { rank: { max_tokens: 100 } }, "not-the-key");
    assert.equal(wrong.status, 401);
    await wrong.body?.cancel();
    const shown = await fetch(`${base}/config`, { headers: { authorization: `Bearer ${KEY}` } });
    assert.equal((await shown.json()).rank.max_tokens, 4000);
  });
});

Deno.test("PUT /config: call-time settings apply at once, the others go to the config file, secrets are never echoed", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/config.json`;
  await Deno.writeTextFile(file, JSON.stringify({ log: { level: "warning" } }));
  try {
    await withServer({ GLEANER_ALLOW_CONFIG_WRITE: "1", GLEANER_API_KEY: KEY }, async (base) => {
      const hot = await put(base, {
        rank: { max_tokens: 1234 },
        read: { llms_txt_extra_domains: ["docs.example.org"] },
      }, KEY);
      assert.equal(hot.status, 200);
      const applied = await hot.json();
      assert.deepEqual(applied.applied, ["rank.max_tokens", "read.llms_txt_extra_domains"]);
      assert.deepEqual(applied.restart_required, []);
      const shown = await (await fetch(`${base}/config`, {
        headers: { authorization: `Bearer ${KEY}` },
      })).json();
      assert.equal(shown.rank.max_tokens, 1234);
      assert.deepEqual(shown.read.llms_txt_extra_domains, ["docs.example.org"]);

      const cold = await put(base, {
        search: { region: "de-de" },
        network: { timeout_ms: 5_000 },
      }, KEY);
      assert.equal(cold.status, 200);
      const answer = await cold.json();
      assert.deepEqual(answer.applied, []);
      assert.deepEqual(answer.restart_required, ["search.region", "network.timeout_ms"]);
      // The file by its base name: an answer never shows a path of the server.
      assert.equal(answer.written, "config.json");
      // Not in force until a restart.
      assert.equal(answer.config.network.timeout_ms, 20_000);
      const stored = JSON.parse(await Deno.readTextFile(file));
      assert.deepEqual(stored, {
        log: { level: "warning" },
        search: { region: "de-de" },
        network: { timeout_ms: 5_000 },
      });
      assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
      // No temporary file is left beside it.
      const names = [];
      for await (const entry of Deno.readDir(dir)) names.push(entry.name);
      assert.deepEqual(names, ["config.json"]);

      // A secret is an operator setting: refused, and its value is not echoed.
      const secret = await put(base, { search: { brave_api_key: "brave-secret-value-1" } }, KEY);
      assert.equal(secret.status, 400);
      const text = await secret.text();
      assert.ok(!text.includes("brave-secret-value-1"), text);
      assert.match(text, /search\.brave_api_key cannot be changed through PUT \/config/);
    }, file);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("PUT /config: the one schema refuses bad values, unknown and environment-only settings", async () => {
  await withServer({ GLEANER_ALLOW_CONFIG_WRITE: "1", GLEANER_API_KEY: KEY }, async (base) => {
    const cases: [unknown, RegExp][] = [
      [{ rank: { max_tokens: -1 } }, /rank\.max_tokens/],
      [
        { rank: { max_tokn: 5 } },
        /unknown setting "rank\.max_tokn"; did you mean "rank\.max_tokens"/,
      ],
      [{ server: { allow_config_write: false } }, /environment only/],
      [{ memory: { hosted_admin_key: "x".repeat(40) } }, /environment only/],
      [{ rank: { unit_min_words: 500, unit_max_words: 10 } }, /rank\.unit_min_words: must not/],
      [{ rank: [] }, /rank: must be an object/],
      // Needs a restart, and this server has no config file to write it to.
      [{ network: { timeout_ms: 5_000 } }, /only at start-up/],
    ];
    for (const [body, message] of cases) {
      const response = await put(base, body, KEY);
      assert.equal(response.status, 400, JSON.stringify(body));
      const failure = await error(response);
      assert.equal(failure.code, "invalid_arguments");
      assert.match(failure.message, message);
    }
    const shown = await (await fetch(`${base}/config`, {
      headers: { authorization: `Bearer ${KEY}` },
    })).json();
    assert.equal(shown.rank.max_tokens, 4000);
    assert.equal(shown.network.timeout_ms, 20_000);
  });
});

/** A PUT whose body is sent as it is written (names such as `__proto__` survive). */
function putRaw(base: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${base}/config`, {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}`, ...headers },
    body,
  });
}

Deno.test("PUT /config: only writable settings; the operator's, unknown and inherited names are 400 naming them", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/config.json`;
  const before = JSON.stringify({ log: { level: "warning" } });
  await Deno.writeTextFile(file, before);
  try {
    await withServer({ GLEANER_ALLOW_CONFIG_WRITE: "1", GLEANER_API_KEY: KEY }, async (base) => {
      const cases: [string, string][] = [
        // What a tenant tried: hosted mode off after a restart, the guard opened, the server
        // bound to every interface, another Chromium.
        ['{"memory":{"hosted":false}}', "memory.hosted"],
        ['{"network":{"allow_private":true}}', "network.allow_private"],
        ['{"server":{"host":"0.0.0.0"}}', "server.host"],
        ['{"read":{"chrome_path":"/tmp/not-chromium"}}', "read.chrome_path"],
        ['{"read":{"browser_cdp_url":"ws://127.0.0.1:9222"}}', "read.browser_cdp_url"],
        ['{"store":{"path":"/tmp/elsewhere.db"}}', "store.path"],
        ['{"search":{"providers":{"exa":{"base_url":"http://127.0.0.1:1"}}}}', "search.providers"],
        ['{"network":{"max_bytes":999999999}}', "network.max_bytes"],
        // One refused setting sinks the request: nothing of it is applied.
        ['{"rank":{"max_tokens":77},"memory":{"hosted_dir":"/tmp"}}', "memory.hosted_dir"],
        ['{"constructor":{"prototype":{"polluted":true}}}', "constructor"],
        ['{"__proto__":{"polluted":true}}', "__proto__"],
        ['{"toString":{}}', "toString"],
        ['{"rank":{"constructor":{"polluted":true}}}', "rank.constructor"],
        ['{"rank":{"__proto__":{"polluted":true}}}', "rank.__proto__"],
      ];
      for (const [body, field] of cases) {
        const response = await putRaw(base, body);
        const failure = await error(response);
        assert.equal(response.status, 400, `${body}: ${JSON.stringify(failure)}`);
        assert.equal(failure.code, "invalid_arguments", body);
        assert.ok(failure.message.includes(field), `${body}: ${failure.message}`);
        assert.ok(!failure.message.includes(dir), failure.message);
      }
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      const shown = await (await fetch(`${base}/config`, {
        headers: { authorization: `Bearer ${KEY}` },
      })).json();
      assert.equal(shown.rank.max_tokens, 4000);
      assert.equal(shown.memory.hosted, false);
    }, file);
    assert.equal(await Deno.readTextFile(file), before, "the config file is untouched");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("PUT /config: inconsistent values across fields are refused, against the running settings too", async () => {
  await withServer({ GLEANER_ALLOW_CONFIG_WRITE: "1", GLEANER_API_KEY: KEY }, async (base) => {
    const lower = await put(base, { rank: { unit_max_words: 25 } }, KEY);
    assert.equal(lower.status, 200, JSON.stringify(await lower.clone().json()));
    await lower.body?.cancel();
    // 30 alone is in range, but not with the running unit_max_words (25).
    const above = await put(base, { rank: { unit_min_words: 30 } }, KEY);
    assert.equal(above.status, 400);
    const failure = await error(above);
    assert.equal(failure.code, "invalid_arguments");
    assert.match(failure.message, /rank\.unit_min_words: must not exceed rank\.unit_max_words/);
    const shown = await (await fetch(`${base}/config`, {
      headers: { authorization: `Bearer ${KEY}` },
    })).json();
    assert.deepEqual([shown.rank.unit_min_words, shown.rank.unit_max_words], [20, 25]);
  });
});

Deno.test("PUT /config: ten concurrent writes of ten settings all land in the config file", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/config.json`;
  await Deno.writeTextFile(file, "{}");
  const writes: Record<string, Record<string, unknown>>[] = [
    { network: { timeout_ms: 11_000 } },
    { network: { connect_timeout_ms: 3_000 } },
    { search: { region: "fr-fr" } },
    { search: { timeout_ms: 7_000 } },
    { search: { safesearch: 2 } },
    { read: { browser_timeout_ms: 9_000 } },
    { read: { service_timeout_ms: 30_000 } },
    { store: { search_ttl_s: 60 } },
    { store: { page_ttl_s: 600 } },
    { crawl: { max_wait_ms: 5_000 } },
  ];
  try {
    await withServer({ GLEANER_ALLOW_CONFIG_WRITE: "1", GLEANER_API_KEY: KEY }, async (base) => {
      const responses = await Promise.all(writes.map((body) => put(base, body, KEY)));
      for (const response of responses) {
        assert.equal(response.status, 200, JSON.stringify(await response.clone().json()));
        await response.body?.cancel();
      }
    }, file);
    const stored = JSON.parse(await Deno.readTextFile(file));
    const expected: Record<string, Record<string, unknown>> = {};
    for (const body of writes) {
      for (const [section, values] of Object.entries(body)) {
        expected[section] = { ...expected[section], ...values };
      }
    }
    assert.deepEqual(stored, expected);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("PUT /config: a config file that cannot be written is a 500 that names no path of the server", async () => {
  const dir = await Deno.makeTempDir();
  // The "folder" of the config file is a plain file: it can be neither read nor written.
  await Deno.writeTextFile(`${dir}/not-a-folder`, "");
  const file = `${dir}/not-a-folder/config.json`;
  try {
    const config = await loadConfig({
      env: { ...BASE_ENV, GLEANER_ALLOW_CONFIG_WRITE: "1", GLEANER_API_KEY: KEY },
      file: "",
    });
    const gleaner = createGleanerFromConfig(config);
    const server = serveHttp(gleaner, { configFile: file });
    try {
      const response = await put(server.url, { network: { timeout_ms: 5_000 } }, KEY);
      const failure = await error(response);
      assert.equal(response.status, 500, JSON.stringify(failure));
      assert.equal(failure.code, "internal");
      assert.match(failure.message, /the config file \(config\.json\)/);
      assert.ok(!failure.message.includes(dir), failure.message);
      assert.ok(!failure.message.includes("/tmp"), failure.message);
    } finally {
      await server.shutdown();
      await gleaner.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("hosted mode: tenants can neither GET nor PUT /config; the operator's admin key can", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/config.json`;
  await Deno.writeTextFile(file, "{}");
  const config = await loadConfig({
    env: {
      ...BASE_ENV,
      GLEANER_MEMORY_ENABLED: "true",
      GLEANER_MEMORY_PATH: `${dir}/memory.db`,
      GLEANER_MEMORY_HOSTED: "true",
      GLEANER_MEMORY_HOSTED_PROXY_TOKEN: PROXY_TOKEN,
      GLEANER_MEMORY_HOSTED_HMAC_SECRET: HMAC_SECRET,
      GLEANER_MEMORY_HOSTED_ADMIN_KEY: ADMIN_KEY,
      GLEANER_ALLOW_CONFIG_WRITE: "1",
      // What the reverse proxy sends with every tenant's request.
      GLEANER_API_KEY: KEY,
    },
    file,
  });
  const gleaner = createGleanerFromConfig(config);
  const server = serveHttp(gleaner, { configFile: file });
  const as = (user: string, admin?: string) => (method: "GET" | "PUT", body?: unknown) =>
    fetch(`${server.url}/config`, {
      method,
      headers: {
        ...userHeaders(user),
        authorization: `Bearer ${KEY}`,
        "content-type": "application/json",
        ...(admin ? { "x-gleaner-admin-key": admin } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  try {
    for (const tenant of [as("alice"), as("bob")]) {
      const read = await tenant("GET");
      assert.equal(read.status, 403);
      const refused = await error(read);
      assert.equal(refused.code, "unauthorized");
      assert.match(refused.message, /only the operator.*x-gleaner-admin-key/);
      for (
        const body of [
          { rank: { max_tokens: 77 } },
          { memory: { hosted: false }, network: { allow_private: true } },
        ]
      ) {
        const write = await tenant("PUT", body);
        assert.equal(write.status, 403);
        assert.equal((await error(write)).code, "unauthorized");
      }
    }
    // A wrong admin key is refused like a wrong proxy token.
    const wrong = await as("alice", "x".repeat(40))("GET");
    assert.equal(wrong.status, 401);
    await wrong.body?.cancel();
    assert.equal(gleaner.config.rank.max_tokens, 4000, "no tenant changed the budget");
    assert.equal(await Deno.readTextFile(file), "{}", "no tenant wrote the config file");

    const operator = as("alice", ADMIN_KEY);
    const shown = await operator("GET");
    assert.equal(shown.status, 200);
    const text = await shown.text();
    assert.ok(!text.includes(ADMIN_KEY) && !text.includes(PROXY_TOKEN), "secrets redacted");
    assert.equal(JSON.parse(text).memory.hosted, true);
    const changed = await operator("PUT", {
      rank: { max_tokens: 77 },
      search: { region: "de-de" },
    });
    assert.equal(changed.status, 200);
    const answer = await changed.json();
    assert.deepEqual(answer.applied, ["rank.max_tokens"]);
    assert.deepEqual(answer.restart_required, ["search.region"]);
    assert.equal(gleaner.config.rank.max_tokens, 77);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(file)), { search: { region: "de-de" } });
    // Even the operator cannot turn hosted mode off over HTTP.
    const off = await operator("PUT", { memory: { hosted: false } });
    assert.equal(off.status, 400);
    assert.match((await error(off)).message, /memory\.hosted cannot be changed/);
  } finally {
    await server.shutdown();
    await gleaner.close();
    await Deno.remove(dir, { recursive: true });
  }
});

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);

/** Deno's cache directory, so that a child with another HOME does not download again. */
async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

/**
 * Runs `deno task start <args>` (the launcher under its scoped grants, as the README says) with
 * `env`, and `fn` with the server's base URL; stops it after.
 */
async function withLauncher(
  args: string[],
  env: Record<string, string>,
  fn: (base: string) => Promise<void>,
): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "start", "--port", "0", ...args],
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  let drained: Promise<void> = Promise.resolve();
  try {
    let base = "";
    while (!base) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`deno task start did not start:\n${seen}`);
      seen += decoder.decode(value, { stream: true });
      base = /listening on "?(http:\/\/[^\s")]+)/.exec(seen)?.[1]?.replace(/\/$/, "") ?? "";
    }
    drained = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        seen += decoder.decode(value, { stream: true });
      }
    })();
    await fn(base);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await drained;
  }
  return seen;
}

Deno.test("deno task start: PUT /config writes to the file loaded from GLEANER_CONFIG or --config", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gleaner-config-write-" });
  const env: Record<string, string> = {
    ...Deno.env.toObject(),
    DENO_DIR: await denoDir(),
    HOME: `${dir}/home`,
    XDG_CONFIG_HOME: `${dir}/xdg-config`,
    XDG_DATA_HOME: `${dir}/data`,
    TMPDIR: dir,
    ...BASE_ENV,
    GLEANER_READ_RENDER: "never",
    GLEANER_ALLOW_CONFIG_WRITE: "1",
    GLEANER_API_KEY: KEY,
    GLEANER_LOG_LEVEL: "info",
    NO_COLOR: "1",
  };
  delete env.GLEANER_CONFIG;
  delete env.GLEANER_PORT;
  await Deno.mkdir(`${dir}/home`);
  await Deno.mkdir(`${dir}/etc`);
  await Deno.mkdir(`${dir}/flag`);
  try {
    const runs: { name: string; args: string[]; env: Record<string, string>; file: string }[] = [
      {
        name: "GLEANER_CONFIG",
        args: [],
        env: { ...env, GLEANER_CONFIG: `${dir}/etc/gleaner.json` },
        file: `${dir}/etc/gleaner.json`,
      },
      {
        name: "--config",
        args: ["--config", `${dir}/flag/settings.json`],
        env,
        file: `${dir}/flag/settings.json`,
      },
    ];
    for (const run of runs) {
      await Deno.writeTextFile(run.file, JSON.stringify({ search: { region: "fr-fr" } }));
      const log = await withLauncher(run.args, run.env, async (base) => {
        const response = await put(base, { network: { timeout_ms: 6_000 } }, KEY);
        const body = await response.json();
        assert.equal(response.status, 200, `${run.name}: ${JSON.stringify(body)}`);
        assert.deepEqual(body.restart_required, ["network.timeout_ms"]);
        assert.equal(body.written, run.file.slice(run.file.lastIndexOf("/") + 1));
        // The loaded file's setting is the running one.
        assert.equal(body.config.search.region, "fr-fr", run.name);
      });
      assert.deepEqual(JSON.parse(await Deno.readTextFile(run.file)), {
        search: { region: "fr-fr" },
        network: { timeout_ms: 6_000 },
      }, run.name);
      assert.equal((await Deno.stat(run.file)).mode! & 0o777, 0o600, run.name);
      await assert.rejects(
        () => Deno.stat(`${dir}/xdg-config/gleaner/config.json`),
        Deno.errors.NotFound,
        `${run.name}: nothing is written to the XDG default`,
      );
      assert.doesNotMatch(log, /NotCapable|permission missing/, log);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the launcher grants write access to the config file's folder only with GLEANER_ALLOW_CONFIG_WRITE=1", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/etc`);
    await Deno.mkdir(`${dir}/srv`);
    await Deno.writeTextFile(`${dir}/etc/gleaner.json`, "{}");
    await Deno.writeTextFile(`${dir}/srv/settings.json`, "{}");
    const env = { HOME: `${dir}/home`, GLEANER_CONFIG: `${dir}/etc/gleaner.json` };
    const writeGrant = (argv: string[]) =>
      (argv.find((arg) => arg.startsWith("--allow-write=")) ?? "").slice(14).split(",");
    const off = await childArgv(["serve"], env);
    assert.ok(!writeGrant(off).includes(`${dir}/etc`), off.join(" "));
    const on = await childArgv(["serve"], { ...env, GLEANER_ALLOW_CONFIG_WRITE: "1" });
    assert.ok(writeGrant(on).includes(`${dir}/etc`), on.join(" "));
    const flag = await childArgv(["serve", "--config", `${dir}/srv/settings.json`], {
      ...env,
      GLEANER_ALLOW_CONFIG_WRITE: "1",
    });
    assert.ok(writeGrant(flag).includes(`${dir}/srv`), flag.join(" "));
    assert.ok(!writeGrant(flag).includes(`${dir}/etc`), flag.join(" "));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
