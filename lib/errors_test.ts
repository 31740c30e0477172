import assert from "node:assert/strict";
import { networkError, permissionError, toGleanerError } from "./errors.ts";
import { parseConfig } from "./config/config.ts";
import { createFetcher } from "./net/fetch.ts";

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
        e.message.includes(code) && !e.message.includes("token"),
    );
  }
  const fetcher = createFetcher(network, { resolver: failing("ENOTFOUND") });
  await assert.rejects(
    fetcher.fetch("https://no-such-name.example/"),
    (e: Error & { code: string }) => e.code === "not_found" && /does not resolve/.test(e.message),
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
