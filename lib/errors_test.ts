import assert from "node:assert/strict";
import { networkError, permissionError, toGleanerError } from "./errors.ts";
import { parseConfig } from "./config/config.ts";
import { createFetcher } from "./net/fetch.ts";
import { pgError } from "./memory/postgres/client.ts";
import { providerFailure } from "./net/classify.ts";
import { searxngProvider } from "./search/providers/searxng.ts";
import { SearchFailure } from "./net/upstream_failure.ts";

const failing = (code: string) => () =>
  Promise.reject(Object.assign(new Error(`getaddrinfo ${code} example.com`), { code }));

Deno.test("errors: no network is provider_unavailable saying so; a missing name is not_found", async () => {
  const network = parseConfig({}).network;
  for (const code of ["EAI_AGAIN", "ENETUNREACH"]) {
    const fetcher = createFetcher(network, { resolver: failing(code) });
    await assert.rejects(
      fetcher.fetch("https://example.com/page?token=t"),
      (e: Error & { code: string }) =>
        e.code === "provider_unavailable" && /network|DNS server/.test(e.message) &&
        (code !== "EAI_AGAIN" || e.message.startsWith("could not resolve example.com")) &&
        e.message.includes(code) && !e.message.includes("token"),
    );
  }
  const fetcher = createFetcher(network, { resolver: failing("ENOTFOUND") });
  await assert.rejects(
    fetcher.fetch("https://no-such-name.example/"),
    (e: Error & { code: string }) =>
      e.code === "not_found" && /^could not resolve no-such-name\.example\b/.test(e.message),
  );
});

Deno.test("errors: a missing Deno permission names the flag to add", () => {
  for (
    const [kind, flag] of [["net", "--allow-net"], ["read", "--allow-read"], ["env", "--allow-env"]]
  ) {
    const denied = new Deno.errors.NotCapable(
      `Requires ${kind} access to "x", run again with the ${flag} flag`,
    );
    const mapped = toGleanerError(denied, "scrape_urls");
    assert.ok(mapped.message.includes(flag), mapped.message);
    assert.ok(mapped.message.startsWith("scrape_urls: "), mapped.message);
  }
  const dns = Object.assign(new Error("getaddrinfo EPERM example.com"), {
    code: "EPERM",
    syscall: "getaddrinfo",
  });
  assert.match(networkError(dns, "https://example.com")!.message, /--allow-net/);
  assert.equal(permissionError(new Error("boom")), undefined);
  assert.equal(toGleanerError(new Error("boom"), "x").message, "x failed unexpectedly");
});

Deno.test("errors: a name that does not resolve is named, with the setting that holds it", async () => {
  const config = parseConfig({ search: { searxng_url: "https://searx.lan/" } });
  // The system resolver answering ENOTFOUND for the configured host (no DNS traffic in tests).
  const fetcher = createFetcher(config.network, { resolver: failing("ENOTFOUND") });
  const error = await searxngProvider.search!({ query: "x", max_results: 5 }, { config, fetcher })
    .then(
      () => assert.fail("expected a failure"),
      (e) => e,
    );
  assert.ok(error instanceof SearchFailure, String(error));
  assert.equal(error.code, "provider_unavailable");
  assert.match(
    error.message,
    /^searxng: could not resolve searx\.lan: no such host name \(ENOTFOUND\); check search\.searxng_url$/,
  );

  const offline = createFetcher(config.network, { resolver: failing("EAI_AGAIN") });
  const provider = providerFailure("brave", "https://api.search.brave.com/res/v1/web/search", {
    error: await offline.fetch("https://api.search.brave.com/res/v1/web/search").catch((e) => e),
  });
  assert.match(provider.message, /could not resolve api\.search\.brave\.com: the network or DNS/);
  assert.match(provider.message, /check search\.providers\.brave\.base_url/);
});

Deno.test("errors: an unresolved PostgreSQL host is named with memory.postgres_url", () => {
  const error = pgError(
    Object.assign(new Error("getaddrinfo ENOTFOUND db.lan"), {
      code: "ENOTFOUND",
      hostname: "db.lan",
    }),
    "recall",
  );
  assert.equal(error.code, "provider_unavailable");
  assert.equal(
    error.message,
    "memory store (postgres): recall: could not resolve db.lan (ENOTFOUND); check memory.postgres_url",
  );
});
