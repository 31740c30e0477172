import assert from "node:assert/strict";
import { rejectsWith } from "../../../testing/asserts.ts";
import { parseConfig } from "../../config/config.ts";
import { createBrowserTier } from "./browser.ts";
import { ReadCall } from "../call.ts";
import {
  browserSuffix as suffix,
  ignoreBrowser as ignore,
} from "../../../testing/fixtures/browser.ts";

/** A loopback server that records every request it receives. */
function serve(
  hostname: string,
  handler: (request: Request, url: URL) => Response | Promise<Response>,
) {
  const hits: { path: string; userAgent: string | null }[] = [];
  const server = Deno.serve({ hostname, port: 0, onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    hits.push({ path: url.pathname + url.search, userAgent: request.headers.get("user-agent") });
    return handler(request, url);
  });
  const origin = `http://${hostname}:${server.addr.port}`;
  return { server, origin, port: server.addr.port, hits };
}

const html = (body: string, status = 200) =>
  new Response(
    `<!DOCTYPE html><html><head><title>Fixture</title></head><body>${body}</body></html>`,
    {
      status,
      headers: { "content-type": "text/html; charset=utf-8" },
    },
  );

Deno.test({
  name: `browser tier renders scripts and enforces the address policy${suffix}`,
  ignore,
  async fn(t) {
    // The server other origins must never reach (127.0.0.2 is loopback, not allowed).
    const forbidden = serve("127.0.0.2", () => new Response("secret"));
    let forbiddenUrl = `${forbidden.origin}/secret`;
    const fixture = serve("127.0.0.1", (_request, url) => {
      switch (url.pathname) {
        case "/js":
          return html(`
            <nav>Site navigation</nav>
            <link rel="stylesheet" href="/style.css"><img src="/photo.png" alt="">
            <div id="out"></div>
            <script>
              document.getElementById("out").textContent = ["Rendered", "by", "script"].join(" ");
              document.title = "Scripted " + "title";
              setTimeout(() => {
                const a = document.createElement("article");
                a.id = "late";
                a.innerHTML = "<p>Arrived " + "late</p>";
                document.body.appendChild(a);
              }, 400);
            </script>`);
        case "/ssrf":
          return html(`
            <div id="results"></div>
            <iframe src="${forbiddenUrl}?via=iframe"></iframe>
            <script>
              const out = document.getElementById("results");
              const note = (name, value) => {
                const p = document.createElement("p");
                p.className = "result";
                p.textContent = name + ":" + value;
                out.appendChild(p);
              };
              note("websocket", typeof WebSocket);
              const probe = (name, url) => fetch(url, { mode: "no-cors" })
                .then(() => note(name, "reached"), () => note(name, "failed"));
              Promise.all([
                probe("private", "${forbiddenUrl}?via=fetch"),
                probe("metadata", "http://169.254.169.254/latest/meta-data/"),
                probe("same-origin", "/data.json"),
                new Promise((done) => {
                  const code = "fetch('${forbiddenUrl}?via=worker').then(() => postMessage('reached'), () => postMessage('failed'))";
                  const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
                  worker.onmessage = (e) => { note("worker", e.data); done(); };
                  worker.onerror = () => { note("worker", "error"); done(); };
                }),
                new Promise((done) => {
                  // Workers keep WebSocket, and interception does not see its handshake: the proxy does.
                  const code = "const ws = new WebSocket('${
            forbiddenUrl.replace("http:", "ws:")
          }?via=worker-ws');" +
                    "ws.onopen = () => postMessage('reached'); ws.onerror = () => postMessage('failed');";
                  const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
                  worker.onmessage = (e) => { note("worker-ws", e.data); done(); };
                  worker.onerror = () => { note("worker-ws", "error"); done(); };
                }),
              ]).then(() => note("done", "yes"));
            </script>`);
        case "/data.json":
          return Response.json({ ok: true });
        case "/redirect":
          return Response.redirect(forbiddenUrl + "?via=redirect", 302);
        case "/missing":
          return html("<p>No such page</p>", 404);
        case "/p":
          return slowPage(url);
        case "/slow":
          // "#ready" shows 1.5 s after load: the first call's reads hold their pages that long.
          return html(`<p>slow</p><script>
            setTimeout(() => { const p = document.createElement("p"); p.id = "ready";
              p.textContent = "ready ${url.searchParams.get("n")}"; document.body.appendChild(p); },
              1500);
          </script>`);
        case "/plain":
          return html(`<p id="plain">plain page</p>`);
        default:
          return new Response("not here", { status: 404 });
      }
    });
    // "/p" answers after 150 ms and notes how many requests it served at once.
    let inFlight = 0;
    let peak = 0;
    const slowPage = async (url: URL) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 150));
      inFlight--;
      return html(`<p id="n">page ${url.searchParams.get("n")}</p>`);
    };
    forbiddenUrl = `${forbidden.origin}/secret`;
    const config = parseConfig({
      network: {
        allow_private: [fixture.origin],
        // The forbidden server's port is allowed, so only the address check can stop it.
        allowed_ports: [80, 443, fixture.port, forbidden.port],
        user_agent: "GleanerTest/1.0",
      },
      read: { browser_pages: 2, browser_timeout_ms: 10_000 },
    });
    const tier = createBrowserTier(config);
    try {
      await t.step("a JavaScript-only page is rendered", async () => {
        const page = await tier.read(`${fixture.origin}/js`);
        assert.match(page.html, /<div id="out">Rendered by script<\/div>/);
        assert.equal(page.title, "Scripted title");
        assert.equal(page.status, 200);
        assert.equal(page.url, `${fixture.origin}/js`);
        const hit = fixture.hits.find((h) => h.path === "/js");
        assert.equal(hit?.userAgent, "GleanerTest/1.0");
        assert.ok(!fixture.hits.some((h) => h.path === "/style.css" || h.path === "/photo.png"));
      });

      await t.step("Chromium runs with the hardening flags and a temporary profile", async () => {
        const pid = tier.stats().pid;
        assert.ok(pid, "a launched browser has a pid");
        const args = await commandLine(pid);
        for (const flag of ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-sync"]) {
          assert.ok(args.includes(flag), `${flag} is passed`);
        }
        assert.ok(!args.includes("--disable-popup-blocking"), "popup blocker stays on");
        const proxyPort = tier.stats().proxyPort;
        assert.ok(proxyPort, "a launched browser has an egress proxy");
        assert.ok(args.includes(`--proxy-server=http://127.0.0.1:${proxyPort}`));
        assert.ok(args.includes("--proxy-bypass-list=<-loopback>"));
        assert.ok(args.some((a) => a.startsWith("--host-resolver-rules=MAP * ~NOTFOUND")));
        const profile = args.find((a) => a.startsWith("--user-data-dir="));
        assert.match(profile ?? "", /gleaner-chromium\/profile-/);
      });

      await t.step("waitForSelector and targetSelector", async () => {
        const page = await tier.read(`${fixture.origin}/js`, {
          waitForSelector: "#late",
          targetSelector: "#late",
        });
        assert.equal(page.html, '<article id="late"><p>Arrived late</p></article>');
        await rejectsWith(
          tier.read(`${fixture.origin}/js`, { targetSelector: "#nothing-here" }),
          "selector_not_found",
        );
        await rejectsWith(
          tier.read(`${fixture.origin}/js`, { waitForSelector: "#never", timeoutMs: 1_500 }),
          "selector_not_found",
        );
        await rejectsWith(
          tier.read(`${fixture.origin}/js`, { targetSelector: "div[[" }),
          "invalid_arguments",
        );
      });

      await t.step("page scripts cannot reach a private address", async () => {
        const rendered = await tier.read(`${fixture.origin}/ssrf`, {
          waitForSelector: "#results p:nth-of-type(7)",
        });
        assert.equal(rendered.status, 200);
        const results = Object.fromEntries(
          [...rendered.html.matchAll(/<p class="result">([^:<]+):([^<]*)<\/p>/g)].map((
            m,
          ) => [m[1], m[2]]),
        );
        assert.equal(results["same-origin"], "reached", "the allowed origin still works");
        assert.equal(results["private"], "failed");
        assert.equal(results["metadata"], "failed");
        assert.equal(results["worker"], "failed");
        assert.equal(results["worker-ws"], "failed");
        // The hits are the proof: a cross-origin fetch can "fail" after reaching the server (CORS).
        assert.equal(results["websocket"], "undefined");
        assert.deepEqual(forbidden.hits, [], "nothing reached 127.0.0.2");
      });

      await t.step("navigation to a blocked URL fails with blocked_url", async () => {
        await rejectsWith(tier.read(forbiddenUrl), "blocked_url");
        await rejectsWith(tier.read("http://169.254.169.254/latest/meta-data/"), "blocked_url");
        await rejectsWith(tier.read("file:///etc/passwd"), "blocked_url");
        await rejectsWith(tier.read(`${fixture.origin}/redirect`), "blocked_url");
        assert.deepEqual(forbidden.hits, [], "nothing reached 127.0.0.2");
      });

      await t.step("non-2xx statuses are returned", async () => {
        const page = await tier.read(`${fixture.origin}/missing`);
        assert.equal(page.status, 404);
        assert.match(page.html, /No such page/);
      });

      // (These two were tests of their own, each launching a browser with the same settings.)
      await t.step("concurrent pages are bounded by read.browser_pages", async () => {
        const pages = await Promise.all(
          Array.from({ length: 6 }, (_, n) => tier.read(`${fixture.origin}/p?n=${n}`)),
        );
        pages.forEach((page, n) => assert.match(page.html, new RegExp(`page ${n}</p>`)));
        assert.equal(fixture.hits.filter((h) => h.path.startsWith("/p?")).length, 6);
        assert.ok(peak <= 2, `at most 2 pages at once, saw ${peak}`);
        assert.ok(peak >= 1);
        const stats = tier.stats();
        assert.equal(stats.busy, 0);
        assert.ok(stats.idle <= 2);
      });

      await t.step(
        "pages are shared by call: a page taken back resumes its read later",
        async () => {
          const order: string[] = [];
          const revokedBefore = tier.stats().revoked;
          const first = new ReadCall();
          const slow = [1, 2].map((n) =>
            tier.read(`${fixture.origin}/slow?n=${n}`, { waitForSelector: "#ready", call: first })
              .then((page) => (order.push(`slow ${n}`), page))
          );
          while (fixture.hits.filter((h) => h.path.startsWith("/slow")).length < 2) {
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          assert.equal(tier.stats().busy, 2, "the first call holds both pages");
          // A second call: the first call gives one page back at once (it holds two, this one none).
          const plain = await tier.read(`${fixture.origin}/plain`, { call: new ReadCall() });
          order.push("plain");
          assert.match(plain.html, /plain page/);
          assert.equal(tier.stats().revoked - revokedBefore, 1, "one page was taken back");
          const pages = await Promise.all(slow);
          pages.forEach((page, i) => assert.match(page.html, new RegExp(`ready ${i + 1}`)));
          assert.equal(order[0], "plain", `the second call first: ${order}`);
          // The read that gave its page back loaded its page again when its turn came, after the
          // second call's page.
          const loads = fixture.hits.map((h) => h.path).filter((p) => /^\/(slow|plain)/.test(p));
          assert.equal(loads.length, 4, loads.join());
          assert.equal(loads[2], "/plain", loads.join());
          assert.deepEqual(
            {
              busy: tier.stats().busy,
              waiting: tier.stats().waiting,
              callers: tier.stats().callers,
            },
            { busy: 0, waiting: 0, callers: 0 },
          );
        },
      );
    } finally {
      const pid = tier.stats().pid;
      let profile: string | undefined;
      try {
        profile = pid
          ? (await commandLine(pid)).find((a) => a.startsWith("--user-data-dir="))
            ?.slice("--user-data-dir=".length)
          : undefined;
      } finally {
        await tier.close();
        await fixture.server.shutdown();
        await forbidden.server.shutdown();
      }
      if (profile) {
        assert.throws(() => Deno.statSync(profile), Deno.errors.NotFound, "profile removed");
      }
    }
    await rejectsWith(tier.read(`${fixture.origin}/js`), "provider_unavailable");
  },
});

Deno.test({
  name: `browser tier: the egress proxy refuses a rebinding name at connect time${suffix}`,
  ignore,
  async fn() {
    const forbidden = serve("127.0.0.2", () => new Response("secret"));
    const fixture = serve("127.0.0.1", (_request, url) => html(`<p id="path">${url.pathname}</p>`));
    // Simulated DNS, nothing real: each rebinding name answers a public address to its first
    // two questions (the read's pre-check and request interception) and 127.0.0.2 to every later
    // one, when the proxy resolves it to connect. The proxy only asks once interception approved
    // the target, so it never receives the public answer, and nothing connects to it.
    const asked: string[] = [];
    const answered = new Map<string, number>();
    const resolver = (name: string) => {
      asked.push(name);
      if (name === "fixture.test") return Promise.resolve([{ address: "127.0.0.1", family: 4 }]);
      if (name === "rebind.test" || name === "rebind-tls.test") {
        const n = (answered.get(name) ?? 0) + 1;
        answered.set(name, n);
        // Safety net: a question asked from a connection's lookup (lib/net/fetch.ts) never gets
        // the public answer, whatever the order, so this test cannot send traffic out.
        const fromConnect = (new Error().stack ?? "").includes("/lib/net/fetch.ts");
        const address = n <= 2 && !fromConnect ? "93.184.216.34" : "127.0.0.2";
        return Promise.resolve([{ address, family: 4 }]);
      }
      return Promise.reject(Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" }));
    };
    const config = parseConfig({
      network: {
        allow_private: [`http://fixture.test:${fixture.port}`],
        allowed_ports: [80, 443, fixture.port, forbidden.port],
      },
    });
    const tier = createBrowserTier(config, { settleMs: 0, resolver });
    try {
      // A name Chromium cannot resolve itself: the page loads because the proxy resolved it.
      const named = await tier.read(`http://fixture.test:${fixture.port}/named`);
      assert.match(named.html, /<p id="path">\/named<\/p>/);
      assert.equal(named.url, `http://fixture.test:${fixture.port}/named`);

      const http = await rejectsWith(
        tier.read(`http://rebind.test:${forbidden.port}/secret`),
        "blocked_url",
      );
      assert.match(http.message, /resolves to a private or reserved address/);
      assert.ok(answered.get("rebind.test")! >= 3, "pre-check, interception, then the proxy");

      const tls = await rejectsWith(tier.read("https://rebind-tls.test/secret"), "blocked_url");
      assert.match(tls.message, /resolves to a private or reserved address/);
      assert.ok(answered.get("rebind-tls.test")! >= 3);
      assert.deepEqual(forbidden.hits, [], "nothing reached 127.0.0.2");
      assert.ok(
        !asked.some((n) => !/^(fixture|rebind|rebind-tls)\.test$/.test(n)),
        "no other name",
      );
    } finally {
      await tier.close();
      await fixture.server.shutdown();
      await forbidden.server.shutdown();
    }
  },
});

Deno.test({
  name: `browser tier: a call's reads share one deadline; one that runs out fails alone${suffix}`,
  ignore,
  async fn() {
    const fixture = serve(
      "127.0.0.1",
      (_request, url) =>
        url.pathname === "/ok" ? html(`<p id="ok">fine</p>`) : html(`<p>waiting</p>`),
    );
    const config = parseConfig({
      network: { allow_private: [fixture.origin] },
      read: { browser_pages: 1, browser_timeout_ms: 1_500 },
    });
    const tier = createBrowserTier(config, { settleMs: 0 });
    try {
      await tier.read(`${fixture.origin}/ok`); // the browser is up before the call
      const call = new ReadCall();
      // On one page, one after the other: the first holds it ~1.5 s, the call ends at 3 s.
      const outcomes = await Promise.all(
        [1, 2, 3, 4].map((n) =>
          tier.read(`${fixture.origin}/never?n=${n}`, { waitForSelector: "#never", call })
            .then(() => "ok", (error) => error)
        ),
      );
      const codes = outcomes.map((e) => e.code);
      assert.equal(codes[0], "selector_not_found", codes.join());
      assert.equal(codes[3], "timeout", codes.join());
      assert.match(outcomes[3].message, /reached its deadline of 3000 ms/);
      assert.equal(outcomes[3].details.deadline_ms, 3_000);
      // The last one never had the page; the deadline let go of everything.
      assert.ok(!fixture.hits.some((h) => h.path === "/never?n=4"));
      assert.deepEqual(
        { busy: tier.stats().busy, waiting: tier.stats().waiting, callers: tier.stats().callers },
        { busy: 0, waiting: 0, callers: 0 },
      );
      // Another call starts with a deadline of its own.
      const again = await tier.read(`${fixture.origin}/ok`, { call: new ReadCall() });
      assert.match(again.html, /fine/);
    } finally {
      await tier.close();
      await fixture.server.shutdown();
    }
  },
});

Deno.test({
  name: `browser tier closes an idle browser and starts again${suffix}`,
  ignore,
  async fn() {
    const fixture = serve("127.0.0.1", () => html("<p>hello</p>"));
    const config = parseConfig({
      network: { allow_private: [fixture.origin] },
      read: { browser_idle_ms: 300 },
    });
    const tier = createBrowserTier(config, { settleMs: 0 });
    try {
      await tier.read(`${fixture.origin}/`);
      const pid = tier.stats().pid!;
      assert.ok(tier.stats().running);
      const deadline = Date.now() + 5_000;
      while (tier.stats().running && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(tier.stats().running, false, "the idle browser was closed");
      // The process exits shortly after the close; wait for it, within bounds.
      const exitBy = Date.now() + 5_000;
      while (await processAlive(pid) && Date.now() < exitBy) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(!(await processAlive(pid)), "the process is gone");
      const again = await tier.read(`${fixture.origin}/`);
      assert.match(again.html, /hello/);
      assert.notEqual(tier.stats().pid, pid);
    } finally {
      await tier.close();
      await fixture.server.shutdown();
    }
  },
});

Deno.test("browser tier names read.chrome_path when Chromium is missing", async () => {
  const tier = createBrowserTier(
    parseConfig({
      network: { allow_private: true },
      read: { chrome_path: "/nonexistent/chromium" },
    }),
  );
  try {
    const error = await rejectsWith(tier.read("http://127.0.0.1:8080/"), "provider_unavailable");
    assert.match(error.message, /read\.chrome_path/);
  } finally {
    await tier.close();
  }
});

Deno.test({
  name: `browser tier names --allow-run when it may not launch${suffix}`,
  ignore,
  async fn() {
    const script = `
      import { createBrowserTier } from "${new URL("./browser.ts", import.meta.url).href}";
      import { parseConfig } from "${new URL("../../config/config.ts", import.meta.url).href}";
      const tier = createBrowserTier(parseConfig({ network: { allow_private: true } }));
      try { await tier.read("http://127.0.0.1:8080/"); console.log("{}"); }
      catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }
      finally { await tier.close(); }`;
    const file = await Deno.makeTempFile({ suffix: ".ts" });
    await Deno.writeTextFile(file, script);
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--config",
        new URL("../../../deno.json", import.meta.url).pathname,
        "--allow-read",
        "--allow-env",
        "--allow-write",
        "--allow-net",
        "--allow-sys",
        file,
      ],
      cwd: new URL("../../..", import.meta.url).pathname,
      stdout: "piped",
      stderr: "piped",
    }).output().finally(() => Deno.remove(file));
    const stdout = new TextDecoder().decode(output.stdout).trim();
    assert.ok(stdout, new TextDecoder().decode(output.stderr));
    const result = JSON.parse(stdout);
    assert.equal(result.code, "provider_unavailable");
    assert.match(result.message, /--allow-run/);
  },
});

/** The command line of a process (read with `cat`, since Deno guards /proc). */
async function commandLine(pid: number): Promise<string[]> {
  const output = await new Deno.Command("cat", { args: [`/proc/${pid}/cmdline`], stdout: "piped" })
    .output();
  return new TextDecoder().decode(output.stdout).split("\0");
}

/** True while a process exists and is not a zombie. */
async function processAlive(pid: number): Promise<boolean> {
  const output = await new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", String(pid)],
    stdout: "piped",
  })
    .output();
  const stat = new TextDecoder().decode(output.stdout).trim();
  return output.success && stat !== "" && !stat.startsWith("Z");
}

Deno.test({
  name: `browser tier: read.block_lists keeps ads and trackers from ever being requested${suffix}`,
  ignore,
  async fn() {
    const fixture = serve("127.0.0.1", (_request, url) => {
      switch (url.pathname) {
        case "/article":
          return html(`
            <article><h1>Lanterns</h1><p id="out">waiting</p></article>
            <script src="/ads/track.js"></script>
            <script src="/ads/allowed.js"></script>
            <script src="/app.js"></script>
            <img src="/banner/top.gif" alt=""><img src="/photo.gif" alt="">
            <script>fetch("/pixel/collect?id=1").catch(() => {});</script>`);
        case "/app.js":
          return new Response(`document.getElementById("out").textContent = "app ran";`, {
            headers: { "content-type": "text/javascript" },
          });
        case "/ads/track.js":
        case "/ads/allowed.js":
          return new Response("window.adLoaded = true;", {
            headers: { "content-type": "text/javascript" },
          });
        case "/banner/top.gif":
        case "/photo.gif":
        case "/pixel/collect":
          return new Response(new Uint8Array([71, 73, 70]), {
            headers: { "content-type": "image/gif" },
          });
        default:
          return new Response("not here", { status: 404 });
      }
    });
    const dir = await Deno.makeTempDir();
    const list = `${dir}/easylist.txt`;
    const hosts = `${dir}/hosts`;
    // Adblock Plus filter syntax
    // (https://help.adblockplus.org/hc/en-us/articles/360062733293-How-to-write-filters).
    await Deno.writeTextFile(
      list,
      [
        "[Adblock Plus 2.0]",
        "! Title: test list",
        "/ads/*.js$script",
        "@@/ads/allowed.js",
        "/banner/*.gif$image",
        "/pixel/collect^$xmlhttprequest",
        "example.org##.ad-box",
        "/unsupported^$rewrite=abp-resource:blank-js",
      ].join("\n"),
    );
    await Deno.writeTextFile(hosts, "# hosts file\n0.0.0.0 tracker.invalid\n");
    const network = { allow_private: [fixture.origin], allowed_ports: [80, 443, fixture.port] };
    const blocking = createBrowserTier(
      parseConfig({ network, read: { block_lists: [list, hosts], browser_timeout_ms: 10_000 } }),
      { settleMs: 300, blockedResourceTypes: [] },
    );
    const plain = createBrowserTier(
      parseConfig({ network, read: { browser_timeout_ms: 10_000 } }),
      {
        settleMs: 300,
        blockedResourceTypes: [],
      },
    );
    try {
      const page = await blocking.read(`${fixture.origin}/article`);
      assert.match(page.html, /<p id="out">app ran<\/p>/);
      const paths = fixture.hits.map((h) => h.path);
      for (const never of ["/ads/track.js", "/banner/top.gif", "/pixel/collect?id=1"]) {
        assert.ok(!paths.includes(never), `${never} was never requested (got ${paths})`);
      }
      for (const kept of ["/article", "/app.js", "/ads/allowed.js", "/photo.gif"]) {
        assert.ok(paths.includes(kept), `${kept} was requested (got ${paths})`);
      }
      // Off until configured: the same page without lists requests everything.
      fixture.hits.length = 0;
      await plain.read(`${fixture.origin}/article`);
      const all = fixture.hits.map((h) => h.path);
      for (const path of ["/ads/track.js", "/banner/top.gif"]) {
        assert.ok(all.includes(path), `${path} is requested without lists (got ${all})`);
      }
    } finally {
      await blocking.close();
      await plain.close();
      await fixture.server.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
