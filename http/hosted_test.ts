import assert from "node:assert/strict";
import { parseConfig } from "../lib/config/config.ts";
import { GleanerError } from "../lib/errors.ts";
import { isTrustedAddress, sameSecret, verifyProxyIdentity } from "./hosted.ts";

const TOKEN = "t".repeat(40);

Deno.test("isTrustedAddress: exact addresses, CIDR ranges, IPv4-mapped IPv6, junk", () => {
  const trusted = ["127.0.0.1", "10.0.0.0/8", "fd00::/8", "not-an-ip"];
  assert.equal(isTrustedAddress("127.0.0.1", trusted), true);
  assert.equal(isTrustedAddress("::ffff:127.0.0.1", trusted), true);
  assert.equal(isTrustedAddress("10.20.30.40", trusted), true);
  assert.equal(isTrustedAddress("fd12::1", trusted), true);
  assert.equal(isTrustedAddress("[fd12::1]", trusted), true);
  assert.equal(isTrustedAddress("11.0.0.1", trusted), false);
  assert.equal(isTrustedAddress("127.0.0.2", trusted), false);
  assert.equal(isTrustedAddress("::1", trusted), false);
  assert.equal(isTrustedAddress("garbage", trusted), false);
});

Deno.test("sameSecret: equal only for the very same bytes", () => {
  assert.equal(sameSecret(TOKEN, TOKEN), true);
  assert.equal(sameSecret(TOKEN + "x", TOKEN), false);
  assert.equal(sameSecret(TOKEN.slice(1), TOKEN), false);
  assert.equal(sameSecret("", TOKEN), false);
  assert.equal(sameSecret("é".repeat(20), "e".repeat(20)), false);
});

Deno.test("verifyProxyIdentity: address, token and user header are all required", () => {
  const { memory } = parseConfig({
    memory: { hosted: true, hosted_proxy_token: TOKEN, hosted_hmac_secret: TOKEN },
  });
  const request = (headers: Record<string, string>) =>
    new Request("http://localhost/v1/memories/recall", { method: "POST", headers });
  const good = { "x-gleaner-user": "alice", "x-gleaner-proxy-token": TOKEN };
  assert.equal(verifyProxyIdentity(memory, request(good), "127.0.0.1"), "alice");
  const refused = (headers: Record<string, string>, address: string | undefined) =>
    assert.throws(
      () => verifyProxyIdentity(memory, request(headers), address),
      (e: unknown) => e instanceof GleanerError && e.code === "unauthorized",
    );
  refused(good, undefined);
  refused(good, "192.0.2.1");
  refused({ "x-gleaner-user": "alice" }, "127.0.0.1");
  refused({ ...good, "x-gleaner-proxy-token": TOKEN.toUpperCase() }, "127.0.0.1");
  refused({ "x-gleaner-proxy-token": TOKEN }, "127.0.0.1");
  refused({ ...good, "x-gleaner-user": "a\u0001b" }, "127.0.0.1");
  refused({ ...good, "x-gleaner-user": "u".repeat(300) }, "127.0.0.1");
});
