import assert from "node:assert/strict";
import { parseConfig } from "../config/config.ts";
import { GleanerError } from "../errors.ts";
import {
  assertAddressesAllowed,
  assertResolvedPublic,
  assertUrlAllowed,
  isPublicAddress,
  parseHostLiteral,
} from "./address.ts";

const policy = parseConfig({}).network;

function assertBlocked(fn: () => unknown, label: string) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof GleanerError, `${label}: not a GleanerError: ${e}`);
    assert.equal(e.code, "blocked_url", `${label}: wrong code ${e.code}`);
    return true;
  }, `${label} was allowed`);
}

Deno.test("parseHostLiteral reads every numeric IPv4 spelling like WHATWG URL", () => {
  const cases: Record<string, string> = {
    "2130706433": "127.0.0.1",
    "0x7f000001": "127.0.0.1",
    "0X7F000001": "127.0.0.1",
    "0177.0.0.1": "127.0.0.1",
    "127.1": "127.0.0.1",
    "0x7f.1": "127.0.0.1",
    "0x7f.0.0.0x1": "127.0.0.1",
    "127.0.1": "127.0.0.1",
    "0": "0.0.0.0",
    "0x": "0.0.0.0",
    "127.0.0.1.": "127.0.0.1",
    "10.0.0.1": "10.0.0.1",
    "0251.0376.0251.0376": "169.254.169.254",
    "4294967295": "255.255.255.255",
  };
  for (const [host, expected] of Object.entries(cases)) {
    assert.equal(parseHostLiteral(host), expected, host);
    // new URL() normalises the same spellings, which assertUrlAllowed relies on.
    assert.equal(new URL(`http://${host}/`).hostname, expected, `URL(${host})`);
  }
});

Deno.test("parseHostLiteral: IPv6 forms, domains, invalid numeric hosts", () => {
  assert.equal(parseHostLiteral("[::1]"), "::1");
  assert.equal(parseHostLiteral("[0:0:0:0:0:0:0:1]"), "::1");
  assert.equal(parseHostLiteral("::ffff:127.0.0.1"), "::ffff:7f00:1");
  assert.equal(parseHostLiteral("fe80::1%eth0"), "fe80::1");
  assert.equal(parseHostLiteral("::8.8.8.8"), "::808:808"); // compatible, not mapped
  assert.equal(parseHostLiteral("::ffff:8.8.8.8"), "::ffff:808:808");
  assert.equal(new URL("http://[::8.8.8.8]/").hostname, "[::808:808]");
  assert.equal(parseHostLiteral("example.com"), null);
  assert.equal(parseHostLiteral("localhost"), null);
  assert.equal(parseHostLiteral("1.example"), null);
  assert.equal(parseHostLiteral("0x7f.example"), null);
  for (const bad of ["1.2.3.4.5", "09.1", "256.0.0.1", "4294967296", "1.2.3.0x1ff", "[::zz]"]) {
    assertBlocked(() => parseHostLiteral(bad), bad);
    if (!bad.startsWith("[")) {
      assert.throws(() => new URL(`http://${bad}/`), TypeError, `URL accepted ${bad}`);
    }
  }
});

Deno.test("isPublicAddress refuses every special-purpose range", () => {
  const refused = [
    "127.0.0.1",
    "127.255.255.254",
    "0.0.0.0",
    "0.1.2.3",
    "10.0.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "100.127.255.255",
    "224.0.0.1",
    "239.255.255.250",
    "255.255.255.255",
    "240.0.0.1",
    "192.0.2.1",
    "198.51.100.7",
    "203.0.113.9",
    "198.18.0.1",
    "192.0.0.8",
    "::1",
    "::",
    "fd00::1",
    "fc00::1",
    "fe80::1",
    "fec0::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "::127.0.0.1",
    "::8.8.8.8",
    "64:ff9b::7f00:1",
    "64:ff9b::a00:1",
    "64:ff9b:1::1",
    "2002:7f00:1::1",
    "2002:a9fe:a9fe::1",
    "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo, client 127.0.0.1
    "2001:db8::1",
    "100::1",
    "not an address",
    "example.com",
  ];
  for (const ip of refused) assert.equal(isPublicAddress(ip), false, ip);
});

Deno.test("isPublicAddress accepts global unicast, also when embedded", () => {
  const accepted = [
    "8.8.8.8",
    "93.184.216.34",
    "1.1.1.1",
    "100.63.255.255",
    "100.128.0.1",
    "172.32.0.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ];
  for (const ip of accepted) assert.equal(isPublicAddress(ip), true, ip);
});

Deno.test("assertUrlAllowed: schemes, credentials, ports, names", () => {
  assertUrlAllowed(new URL("https://example.com/a?b=c"), policy);
  assertUrlAllowed(new URL("http://example.com:8080/"), policy);
  assertUrlAllowed(new URL("http://example.com:443/"), policy);
  assertUrlAllowed(new URL("http://93.184.216.34/"), policy);
  assertUrlAllowed(new URL("http://[2606:4700:4700::1111]/"), policy);
  const blocked = [
    "ftp://example.com/",
    "file:///etc/passwd",
    "data:text/html,<p>hi</p>",
    "javascript:alert(1)",
    "ws://example.com/",
    "http://user:pass@example.com/",
    "http://user@example.com/",
    "http://example.com:22/",
    "https://example.com:6379/",
    "http://localhost/",
    "http://LOCALHOST./",
    "http://api.localhost/",
    "http://printer.local/",
    "http://metadata.google.internal/",
    "http://router.home.arpa/",
    "http://127.0.0.1/",
    "http://2130706433/",
    "http://[::1]/",
    "http://[::ffff:a9fe:a9fe]/",
  ];
  for (const url of blocked) assertBlocked(() => assertUrlAllowed(new URL(url), policy), url);
});

Deno.test("assertUrlAllowed: allow_private true and per-origin lists", () => {
  const all = parseConfig({ network: { allow_private: true } }).network;
  assertUrlAllowed(new URL("http://127.0.0.1/"), all);
  assertUrlAllowed(new URL("http://localhost:8080/"), all);
  assertBlocked(() => assertUrlAllowed(new URL("http://127.0.0.1:9999/"), all), "port");
  assertBlocked(() => assertUrlAllowed(new URL("file:///etc/passwd"), all), "file");

  const listed = parseConfig({ network: { allow_private: ["http://127.0.0.1:9999"] } }).network;
  // The listed origin passes, its port included (the operator named it).
  assertUrlAllowed(new URL("http://127.0.0.1:9999/x"), listed);
  assertBlocked(() => assertUrlAllowed(new URL("http://127.0.0.1:8080/"), listed), "other port");
  assertBlocked(() => assertUrlAllowed(new URL("http://127.0.0.1/"), listed), "default port");
  assertBlocked(() => assertUrlAllowed(new URL("https://127.0.0.1:9999/"), listed), "https");
  assertBlocked(() => assertUrlAllowed(new URL("http://10.0.0.1:9999/"), listed), "other host");
  assertBlocked(
    () => assertUrlAllowed(new URL("http://u:p@127.0.0.1:9999/"), listed),
    "credentials",
  );
});

Deno.test("blocked_url messages name the origin, never the path or credentials", () => {
  try {
    assertUrlAllowed(new URL("http://admin:hunter2@10.1.2.3/secret?token=abc"), policy);
    assert.fail("allowed");
  } catch (e) {
    assert.ok(e instanceof GleanerError);
    assert.match(e.message, /10\.1\.2\.3/);
    assert.doesNotMatch(e.message, /hunter2|admin|token|secret/);
  }
});

Deno.test("blocked_url messages name the setting that allows the URL and the value to add; adding it works", async () => {
  const cases: [string, string, Record<string, unknown>][] = [
    [
      "http://localhost:8080/search",
      'http://localhost:8080 is blocked: local host name; to allow it, add "http://localhost:8080" to network.allow_private',
      { allow_private: ["http://localhost:8080"] },
    ],
    [
      "http://10.1.2.3/",
      'http://10.1.2.3 is blocked: private or reserved address; to allow it, add "http://10.1.2.3" to network.allow_private',
      { allow_private: ["http://10.1.2.3"] },
    ],
    // A private host on another port: listing the origin allows both, so that is the fix named.
    [
      "http://127.0.0.1:8888/",
      'http://127.0.0.1:8888 is blocked: private or reserved address; to allow it, add "http://127.0.0.1:8888" to network.allow_private',
      { allow_private: ["http://127.0.0.1:8888"] },
    ],
    [
      "https://example.com:9000/",
      "https://example.com:9000 is blocked: port 9000 is not allowed; to allow it, add 9000 to network.allowed_ports",
      { allowed_ports: [...policy.allowed_ports, 9000] },
    ],
  ];
  for (const [url, message, fix] of cases) {
    assert.throws(
      () => assertUrlAllowed(new URL(url), policy),
      (e: GleanerError) => e.message === message && e.details?.setting !== undefined,
      url,
    );
    assertUrlAllowed(new URL(url), parseConfig({ network: fix }).network);
  }
  await assert.rejects(
    assertResolvedPublic("127.0.0.1", policy, "http://127.0.0.1"),
    (e: GleanerError) => e.message.endsWith('add "http://127.0.0.1" to network.allow_private'),
  );
  assert.throws(
    () => assertAddressesAllowed(["192.168.1.10"], false, "http://nas.example"),
    (e: GleanerError) => e.message.endsWith('add "http://nas.example" to network.allow_private'),
  );
});

Deno.test("assertResolvedPublic resolves names and checks every address", async () => {
  await assert.rejects(
    assertResolvedPublic("localhost", policy, "http://localhost"),
    (e: unknown) => e instanceof GleanerError && e.code === "blocked_url",
  );
  await assert.rejects(
    assertResolvedPublic("169.254.169.254", policy, "http://169.254.169.254"),
    (e: unknown) => e instanceof GleanerError && e.code === "blocked_url",
  );
  const all = parseConfig({ network: { allow_private: true } }).network;
  const addresses = await assertResolvedPublic("localhost", all, "http://localhost");
  assert.ok(addresses.length > 0);
  assert.ok(addresses.every((a) => a === "::1" || a.startsWith("127.")), addresses.join());
  assert.deepEqual(await assertResolvedPublic("[::1]", all, "http://[::1]"), ["::1"]);
});

Deno.test("assertAddressesAllowed: one private answer refuses the name", () => {
  assertAddressesAllowed(["93.184.216.34", "2606:2800:220:1::1"], false, "https://example.com");
  assertBlocked(
    () => assertAddressesAllowed(["93.184.216.34", "127.0.0.1"], false, "https://x.example"),
    "mixed",
  );
  assertAddressesAllowed(["127.0.0.1"], true, "http://x.example");
  assert.throws(
    () => assertAddressesAllowed([], false, "https://x.example"),
    (e: unknown) => e instanceof GleanerError && e.code === "not_found",
  );
});
