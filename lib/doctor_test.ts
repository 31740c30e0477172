import assert from "node:assert/strict";
import { parseConfig } from "./config/config.ts";
import { PROVIDERS } from "./search/providers/registry.ts";
import { type DoctorCheck, type DoctorReport, runDoctor } from "./doctor.ts";
import { freePort } from "../testing/fixtures/serve.ts";
import { ignorePostgres, postgresSuffix, startPostgres } from "../testing/fixtures/postgres.ts";
import { DENO_RUN_FLAGS } from "../testing/fixtures/world.ts";
import { gleanerInProcess } from "../testing/fixtures/cli.ts";
import { PostgresMemoryDatabase } from "./memory/postgres/backend.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;

/** Every keyless search engine turned off. */
const NO_KEYLESS: Record<string, { enabled: false }> = Object.fromEntries(
  PROVIDERS.filter((p) => p.keyless).map((p) => [p.name, { enabled: false }]),
);

Deno.test("doctor names the outbound proxy without its credentials", async () => {
  const proxied = await runDoctor(parseConfig({
    store: { path: ":memory:" },
    embed: { provider: "none" },
    network: { proxy_url: "http://me:s3cret@proxy.corp:3128", no_proxy: ["intranet.corp"] },
  }));
  const check = proxied.checks.find((c) => c.name === "outbound proxy");
  assert.ok(check, "an outbound proxy check");
  assert.match(check.detail, /^http:\/\/proxy\.corp:3128, bypassed for intranet\.corp/);
  assert.match(check.detail, /checked by the proxy/);
  assert.ok(!check.detail.includes("s3cret") && !check.detail.includes("me:"));

  const direct = await runDoctor(
    parseConfig({ store: { path: ":memory:" }, embed: { provider: "none" } }),
  );
  assert.equal(
    direct.checks.find((c) => c.name === "outbound proxy")?.detail,
    "none: direct connections",
  );
});

Deno.test("doctor --online: each keyed provider is asked once; a refused key or retired model fails with what to do", async () => {
  const { withFakeProviders } = await import("../testing/fixtures/fake_providers.ts");
  await withFakeProviders(async (fakes) => {
    // The keyless engines off: `--online` also sends each a search; these tests reach loopback only.
    const options = (search: { providers?: Record<string, unknown> } = {}) =>
      parseConfig({
        ...fakes.config({ brave: "brave-key-1", gemini: "AIza-key-2" }, {
          ...search,
          providers: { ...NO_KEYLESS, ...search.providers },
        }),
        store: { path: ":memory:" },
        embed: { provider: "none" },
      });
    const offline = await runDoctor(options());
    assert.ok(!offline.checks.some((c) => c.name.startsWith("provider ")), "offline asks nobody");
    assert.equal(fakes.requestsOf("brave").length + fakes.requestsOf("gemini").length, 0);

    const good = await runDoctor(options(), { online: true });
    const brave = good.checks.find((c) => c.name === "provider brave (search)")!;
    const gemini = good.checks.find((c) => c.name === "provider gemini (search, answer)")!;
    assert.ok(brave.ok && /key accepted \(a one-result search/.test(brave.detail), brave.detail);
    assert.ok(gemini.ok, gemini.detail);
    assert.match(gemini.detail, /model models\/gemini-3\.5-flash-lite available/);
    assert.equal(fakes.requestsOf("gemini").at(-1)!.method, "GET", "models.get, not a paid answer");
    assert.ok(
      !good.checks.some((c) => c.name.startsWith("provider duckduckgo")),
      "keyless skipped",
    );

    fakes.setMode("brave", "unauthorized");
    const refused = await runDoctor(
      options({ providers: { gemini: { model: "gemini-2.5-flash" } } }),
      { online: true },
    );
    assert.equal(refused.ok, false);
    const badKey = refused.checks.find((c) => c.name.startsWith("provider brave"))!;
    assert.ok(
      !badKey.ok &&
        /the key was refused: check it: search\.providers\.brave\.api_key/.test(badKey.detail),
    );
    assert.ok(!badKey.detail.includes("brave-key-1"), "never the key");
    const retired = refused.checks.find((c) => c.name.startsWith("provider gemini"))!;
    assert.ok(!retired.ok && /check its setting/.test(retired.detail), retired.detail);
  });
});

Deno.test("doctor --online: Seltz and Querit are asked a one-result search; Querit's spent quota inside a 200 says check the plan", async () => {
  const { withFakeProviders } = await import("../testing/fixtures/fake_providers.ts");
  await withFakeProviders(async (fakes) => {
    const config = parseConfig({
      ...fakes.config({ seltz: "seltz-key-1", querit: "querit-key-2" }, {
        providers: NO_KEYLESS,
      }),
      store: { path: ":memory:" },
      embed: { provider: "none" },
    });
    const good = await runDoctor(config, { online: true });
    for (const name of ["seltz", "querit"] as const) {
      const check = good.checks.find((c) => c.name === `provider ${name} (search)`)!;
      assert.ok(check?.ok && /key accepted \(a one-result search: 1 result\)/.test(check.detail));
      assert.equal(fakes.requestsOf(name).length, 1, `${name} asked once`);
    }
    assert.equal((fakes.requestsOf("querit")[0].body as { count: number }).count, 1);

    fakes.setMode("querit", "balance");
    const spent = await runDoctor(config, { online: true });
    const querit = spent.checks.find((c) => c.name === "provider querit (search)")!;
    assert.equal(querit.ok, false);
    assert.match(querit.detail, /error code 429 in its body/);
    assert.match(
      querit.detail,
      /out of credit or over quota: check the plan: search\.providers\.querit\.api_key/,
    );
    assert.ok(!JSON.stringify(spent).includes("querit-key-2"), "never the key");
  });
});

Deno.test("doctor checks that the network policy lets Gleaner reach a configured Hister", async () => {
  const base = { store: { path: ":memory:" }, embed: { provider: "none" } } as const;
  const none = await runDoctor(parseConfig(base));
  assert.ok(!none.checks.some((c) => c.name.includes("Hister")), "absent until configured");

  const refused = await runDoctor(parseConfig({
    ...base,
    read: { hister_url: "http://127.0.0.1:4433", hister_token: "t0ken-value" },
  }));
  const bad = refused.checks.find((c) => c.name === "browsing history (Hister)");
  assert.equal(bad?.ok, false);
  assert.match(bad!.detail, /network\.allow_private/);
  assert.equal(refused.ok, false);

  const allowed = await runDoctor(parseConfig({
    ...base,
    network: { allow_private: ["http://127.0.0.1:4433"] },
    read: { hister_url: "http://127.0.0.1:4433", hister_token: "t0ken-value" },
  }));
  const good = allowed.checks.find((c) => c.name === "browsing history (Hister)");
  assert.equal(good?.ok, true);
  assert.match(good!.detail, /^http:\/\/127\.0\.0\.1:4433\/ with read\.hister_token$/);
  assert.ok(!JSON.stringify(allowed).includes("t0ken-value"));
});

/** The checks of a report by name. */
function byName(report: DoctorReport): Map<string, DoctorCheck> {
  return new Map(report.checks.map((c) => [c.name, c] as const));
}

/** A configuration whose memory store is `path` (no embedder, no web store on disk). */
function memoryConfig(memory: Record<string, unknown>) {
  return parseConfig({ store: { path: ":memory:" }, embed: { provider: "none" }, memory });
}

Deno.test("doctor: a fresh SQLite memory store opens, is migrated, loads sqlite-vec, modes tight", async () => {
  const root = await Deno.makeTempDir();
  try {
    const path = `${root}/gleaner/memory.db`;
    const first = byName(await runDoctor(memoryConfig({ path })));
    assert.equal(first.get("memory store")?.status, "ok", first.get("memory store")?.detail);
    assert.match(first.get("memory store")!.detail, new RegExp(`sqlite ${path} \\(0 memories`));
    assert.match(first.get("memory migrations")!.detail, /^schema 0 → \d+: applied 1, 2/);
    assert.match(first.get("memory vectors")!.detail, /^sqlite-vec v\d+\.\d+\.\d+ loaded; unused/);
    assert.equal(first.get("memory vectors")?.status, "ok");

    const again = byName(await runDoctor(memoryConfig({ path })));
    assert.match(again.get("memory migrations")!.detail, /^schema \d+: current$/);
    const modes = again.get("memory file modes");
    assert.equal(modes?.status, "ok", modes?.detail);
    assert.match(modes!.detail, new RegExp(`${root}/gleaner 0700`));
    assert.match(modes!.detail, new RegExp(`${path} 0600`));
    assert.equal(modes?.fix, undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name: "doctor: a memory folder 0755 and file 0644 are reported as a warning and tightened",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const root = await Deno.makeTempDir();
    try {
      const dir = `${root}/gleaner`;
      const path = `${dir}/memory.db`;
      await runDoctor(memoryConfig({ path }));
      Deno.chmodSync(dir, 0o755);
      Deno.chmodSync(path, 0o644);

      const report = await runDoctor(memoryConfig({ path }));
      const modes = byName(report).get("memory file modes");
      assert.equal(modes?.status, "warn");
      assert.equal(modes?.ok, true, "a warning does not fail the report");
      assert.match(modes!.detail, new RegExp(`folder ${dir} was 0755, tightened to 0700`));
      assert.match(modes!.detail, new RegExp(`file ${path} was 0644, tightened to 0600`));
      assert.match(modes?.fix ?? "", /nothing more to do/);
      assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
      assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "gleaner doctor (the command): a loose memory folder is tightened, reported, and warned about once",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const root = await Deno.makeTempDir();
    try {
      const dir = `${root}/data/gleaner`;
      Deno.mkdirSync(dir, { recursive: true });
      Deno.chmodSync(dir, 0o755);
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...DENO_RUN_FLAGS, CLI, "doctor", "--json"],
        env: {
          ...Deno.env.toObject(),
          NO_COLOR: "1",
          XDG_DATA_HOME: `${root}/data`,
          XDG_CONFIG_HOME: `${root}/config`,
          GLEANER_STORE_PATH: ":memory:",
          GLEANER_EMBED_PROVIDER: "none",
        },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      const report = JSON.parse(new TextDecoder().decode(out.stdout)) as DoctorReport;
      const checks = byName(report);
      assert.equal(checks.get("memory store")?.status, "ok", checks.get("memory store")?.detail);
      assert.match(checks.get("memory store")!.detail, new RegExp(`${dir}/memory.db`));
      const modes = checks.get("memory file modes");
      assert.equal(modes?.status, "warn", JSON.stringify(modes));
      assert.match(modes!.detail, /was 0755, tightened to 0700/);
      const warnings = stderr.split("\n").filter((l) => l.includes(dir) && /0755/.test(l));
      assert.equal(warnings.length, 1, stderr);
      assert.match(warnings[0], /0755.*0700/);
      assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
      assert.equal(Deno.statSync(`${dir}/memory.db`).mode! & 0o777, 0o600);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("doctor: an unreachable PostgreSQL memory store fails with a fix and no password", async () => {
  const port = freePort();
  const report = await runDoctor(memoryConfig({
    backend: "postgres",
    postgres_url: `postgres://gleaner:s3cret-pw@127.0.0.1:${port}/gleaner`,
  }));
  const store = byName(report).get("memory store");
  assert.equal(store?.status, "fail");
  assert.equal(report.ok, false);
  assert.match(store!.detail, /unavailable/);
  assert.match(store?.fix ?? "", /host, port/);
  assert.ok(!JSON.stringify(report).includes("s3cret-pw"), "the password is never shown");
});

Deno.test({
  name: `doctor: a PostgreSQL memory store opens, is migrated, loads pgvector${postgresSuffix}`,
  ignore: ignorePostgres,
  fn: async () => {
    await using server = await startPostgres();
    // Trust authentication on loopback: the password is never asked for, only redacted.
    const url = server.url.replace("postgres@", "postgres:s3cret-pw@");
    const first = await runDoctor(memoryConfig({ backend: "postgres", postgres_url: url }));
    const checks = byName(first);
    assert.equal(checks.get("memory store")?.status, "ok", checks.get("memory store")?.detail);
    assert.match(
      checks.get("memory store")!.detail,
      new RegExp(`^postgres postgres://\\[redacted\\]@127\\.0\\.0\\.1:${server.port}/postgres`),
    );
    assert.match(checks.get("memory migrations")!.detail, /^schema 0 → \d+: applied 1, 2/);
    assert.match(
      checks.get("memory vectors")!.detail,
      /^pgvector \d+\.\d+\.\d+ loaded; .*; 0 saved vectors waiting for the index$/,
    );
    assert.equal(checks.get("memory file modes"), undefined, "no files of ours to check");
    assert.ok(!JSON.stringify(first).includes("s3cret-pw"));

    // Three saves no indexer has taken yet (a store opened without one).
    const db = await PostgresMemoryDatabase.open({ url: server.url });
    try {
      await db.indexer.close();
      const store = db.backend("");
      await store.useEmbeddingModel("doctor:m2", 2);
      await store.insert([1, 2, 3].map((i) => ({
        content: `memory ${i}`,
        kind: "episodic" as const,
        session_id: null,
        tokens: 2,
        created_at: Date.UTC(2026, 0, i),
        embedding: { model: "doctor:m2", vector: new Float32Array([1, i]) },
      })));
    } finally {
      await db.close();
    }
    const again = byName(
      await runDoctor(memoryConfig({ backend: "postgres", postgres_url: url })),
    );
    assert.match(again.get("memory migrations")!.detail, /^schema \d+: current$/);
    assert.match(again.get("memory vectors")!.detail, /; 3 saved vectors waiting for the index$/);
  },
});

Deno.test("gleaner doctor (the command): every config problem, a trailing comma with its line and column, and the other checks still run; one plain line per check; --json the same report", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/config/gleaner`, { recursive: true });
    await Deno.writeTextFile(
      `${root}/config/gleaner/config.json`,
      '{\n  "search": { "region": "de-de", },\n  "server": { "port": 9000 }\n}\n',
    );
    // In process: what the command prints and returns is tested here.
    const run = async (json: boolean) => {
      const out = await gleanerInProcess(["doctor", ...(json ? ["--json"] : [])], {
        ...Deno.env.toObject(),
        XDG_DATA_HOME: `${root}/data`,
        XDG_CONFIG_HOME: `${root}/config`,
        GLEANER_STORE_PATH: ":memory:",
        GLEANER_MEMORY_PATH: ":memory:",
        GLEANER_EMBED_PROVIDER: "none",
        GLEANER_LOG_LEVEL: "warning",
        GLEANER_SERVER_PORT: "eighty",
        // A key pasted with the line's end, and one with a space in it.
        GLEANER_SEARCH_BRAVE_API_KEY: "BSA-do-not-print-1\n",
        GLEANER_SEARCH_EXA_API_KEY: "exa do-not-print-2",
      });
      return { code: out.code, stdout: out.out };
    };
    const [text, json] = await Promise.all([run(false), run(true)]);
    assert.equal(text.code, 1, text.stdout);
    assert.ok(!text.stdout.includes("do-not-print"), "never a key");
    const lines = text.stdout.trimEnd().split("\n");
    assert.match(lines[0], /^gleaner doctor \d/);
    const line = (prefix: string) => lines.find((l) => l.startsWith(prefix));
    assert.match(
      line("FAIL config config file:") ?? text.stdout,
      /config\.json: line 2, column 32: a trailing comma \(JSON allows none\); fix: /,
    );
    assert.match(line("FAIL config server.port:") ?? text.stdout, /GLEANER_SERVER_PORT/);
    assert.match(
      line("FAIL key search.brave_api_key:") ?? text.stdout,
      /contains a line break \(at the end\).*; fix: set search\.brave_api_key again/,
    );
    assert.match(line("FAIL key search.exa_api_key:") ?? text.stdout, /contains a space/);
    // The other checks ran, on the rest of the configuration.
    for (const name of ["permissions", "store", "memory store", "search providers"]) {
      assert.ok(line(`ok   ${name}:`), `${name} checked:\n${text.stdout}`);
    }
    assert.match(
      line("skip web search:") ?? text.stdout,
      /not checked.*fix: run gleaner doctor --online/,
    );
    assert.equal(lines.at(-1), "4 failed, 0 warnings, 1 not checked");
    // Each check one line, and the same checks in JSON.
    const report = JSON.parse(json.stdout) as DoctorReport;
    assert.equal(json.code, 1);
    assert.equal(report.ok, false);
    assert.equal(lines.length, report.checks.length + 2);
    assert.deepEqual(
      report.checks.filter((c) => c.status === "fail").map((c) => c.name),
      [
        "config config file",
        "config server.port",
        "key search.brave_api_key",
        "key search.exa_api_key",
      ],
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("doctor --online: an engine or a provider it could not reach is not checked, never ok; a SearXNG the network policy refuses fails naming the setting", async () => {
  const [{ withFakeUpstreams, fakeUpstreamConfig }, { withFakeProviders }] = await Promise.all([
    import("../testing/fixtures/upstreams.ts"),
    import("../testing/fixtures/fake_providers.ts"),
  ]);
  await withFakeUpstreams(async (upstreams) => {
    await withFakeProviders(async (fakes) => {
      const closed = `http://127.0.0.1:${freePort()}`;
      const base = fakeUpstreamConfig(upstreams);
      const keyed = fakes.config({ brave: "brave-key-1" }, {
        providers: { brave: { base_url: `${closed}/brave` } },
      }) as {
        network: { allow_private: string[]; allowed_ports: number[] };
        search: Record<string, unknown>;
      };
      const config = (search: Record<string, unknown>) =>
        parseConfig({
          ...keyed,
          network: {
            allow_private: [...base.network.allow_private, ...keyed.network.allow_private, closed],
            allowed_ports: [
              ...base.network.allowed_ports,
              ...keyed.network.allowed_ports,
              Number(new URL(closed).port),
            ],
          },
          search: {
            ...base.search,
            ...keyed.search,
            ...search,
            // DuckDuckGo (and SearXNG when set) on the fakes; the other keyless engines off.
            providers: {
              ...(keyed.search.providers as Record<string, unknown>),
              // The keyed fakes point the keyless engines at a dead end: DuckDuckGo's own fake.
              duckduckgo: {},
              ...Object.fromEntries(
                Object.keys(NO_KEYLESS).filter((name) =>
                  name !== "duckduckgo" && name !== "searxng"
                )
                  .map((name) => [name, { enabled: false }]),
              ),
            },
          },
          store: { path: ":memory:" },
          memory: { enabled: false },
          embed: { provider: "none" },
        });

      // Without --online nothing is sent, and nothing is called ok for it.
      const local = await runDoctor(config({}));
      assert.equal(local.checks.find((c) => c.name === "web search")?.status, "skip");
      assert.equal(fakes.requests.length + upstreams.requests.length, 0);

      // DuckDuckGo answers; Brave cannot be reached: not checked, and not a failure.
      const online = await runDoctor(config({}), { online: true });
      assert.deepEqual(
        online.checks.filter((c) => c.name.startsWith("web search")).map((c) => c.name),
        ["web search duckduckgo"],
        "one search per keyless engine in use, here only DuckDuckGo (on loopback)",
      );
      const ddg = online.checks.find((c) => c.name === "web search duckduckgo")!;
      assert.equal(ddg.status, "ok", ddg.detail);
      const brave = online.checks.find((c) => c.name.startsWith("provider brave"))!;
      assert.equal(brave.status, "skip", brave.detail);
      assert.match(brave.detail, /^not checked: /);

      // DuckDuckGo unreachable too (offline): not checked, never ok.
      const offline = await runDoctor(
        config({ duckduckgo_html_url: `${closed}/html/`, duckduckgo_lite_url: `${closed}/lite/` }),
        { online: true },
      );
      const down = offline.checks.find((c) => c.name === "web search duckduckgo")!;
      assert.equal(down.status, "skip", down.detail);
      assert.match(down.detail, /^not checked: /);
      assert.ok(
        !offline.checks.some((c) => c.status === "ok" && /web search|provider /.test(c.name)),
        "no network check says ok",
      );

      // A SearXNG on localhost: the configuration's fault, named with the value to add.
      const port = new URL(upstreams.origin).port;
      const refused = await runDoctor(
        config({ searxng_url: `http://localhost:${port}/searxng` }),
        { online: true },
      );
      const searxng = refused.checks.find((c) => c.name === "web search searxng")!;
      assert.equal(searxng.status, "fail", searxng.detail);
      assert.match(
        searxng.detail,
        new RegExp(`add "http://localhost:${port}" to network\\.allow_private`),
      );
      assert.equal(refused.ok, false);
    });
  });
});
