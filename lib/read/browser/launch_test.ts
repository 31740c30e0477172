/**
 * Checks that the installed Chromium honours the egress flags: with request
 * interception off, a page can still only reach what the proxy allows.
 */
import assert from "node:assert/strict";
import puppeteer from "puppeteer-core";
import { parseConfig } from "../../config/config.ts";
import { CHROMIUM_ARGS, egressArgs, openBrowser } from "./launch.ts";
import {
  browserSuffix as suffix,
  chromium,
  ignoreBrowser as ignore,
} from "../../../testing/fixtures/browser.ts";

function serve(hostname: string) {
  const hits: { path: string; host: string | null }[] = [];
  const server = Deno.serve({ hostname, port: 0, onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    hits.push({ path: url.pathname, host: request.headers.get("host") });
    return new Response(`<!DOCTYPE html><title>t</title><p id="p">${url.pathname}</p>`, {
      headers: { "content-type": "text/html" },
    });
  });
  return { server, port: server.addr.port, origin: `http://${hostname}:${server.addr.port}`, hits };
}

Deno.test({
  name:
    `Chromium sends every connection, loopback and names included, to the egress proxy${suffix}`,
  ignore,
  async fn() {
    const fixture = serve("127.0.0.1");
    const forbidden = serve("127.0.0.2");
    const config = parseConfig({
      network: {
        allow_private: [fixture.origin, `http://localhost:${fixture.port}`],
        allowed_ports: [80, 443, fixture.port, forbidden.port],
      },
    });
    const asked: string[] = [];
    const resolver = (name: string) => {
      asked.push(name);
      return name === "localhost"
        ? Promise.resolve([{ address: "127.0.0.1", family: 4 }])
        : Promise.reject(Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" }));
    };
    const handle = await openBrowser(config, [], { resolver });
    const proxy = handle.proxy!;
    try {
      assert.ok(proxy, "a launched browser has a proxy");
      const page = await handle.browser.newPage(); // no request interception on this page
      const before = proxy.stats().requests;
      for (
        const [host, port] of [["127.0.0.1", fixture.port], ["localhost", fixture.port], [
          "127.0.0.2",
          forbidden.port,
        ]] as const
      ) {
        proxy.approve(host, port, 60_000); // only the address policy may refuse
      }

      // <-loopback>: loopback is not bypassed, it goes through the proxy.
      const literal = await page.goto(`${fixture.origin}/literal`);
      assert.equal(literal?.status(), 200);
      assert.ok(proxy.stats().requests > before, "the request went through the proxy");

      // A name reaches the proxy unresolved (Chromium's resolver maps every name to NOTFOUND).
      const named = await page.goto(`http://localhost:${fixture.port}/named`);
      assert.equal(named?.status(), 200);
      assert.equal(
        fixture.hits.find((h) => h.path === "/named")?.host,
        `localhost:${fixture.port}`,
      );

      // Without interception, the proxy alone refuses a private address.
      const refused = await page.goto(`${forbidden.origin}/secret`);
      assert.equal(refused?.status(), 403);
      assert.ok(proxy.isRefusal(refused!.headers()));

      // https goes through CONNECT, refused: its origin is not listed (a private address is
      // refused before its port is looked at, since listing the origin lets the port through).
      const tunnels = proxy.stats().tunnels;
      const closedPort = serve("127.0.0.1");
      proxy.approve("127.0.0.1", closedPort.port, 60_000);
      await assert.rejects(
        page.goto(`https://127.0.0.1:${closedPort.port}/`),
        /ERR_TUNNEL_CONNECTION_FAILED/,
      );
      await closedPort.server.shutdown();
      assert.ok(proxy.stats().tunnels > tunnels);
      assert.deepEqual(closedPort.hits, []);
      assert.match(
        proxy.refusalFor("127.0.0.1", closedPort.port)?.message ?? "",
        new RegExp(
          `https://127\\.0\\.0\\.1:${closedPort.port} is blocked: private or reserved address`,
        ),
      );

      assert.deepEqual(forbidden.hits, [], "nothing reached 127.0.0.2");
      // Chromium's own background traffic (update checks, sign-in) is never approved: the proxy
      // refuses it before any DNS, so the only name ever resolved is the one the test approved.
      assert.deepEqual([...new Set(asked)], ["localhost"]);
      await page.close();
    } finally {
      await handle.dispose();
      await fixture.server.shutdown();
      await forbidden.server.shutdown();
    }
    assert.equal(proxy.stats().open, 0, "the proxy stops with the browser");
  },
});

Deno.test({
  name: `Chromium honours --host-resolver-rules (names fail, 127.0.0.1 is excluded)${suffix}`,
  ignore,
  async fn() {
    const fixture = serve("127.0.0.1");
    const rules = egressArgs("http://127.0.0.1:1").find((a) => a.startsWith("--host-resolver"))!;
    const profile = await Deno.makeTempDir({ prefix: "gleaner-chromium-test-" });
    // No proxy here: only the resolver rules are under test.
    const browser = await puppeteer.launch({
      executablePath: chromium!,
      headless: true,
      pipe: true,
      userDataDir: profile,
      args: [...CHROMIUM_ARGS, rules],
    });
    try {
      const page = await browser.newPage();
      assert.equal((await page.goto(`${fixture.origin}/direct`))?.status(), 200);
      await assert.rejects(
        page.goto(`http://localhost:${fixture.port}/named`),
        /ERR_NAME_NOT_RESOLVED/,
      );
      assert.deepEqual(
        fixture.hits.map((h) => h.path).filter((p) => p !== "/favicon.ico"),
        ["/direct"],
      );
    } finally {
      await browser.close();
      await fixture.server.shutdown();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: `a Chromium that closes while it starts gets one more try${suffix}`,
  ignore,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "gleaner-flaky-chromium-" });
    const marker = `${dir}/started-once`;
    const executable = `${dir}/chromium`;
    // The first start exits at once (the pipe closes under puppeteer's first protocol call,
    // as a Chromium killed on a loaded machine does); the second is the real Chromium.
    await Deno.writeTextFile(
      executable,
      `#!/bin/sh\nif [ ! -e '${marker}' ]; then : > '${marker}'; exit 1; fi\nexec '${chromium}' "$@"\n`,
    );
    await Deno.chmod(executable, 0o755);
    try {
      const handle = await openBrowser(parseConfig({ read: { chrome_path: executable } }), []);
      try {
        const page = await handle.browser.newPage();
        assert.equal(await page.evaluate(() => 6 * 7), 42);
        await page.close();
      } finally {
        await handle.dispose();
      }
      assert.ok((await Deno.stat(marker)).isFile, "the first start happened and failed");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: `a Chromium killed before it cleans up leaves no singleton folder in its room${suffix}`,
  ignore,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "gleaner-tmp-" });
    const env = { HOME: tmp, TMPDIR: tmp, PATH: "/usr/bin:/bin" };
    const root = `${tmp}/gleaner-chromium`;
    const singletons = async (dir = root): Promise<string[]> => {
      const found: string[] = [];
      for await (const entry of Deno.readDir(dir)) {
        if (entry.name.startsWith("org.chromium.Chromium.")) found.push(entry.name);
        else if (entry.isDirectory) found.push(...await singletons(`${dir}/${entry.name}`));
      }
      return found;
    };
    try {
      const handle = await openBrowser(parseConfig({}), [], { env });
      assert.equal(
        (await singletons()).length,
        1,
        "Chromium keeps its singleton socket in its room",
      );
      // Killed: it never removes its own singleton folder; disposing must.
      Deno.kill(handle.pid!, "SIGKILL");
      await handle.dispose();
      assert.deepEqual(await singletons(), []);
      assert.deepEqual(
        [...Deno.readDirSync(root)],
        [],
        "the profile and its temporary files are gone",
      );
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
