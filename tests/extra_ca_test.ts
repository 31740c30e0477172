/**
 * Behind a corporate CA: the exact `deno task start` and `deno task mcp`
 * command lines of deno.json (their own permission flags, never -A) read an
 * HTTPS page on loopback whose certificate is signed by a CA the test makes,
 * trusted through `NODE_EXTRA_CA_CERTS` or `DENO_CERT`
 * (https://docs.deno.com/runtime/reference/env_variables/,
 * https://nodejs.org/api/cli.html#node_extra_ca_certsfile). The loopback
 * exemption of the SSRF guard is turned on for the page's origin only.
 * `gleaner doctor` is checked to fail, naming the fix, when a read would fail.
 */
import { makeCertificates } from "../testing/fixtures/tls.ts";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { childArgv } from "../scripts/launch.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const MARKER = "Quarterly figures for the harbour ferry were published on Tuesday";

/** The argv of a deno.json task, checked to be a plain `deno run` with its own flags. */
async function taskArgv(name: string): Promise<string[]> {
  const json = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const line: string = json.tasks[name];
  assert.ok(!/[|&;<>$`'"]/.test(line), `task ${name} is one plain command: ${line}`);
  // Deno's own update check is off (no lookup of dl.deno.land, no notice on stderr).
  const argv = line.trim().replace(/^DENO_NO_UPDATE_CHECK=1\s+/, "").split(/\s+/);
  assert.deepEqual(argv.slice(0, 2), ["deno", "run"], `task ${name}: ${line}`);
  assert.ok(
    !argv.some((a) => a === "-A" || a === "--allow-all"),
    `task ${name} names its permissions: ${line}`,
  );
  return argv.slice(1);
}

/** A CA and a server certificate for 127.0.0.1 signed by it; the CA's PEM file in a temp dir. */
async function makeCa(): Promise<{ dir: string; caPem: string; cert: string; key: string }> {
  const dir = await Deno.makeTempDir({ prefix: "gleaner-ca-" });
  const { ca, cert, key } = await makeCertificates("IP:127.0.0.1");
  await Deno.writeTextFile(`${dir}/ca.pem`, ca);
  return { dir, caPem: `${dir}/ca.pem`, cert, key };
}

const PAGE = `<!doctype html><html lang="en"><head><title>Harbour ferry report</title></head>
<body><article><h1>Harbour ferry report</h1>
<p>${MARKER}, showing more passengers than in any year before.</p>
<p>The operator said the new timetable and the second boat explain most of the growth, and that
the winter service will keep its hourly departures until the spring.</p>
</article></body></html>`;

interface World {
  ca: Awaited<ReturnType<typeof makeCa>>;
  pageUrl: string;
  /** Environment for the child: the SSRF exemption for the page's origin only. */
  env(variable: "NODE_EXTRA_CA_CERTS" | "DENO_CERT"): Record<string, string>;
  close(): Promise<void>;
}

async function startWorld(): Promise<World> {
  const ca = await makeCa();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: ca.cert, key: ca.key, onListen() {} },
    (req) =>
      new URL(req.url).pathname === "/article"
        ? new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } })
        : new Response("not found", { status: 404 }),
  );
  const origin = `https://127.0.0.1:${server.addr.port}`;
  const base = Deno.env.toObject();
  delete base.NODE_EXTRA_CA_CERTS;
  delete base.DENO_CERT;
  return {
    ca,
    pageUrl: `${origin}/article`,
    env: (variable) => ({
      ...base,
      [variable]: ca.caPem,
      GLEANER_NETWORK_ALLOW_PRIVATE: JSON.stringify([origin]),
      GLEANER_NETWORK_ALLOWED_PORTS: JSON.stringify([443, server.addr.port]),
      GLEANER_STORE_PATH: ":memory:",
      GLEANER_EMBED_PROVIDER: "none",
      GLEANER_READ_RENDER: "never",
      GLEANER_MEMORY_PATH: `${ca.dir}/memory.db`,
      XDG_CONFIG_HOME: `${ca.dir}/config`,
      XDG_DATA_HOME: `${ca.dir}/data`,
      NO_COLOR: "1",
    }),
    close: async () => {
      await server.shutdown();
      await Deno.remove(ca.dir, { recursive: true });
    },
  };
}

/** Runs `deno task start` (its argv from deno.json) and returns its base URL. */
async function startServe(env: Record<string, string>) {
  const argv = await taskArgv("start");
  const child = new Deno.Command(Deno.execPath(), {
    args: [...argv, "--port", "0"],
    cwd: ROOT,
    env: { ...env, GLEANER_LOG_LEVEL: "info" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const decoder = new TextDecoder();
  let seen = "";
  const lines = child.stderr.getReader();
  for (;;) {
    const { value, done } = await lines.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
    const m = /listening on "?(http:\/\/[^\s")]+)/.exec(seen);
    if (m) {
      // Keep draining stderr so the child never blocks on a full pipe.
      (async () => {
        while (!(await lines.read()).done) { /* drain */ }
      })();
      return {
        base: m[1].replace(/\/$/, ""),
        stop: async () => {
          child.kill("SIGTERM");
          await child.status;
          await child.stdout.cancel();
        },
      };
    }
  }
  await child.stdout.cancel();
  throw new Error(`deno task start did not start:\n${seen}`);
}

for (const variable of ["NODE_EXTRA_CA_CERTS", "DENO_CERT"] as const) {
  Deno.test(`deno task start reads an HTTPS page signed by a CA from ${variable}`, async () => {
    const world = await startWorld();
    try {
      const serve = await startServe(world.env(variable));
      try {
        const res = await fetch(`${serve.base}/v1/scrape`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ items: [{ url: world.pageUrl }] }),
        });
        const json = await res.json();
        assert.equal(res.status, 200, JSON.stringify(json));
        const [item] = json.items;
        assert.equal(item.ok, true, JSON.stringify(item.error));
        assert.ok(JSON.stringify(json).includes(MARKER), "the page's text is in the answer");
      } finally {
        await serve.stop();
      }
    } finally {
      await world.close();
    }
  });

  Deno.test(`deno task mcp (stdio) reads an HTTPS page signed by a CA from ${variable}`, async () => {
    const world = await startWorld();
    const argv = await taskArgv("mcp");
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: argv,
      cwd: ROOT,
      env: world.env(variable),
      stderr: "pipe",
    });
    const client = new Client({ name: "gleaner-ca-test", version: "1.0.0" });
    try {
      await client.connect(transport as Transport);
      const result = await client.callTool({
        name: "scrape_urls",
        arguments: { items: [{ url: world.pageUrl }] },
      }) as { isError?: boolean; content: { text: string }[]; structuredContent?: unknown };
      assert.ok(!result.isError, result.content[0]?.text);
      const out = result.structuredContent as { items: { ok: boolean; error?: unknown }[] };
      assert.equal(out.items[0].ok, true, JSON.stringify(out.items[0].error));
      assert.ok(JSON.stringify(out).includes(MARKER), "the page's text is in the answer");
    } finally {
      await client.close();
      await world.close();
    }
  });
}

/**
 * `deno run <flags> cli.ts <args>` with the given environment: exit code, stdout and stderr.
 * `--node-modules-dir=manual` as `deno task mcp` has it: the grants are what is tested here.
 */
async function runCli(flags: string[], args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--node-modules-dir=manual", ...flags, "cli.ts", ...args],
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** `gleaner doctor` with the given flags and environment: exit code and report. */
async function doctor(flags: string[], env: Record<string, string>) {
  const out = await runCli(flags, ["doctor", "--json"], env);
  const report = JSON.parse(out.stdout) as {
    ok: boolean;
    checks: { name: string; ok: boolean; detail: string }[];
  };
  return { code: out.code, report };
}

Deno.test("gleaner doctor: ok with the start task's flags and a good CA; not ok, naming the fix, without --allow-sys or with an unreadable CA file", async () => {
  const world = await startWorld();
  try {
    const env = world.env("NODE_EXTRA_CA_CERTS");
    // The flags the start task's launcher (scripts/launch.ts) grants for this environment.
    const flags = (await childArgv(["doctor"], env)).filter((a) => a.startsWith("--allow-"));

    // Three independent processes, run side by side (each with its own memory file).
    const [good, noSys, badCa] = await Promise.all([
      doctor(flags, { ...env, GLEANER_MEMORY_PATH: `${world.ca.dir}/memory-1.db` }),
      doctor(flags.filter((f) => f !== "--allow-sys"), {
        ...env,
        GLEANER_MEMORY_PATH: `${world.ca.dir}/memory-2.db`,
      }),
      doctor(flags, {
        ...env,
        GLEANER_MEMORY_PATH: `${world.ca.dir}/memory-3.db`,
        NODE_EXTRA_CA_CERTS: `${world.ca.dir}/nope.pem`,
      }),
    ]);
    assert.equal(good.report.ok, true, JSON.stringify(good.report.checks));
    assert.equal(good.code, 0);
    const ca = good.report.checks.find((c) => c.name === "extra CA certificates");
    assert.match(ca?.detail ?? "", /NODE_EXTRA_CA_CERTS=.*1 certificate/);

    assert.equal(noSys.report.ok, false);
    assert.equal(noSys.code, 1);
    const perms = noSys.report.checks.find((c) => c.name === "permissions");
    assert.equal(perms?.ok, false);
    assert.match(perms?.detail ?? "", /--allow-sys/);

    assert.equal(badCa.report.ok, false);
    const caBad = badCa.report.checks.find((c) => c.name === "extra CA certificates");
    assert.equal(caBad?.ok, false);
    assert.match(caBad?.detail ?? "", /nope\.pem/);
  } finally {
    await world.close();
  }
});

/** `gleaner <args> --json` with the given flags; stdout and stderr together. */
async function cli(flags: string[], args: string[], env: Record<string, string>): Promise<string> {
  const out = await runCli(flags, [...args, "--json"], env);
  return out.stdout + out.stderr;
}

Deno.test("a search or read that cannot work says why: the missing --allow-sys, or a CA that is not trusted", async () => {
  const world = await startWorld();
  try {
    const origin = new URL(world.pageUrl).origin;
    const base = world.env("NODE_EXTRA_CA_CERTS");
    const flags = (await childArgv(["search"], base)).filter((a) => a.startsWith("--allow-"));
    // DuckDuckGo's endpoints are pointed at the HTTPS server: the request itself must fail first.
    const env: Record<string, string> = {
      ...base,
      GLEANER_SEARCH_DUCKDUCKGO_HTML_URL: `${origin}/html/`,
      GLEANER_SEARCH_DUCKDUCKGO_LITE_URL: `${origin}/lite/`,
      // DuckDuckGo alone: the other keyless engines would be public hosts.
      GLEANER_SEARCH_SEARCH_ORDER: JSON.stringify(["duckduckgo"]),
    };

    const noSys = flags.filter((f) => f !== "--allow-sys");
    // With the flags but without the CA: the cause (an untrusted certificate) reaches the user.
    const untrusted = { ...env };
    delete untrusted.NODE_EXTRA_CA_CERTS;
    // Four independent processes, run side by side (each with its own memory file).
    const own = (env: Record<string, string>, n: number) => ({
      ...env,
      GLEANER_MEMORY_PATH: `${world.ca.dir}/memory-${n}.db`,
    });
    const [scrape, search, searchTls, scrapeTls] = await Promise.all([
      cli(noSys, ["scrape", world.pageUrl], own(env, 1)),
      cli(noSys, ["search", "harbour ferry"], own(env, 2)),
      cli(flags, ["search", "harbour ferry"], own(untrusted, 3)),
      cli(flags, ["scrape", world.pageUrl], own(untrusted, 4)),
    ]);
    assert.match(scrape, /sys access to \\?"ca\\?"\); run with --allow-sys/, scrape);
    assert.match(search, /sys access to \\?"ca\\?"\); run with --allow-sys/, search);

    assert.match(
      searchTls,
      /every provider failed: duckduckgo \(provider_unavailable\); last cause/,
    );
    assert.match(searchTls, /not signed by a trusted CA .*NODE_EXTRA_CA_CERTS or DENO_CERT/);
    assert.match(scrapeTls, /not signed by a trusted CA/);
  } finally {
    await world.close();
  }
});
