/**
 * The `gleaner` command tells the operator what went wrong: usage errors exit
 * 2 and name the nearest setting, misspelt environment names warn, a batch in
 * which every item failed exits 1, a missing Deno permission names its flag,
 * and a non-loopback bind without a key refuses to start.
 *
 * What the command parses, prints and returns runs in process (`gleanerInProcess`); a
 * process is spawned where its grants are the point, and for `serve`.
 */
import assert from "node:assert/strict";
import { DENO_RUN_FLAGS, startTestWorld } from "../testing/fixtures/world.ts";
import { gleanerInProcess } from "../testing/fixtures/cli.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;

async function gleaner(
  args: string[],
  env: Record<string, string>,
  flags: readonly string[] = DENO_RUN_FLAGS,
) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, CLI, ...args],
    env: { ...env, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code, out: new TextDecoder().decode(stdout), err: new TextDecoder().decode(stderr) };
}

const ENV = {
  GLEANER_STORE_PATH: ":memory:",
  GLEANER_EMBED_PROVIDER: "none",
  GLEANER_LOG_LEVEL: "warning",
  XDG_CONFIG_HOME: "/nonexistent/gleaner-test-config",
};

Deno.test("cli: a mistyped flag, command or --set key is a usage error (exit 2)", async () => {
  // Independent runs, side by side.
  const [flag, command, set, port] = await Promise.all([
    gleanerInProcess(["search", "x", "--max-token", "5"], ENV),
    gleanerInProcess(["serach", "x"], ENV),
    gleanerInProcess(["config", "--set", "search.searxng=http://127.0.0.1:1/"], ENV),
    gleanerInProcess(["serve", "--port", "eighty"], ENV),
  ]);
  assert.equal(flag.code, 2, flag.err);
  assert.match(flag.err, /--max-token/);

  assert.equal(command.code, 2, command.err);
  assert.match(command.err, /unknown command: serach/);

  assert.equal(set.code, 2, set.err);
  assert.match(set.err, /unknown setting "search\.searxng"; did you mean "search\.searxng_url"\?/);

  assert.equal(port.code, 2, port.err);
});

Deno.test("cli: a misspelt GLEANER_* name warns with the nearest setting; the file is strict", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/config.json`;
    await Deno.writeTextFile(file, JSON.stringify({ search: { regoin: "de-de" } }));
    // Independent runs, side by side.
    const [config, bad] = await Promise.all([
      gleanerInProcess(["config"], { ...ENV, GLEANER_SERACH_REGION: "de-de" }),
      gleanerInProcess(["config", "--config", file], ENV),
    ]);
    assert.equal(config.code, 0, config.err);
    assert.match(config.err, /GLEANER_SERACH_REGION .*did you mean GLEANER_SEARCH_REGION/);
    assert.equal(JSON.parse(config.out).search.region, "us-en");

    assert.equal(bad.code, 1, bad.err);
    assert.match(
      bad.err,
      /invalid_arguments: .*unknown setting "search\.regoin".*"search\.region"/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli: scrape exits 1 when every item failed, 0 when one succeeded", async () => {
  const world = await startTestWorld();
  try {
    // Independent runs, side by side.
    const [failed, mixed] = await Promise.all([
      gleanerInProcess(
        ["scrape", "http://169.254.169.254/latest/", world.web.url("/404"), "--json"],
        world.env,
      ),
      gleanerInProcess(
        ["scrape", "http://169.254.169.254/latest/", world.web.url("/pages/002"), "--json"],
        world.env,
      ),
    ]);
    assert.equal(failed.code, 1, failed.err);
    const out = JSON.parse(failed.out);
    assert.deepEqual(out.items.map((i: { error: { code: string } }) => i.error.code), [
      "blocked_url",
      "not_found",
    ]);
    assert.equal(mixed.code, 0, mixed.err);
  } finally {
    await world.close();
  }
});

Deno.test("cli: without --allow-net a read names the flag to add", async () => {
  const flags = DENO_RUN_FLAGS.filter((flag) => flag !== "--allow-net");
  const out = await gleaner(
    ["scrape", "http://127.0.0.1:9/page", "--json"],
    { ...ENV, GLEANER_NETWORK_ALLOW_PRIVATE: "true", GLEANER_NETWORK_ALLOWED_PORTS: "9" },
    flags,
  );
  assert.equal(out.code, 1, out.err);
  const item = JSON.parse(out.out).items[0];
  assert.match(item.error.message, /--allow-net/);
});

Deno.test("cli: serve refuses a non-loopback host without server.api_key (exit 2)", async () => {
  // 203.0.113.1 (TEST-NET-3) is no address of this machine: even a server that ignored the
  // rule could not bind it, so the test never listens beyond loopback.
  const out = await gleaner(["serve", "--host", "203.0.113.1", "--port", "0"], ENV);
  assert.equal(out.code, 2, out.err);
  assert.match(out.err, /server\.api_key/);
  assert.match(out.err, /--insecure/);
});

/** Whole grants without `--allow-sys` (the scoped task grants are tested in permissions_test.ts). */
const TASK_FLAGS = [
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-ffi",
  "--allow-run",
];

Deno.test("cli: exit codes as the README documents them (2 usage, 1 failed, JSON errors with --json)", async (t) => {
  await t.step(
    "search, research and scrape without their argument: usage error, exit 2",
    async () => {
      const cases = [["search"], ["search", " "], ["research"], ["scrape"]];
      // In process, side by side: the exit code runCli returns (the process exits with it,
      // as the two steps below check in a process under TASK_FLAGS).
      const runs = await Promise.all(cases.map((args) => gleanerInProcess(args, ENV)));
      for (const [i, args] of cases.entries()) {
        const run = runs[i];
        assert.equal(run.code, 2, `${args.join(" ")}: ${run.out}${run.err}`);
        assert.match(run.err, /needs (a query|a question|at least one URL)/);
        assert.equal(run.out, "", "nothing on stdout without --json");
      }
    },
  );

  await t.step("a refused flag value is a usage error naming the flag, exit 2", async () => {
    // In process, side by side.
    const [port, level, set, env] = await Promise.all([
      gleanerInProcess(["search", "x", "--port", "99999"], ENV),
      gleanerInProcess(["config", "--log-level", "loud"], ENV),
      gleanerInProcess(["config", "--set", "search.backend=nope"], ENV),
      gleanerInProcess(["config"], { ...ENV, GLEANER_PORT: "99999" }),
    ]);
    assert.equal(port.code, 2, port.err);
    assert.match(port.err, /--port: config: server\.port/);
    assert.equal(level.code, 2, level.err);
    assert.match(level.err, /--log-level: config: log\.level/);
    assert.equal(set.code, 2, set.err);
    assert.match(set.err, /--set search\.backend: config: search\.backend/);
    // The same bad value from the environment is a configuration failure, exit 1.
    assert.equal(env.code, 1, env.err);
  });

  await t.step("--json: a usage error is a JSON error object on stdout too", async () => {
    const run = await gleaner(["--json", "research"], ENV, TASK_FLAGS);
    assert.equal(run.code, 2, run.err);
    const out = JSON.parse(run.out);
    assert.equal(out.error.code, "invalid_arguments");
    assert.match(out.error.message, /research needs a question/);
  });

  await t.step("--json: a failing research is a JSON error object on stdout, exit 1", async () => {
    // Every search upstream refuses connections: a port that was just closed.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const closed = `http://127.0.0.1:${listener.addr.port}/`;
    listener.close();
    const world = await startTestWorld();
    try {
      const env = {
        ...world.env,
        GLEANER_NETWORK_ALLOWED_PORTS: JSON.stringify([
          ...JSON.parse(world.env.GLEANER_NETWORK_ALLOWED_PORTS),
          Number(new URL(closed).port),
        ]),
        GLEANER_SEARCH_DUCKDUCKGO_HTML_URL: closed,
        GLEANER_SEARCH_DUCKDUCKGO_LITE_URL: closed,
        // And every other keyless engine.
        GLEANER_SEARCH_PROVIDERS: JSON.stringify(
          Object.fromEntries(
            Object.entries(JSON.parse(world.env.GLEANER_SEARCH_PROVIDERS) as object).map((
              [name, own],
            ) => [name, own.base_url ? { ...own, base_url: closed } : own]),
          ),
        ),
      };
      const run = await gleaner(["research", "sqlite wal mode", "--json"], env, TASK_FLAGS);
      assert.equal(run.code, 1, run.err);
      const out = JSON.parse(run.out);
      assert.ok(out.error, run.out);
      assert.equal(typeof out.error.code, "string");
      assert.notEqual(out.error.code, "internal", run.out);
      assert.match(out.error.message, /search/);
      assert.match(run.err, new RegExp(`${out.error.code}: `));
    } finally {
      await world.close();
    }
  });
});
