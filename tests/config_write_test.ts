/**
 * `PUT /config` over real HTTP: off unless the environment opts in and an
 * API key is set; validated by the one schema; call-time settings applied at
 * once, the others written to the config file; secrets never echoed.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../lib/config/config.ts";
import { createGleanerFromConfig } from "../lib/gleaner.ts";
import { serveHttp } from "../http/serve.ts";

const KEY = "config-write-test-key";
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
        search: { brave_api_key: "brave-secret-value-1" },
        network: { timeout_ms: 5_000 },
      }, KEY);
      assert.equal(cold.status, 200);
      const text = await cold.text();
      assert.ok(!text.includes("brave-secret-value-1"), text);
      const answer = JSON.parse(text);
      assert.deepEqual(answer.applied, []);
      assert.deepEqual(answer.restart_required, ["search.brave_api_key", "network.timeout_ms"]);
      assert.equal(answer.written, file);
      // Not in force until a restart.
      assert.equal(answer.config.network.timeout_ms, 20_000);
      const stored = JSON.parse(await Deno.readTextFile(file));
      assert.deepEqual(stored, {
        log: { level: "warning" },
        search: { brave_api_key: "brave-secret-value-1" },
        network: { timeout_ms: 5_000 },
      });
      assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
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
