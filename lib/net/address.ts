/**
 * Address policy of the guarded network layer: which IP addresses are public,
 * how numeric host spellings are read, and the static checks every URL passes
 * before Gleaner opens a socket.
 *
 * The static checks here are half of the SSRF guard. The other half runs
 * inside the connection's DNS `lookup` (see `fetch.ts`): every address a
 * hostname resolves to is checked there, and the socket can only connect to
 * an address that passed.
 *
 * @module
 */
import ipaddr from "ipaddr.js";
import { lookup } from "node:dns/promises";
import type { NetworkSection } from "../config/sections.ts";
import { privateAllowed } from "../config/schema/network.ts";
import { GleanerError, networkError } from "../errors.ts";

/** The part of the network settings the address checks read. */
export type AddressPolicy = Pick<NetworkSection, "allow_private" | "allowed_ports">;

/** Host names that never point at the public internet (RFC 6761, 6762, 8375, ICANN `.internal`). */
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa"];

/**
 * Parses a host the way the WHATWG URL standard does, and returns the
 * canonical IP address it denotes: a dotted quad for IPv4 (from any numeric
 * spelling: `2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) or the RFC 5952
 * form for IPv6 (brackets optional, zone id dropped). Returns `null` when the
 * host is a domain name.
 *
 * `new URL()` already normalises every such spelling in `hostname` (checked
 * in the tests); this function exists for hosts that did not come through a
 * `URL` (request interception, headers) and as a second line of defence.
 *
 * @throws {GleanerError} `blocked_url` when the host ends in a number but is
 * not a valid IPv4 address (WHATWG fails such hosts, e.g. `1.2.3.4.5`, `09.1`).
 *
 * @example
 * ```ts
 * import { parseHostLiteral } from "./address.ts";
 * console.assert(parseHostLiteral("0x7f.1") === "127.0.0.1");
 * console.assert(parseHostLiteral("[::ffff:127.0.0.1]") === "::ffff:7f00:1");
 * console.assert(parseHostLiteral("example.com") === null);
 * ```
 */
export function parseHostLiteral(host: string): string | null {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h.includes(":")) {
    const zone = h.indexOf("%");
    // ipaddr.js reads "::a.b.c.d" as "::ffff:a.b.c.d"; spell the IPv4 tail in hex first.
    const bare = (zone >= 0 ? h.slice(0, zone) : h).replace(
      /:(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/,
      (whole, a, b, c, d) => {
        const o = [a, b, c, d].map(Number);
        if (o.some((n) => n > 255)) return whole;
        return `:${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
      },
    );
    if (!ipaddr.IPv6.isValid(bare)) {
      throw new GleanerError("blocked_url", `host ${JSON.stringify(host)} is not a valid address`);
    }
    return ipaddr.IPv6.parse(bare).toRFC5952String();
  }
  return parseWhatwgIpv4(h, host);
}

/** The WHATWG "IPv4 parser", returning a dotted quad or null for domains. */
function parseWhatwgIpv4(h: string, original: string): string | null {
  const parts = h.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  const last = parts[parts.length - 1];
  const endsInNumber = /^[0-9]+$/.test(last) || /^0x[0-9a-f]*$/.test(last);
  if (!endsInNumber) return null;
  const invalid = () =>
    new GleanerError("blocked_url", `host ${JSON.stringify(original)} is not a valid IPv4 address`);
  if (parts.length > 4) throw invalid();
  const numbers: number[] = [];
  for (const part of parts) {
    const n = parseIpv4Number(part);
    if (n === null) throw invalid();
    numbers.push(n);
  }
  for (let i = 0; i < numbers.length - 1; i++) if (numbers[i] > 255) throw invalid();
  const lastValue = numbers[numbers.length - 1];
  if (lastValue >= 256 ** (5 - numbers.length)) throw invalid();
  let value = lastValue;
  for (let i = 0; i < numbers.length - 1; i++) value += numbers[i] * 256 ** (3 - i);
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".");
}

function parseIpv4Number(part: string): number | null {
  if (part === "") return null;
  let digits = part;
  let radix = 10;
  if (/^0x/.test(part)) {
    digits = part.slice(2);
    radix = 16;
    if (digits === "") return 0;
    if (!/^[0-9a-f]+$/.test(digits)) return null;
  } else if (part.length > 1 && part.startsWith("0")) {
    digits = part.slice(1);
    radix = 8;
    if (!/^[0-7]+$/.test(digits)) return null;
  } else if (!/^[0-9]+$/.test(digits)) {
    return null;
  }
  const n = parseInt(digits, radix);
  return Number.isSafeInteger(n) ? n : Number.MAX_SAFE_INTEGER;
}

/**
 * True when an IP address is globally routable unicast, so Gleaner may
 * connect to it without `allow_private`.
 *
 * Refused: loopback, RFC 1918, link-local (incl. 169.254.169.254 cloud
 * metadata), CGNAT 100.64/10, unspecified, broadcast, multicast, reserved
 * 240/4, benchmarking and documentation ranges, AS112/AMT anycast, IPv6 ULA
 * fc00::/7, link-local fe80::/10, site-local fec0::/10, discard 100::/64,
 * 2001:db8::/32 and the other IANA special ranges. IPv6 forms that embed an
 * IPv4 address are judged by that address: IPv4-mapped `::ffff:a.b.c.d`,
 * SIIT `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::`
 * and Teredo (client address). Deprecated IPv4-compatible `::a.b.c.d`
 * (::/96) is always refused. Any string that is not an IP address is
 * refused (returns `false`).
 *
 * @example
 * ```ts
 * import { isPublicAddress } from "./address.ts";
 * console.assert(isPublicAddress("93.184.216.34"));
 * console.assert(!isPublicAddress("169.254.169.254"));
 * console.assert(!isPublicAddress("::ffff:127.0.0.1"));
 * ```
 *
 * @internal exported for tests only
 */
export function isPublicAddress(ip: string): boolean {
  let canonical: string | null;
  try {
    canonical = parseHostLiteral(ip);
  } catch {
    return false;
  }
  if (canonical === null) return false;
  const addr = ipaddr.parse(canonical);
  if (addr.kind() === "ipv4") return (addr as ipaddr.IPv4).range() === "unicast";
  return isPublicIpv6(addr as ipaddr.IPv6);
}

function isPublicIpv6(addr: ipaddr.IPv6): boolean {
  const p = addr.parts;
  const v4 = (hi: number, lo: number) =>
    new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]).range() === "unicast";
  switch (addr.range()) {
    case "ipv4Mapped":
    case "rfc6145":
      return v4(p[6], p[7]);
    case "rfc6052":
      // 64:ff9b::/96 embeds the target in the last 32 bits; 64:ff9b:1::/48 is local-use.
      return p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0 && v4(p[6], p[7]);
    case "6to4":
      return v4(p[1], p[2]);
    case "teredo":
      return v4(p[2], p[3]) && v4(~p[6] & 0xffff, ~p[7] & 0xffff);
    case "unicast":
      // ::/96 (deprecated IPv4-compatible) and the rest of ::/8 are never routable.
      return p[0] >= 0x100;
    default:
      return false;
  }
}

/**
 * Static checks on a URL, before any DNS: only `http:`/`https:`, no
 * credentials, a port from `allowed_ports` (or the scheme's default), IP
 * literal hosts must be public, and `localhost`, `*.localhost`, `*.local`,
 * `*.internal`, `*.home.arpa` are refused. Private hosts and names pass when
 * `privateAllowed(policy, url.origin)`. A port outside `allowed_ports` also
 * passes when the exact origin is listed in `allow_private` (the operator
 * named it).
 *
 * @throws {GleanerError} `blocked_url` naming the URL's origin and the reason.
 *
 * @example
 * ```ts
 * import { assertUrlAllowed } from "./address.ts";
 * import { parseConfig } from "@gleaner/gleaner";
 * const policy = parseConfig({}).network;
 * assertUrlAllowed(new URL("https://example.com/"), policy); // passes
 * try {
 *   assertUrlAllowed(new URL("http://2130706433/"), policy);
 * } catch (e) {
 *   console.assert((e as { code: string }).code === "blocked_url");
 * }
 * ```
 */
export function assertUrlAllowed(url: URL, policy: AddressPolicy): void {
  const where = url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
  const block = (reason: string): never => {
    throw new GleanerError("blocked_url", `${where} is blocked: ${reason}`, {
      details: { reason },
    });
  };
  if (url.protocol !== "http:" && url.protocol !== "https:") block("only http and https URLs");
  if (url.username !== "" || url.password !== "") block("credentials in the URL");
  const listedOrigin = Array.isArray(policy.allow_private) &&
    privateAllowed({ allow_private: policy.allow_private }, url.origin);
  const portRefused = url.port !== "" && !policy.allowed_ports.includes(Number(url.port)) &&
    !listedOrigin;
  const mayBePrivate = privateAllowed(policy, url.origin);
  let literal: string | null;
  try {
    literal = parseHostLiteral(url.hostname);
  } catch {
    return block("invalid host");
  }
  // A private host is refused first: its fix (the origin in allow_private) lets its port pass too.
  if (literal !== null) {
    if (!isPublicAddress(literal) && !mayBePrivate) {
      throw privateBlocked(url.origin, "private or reserved address");
    }
  } else {
    const name = url.hostname.toLowerCase().replace(/\.+$/, "");
    if (name === "") block("empty host");
    const local = name === "localhost" || LOCAL_SUFFIXES.some((s) => name.endsWith(s));
    if (local && !mayBePrivate) throw privateBlocked(url.origin, "local host name");
  }
  if (portRefused) {
    throw blockedUrl(where, `port ${url.port} is not allowed`, {
      setting: "network.allowed_ports",
      value: Number(url.port),
    });
  }
}

/** The setting that would let a refused URL through, and the value to add to it. */
export interface AllowFix {
  /** `network.allow_private` (an origin) or `network.allowed_ports` (a port). */
  setting: "network.allow_private" | "network.allowed_ports";
  /** What to add to the setting's list. */
  value: string | number;
}

/**
 * A `blocked_url` error naming the origin, the reason and the setting that
 * allows it, with the exact value to add:
 * `http://localhost:8080 is blocked: local host name; to allow it, add
 * "http://localhost:8080" to network.allow_private`. `details` carry
 * `reason`, `setting` and `value`.
 */
function blockedUrl(origin: string, reason: string, fix: AllowFix): GleanerError {
  return new GleanerError(
    "blocked_url",
    `${origin} is blocked: ${reason}; to allow it, add ${
      JSON.stringify(fix.value)
    } to ${fix.setting}`,
    { details: { reason, setting: fix.setting, value: fix.value } },
  );
}

/**
 * The `blocked_url` error of an origin refused for a private address (or a local host name):
 * the fix is the origin in `network.allow_private`.
 *
 * @example
 * ```ts
 * import { privateBlocked } from "./address.ts";
 * const error = privateBlocked("http://localhost:8080", "local host name");
 * console.assert(error.message.endsWith('add "http://localhost:8080" to network.allow_private'));
 * ```
 *
 * @internal exported for tests only
 */
export function privateBlocked(origin: string, reason: string): GleanerError {
  return blockedUrl(origin, reason, { setting: "network.allow_private", value: origin });
}

/**
 * Resolves a host name (`node:dns` lookup, all addresses) and throws unless
 * every address is public or private addresses are allowed for `origin`.
 * IP literals are checked without DNS. The browser tier calls this when it
 * intercepts requests; the HTTP fetcher does the same check inside its
 * socket's `lookup` instead (no window between check and connect).
 *
 * @returns the resolved addresses.
 * @throws {GleanerError} `blocked_url` for a private address, `not_found`
 * when the name does not resolve.
 *
 * @example
 * ```ts ignore
 * import { assertResolvedPublic } from "./address.ts";
 * import { parseConfig } from "@gleaner/gleaner";
 * const policy = parseConfig({}).network;
 * const addresses = await assertResolvedPublic("example.com", policy, "https://example.com");
 * ```
 */
export async function assertResolvedPublic(
  hostname: string,
  policy: AddressPolicy,
  origin: string,
): Promise<string[]> {
  const mayBePrivate = privateAllowed(policy, origin);
  const literal = parseHostLiteral(hostname);
  if (literal !== null) {
    if (!mayBePrivate && !isPublicAddress(literal)) {
      throw privateBlocked(origin, "private or reserved address");
    }
    return [literal];
  }
  let addresses: string[];
  try {
    addresses = (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);
  } catch (error) {
    throw networkError(error, origin) ??
      new GleanerError("not_found", `could not resolve ${hostname}`, { cause: error });
  }
  assertAddressesAllowed(addresses, mayBePrivate, origin);
  return addresses;
}

/**
 * Throws `blocked_url` when any of the resolved addresses is not public and
 * private addresses are not allowed (one bad address is enough: a name that
 * mixes public and private answers is a rebinding attempt).
 *
 * @example
 * ```ts
 * import { assertAddressesAllowed } from "./address.ts";
 * assertAddressesAllowed(["93.184.216.34"], false, "https://example.com");
 * ```
 */
export function assertAddressesAllowed(
  addresses: readonly string[],
  mayBePrivate: boolean,
  origin: string,
): void {
  if (addresses.length === 0) {
    throw new GleanerError("not_found", `host of ${origin} has no address`);
  }
  if (mayBePrivate) return;
  if (addresses.some((a) => !isPublicAddress(a))) {
    throw privateBlocked(origin, "the host resolves to a private or reserved address");
  }
}

/** Resolves a host name to every address it has (the guarded fetcher's own resolver). */
export type AddressResolver = (hostname: string) => Promise<readonly string[]>;

/**
 * True when `url` points into the operator's private network, so that it must
 * not be told to a third party (the Wayback tier asks the public archive only
 * about other URLs): its origin is listed in `network.allow_private`, its host
 * is an address literal that is not public (loopback, private, link-local, …,
 * judged by {@link isPublicAddress}), a local name (`localhost`, `*.local`,
 * `*.internal`, `*.home.arpa`), or a name that `resolve` answers with at least
 * one address that is not public. A name that does not exist (`ENOTFOUND`, a
 * site that is gone) is not private; a name that could not be resolved for
 * another reason, or without `resolve`, counts as private (unknown). With
 * `allow_private: true` nothing is private by its origin alone: the addresses decide.
 *
 * @example
 * ```ts
 * import { isPrivateTarget } from "./address.ts";
 * const policy = { allow_private: ["http://wiki.lan:8080"], allowed_ports: [80, 443] };
 * const resolve = (host: string) => Promise.resolve(host === "intranet.example" ? ["10.0.0.7"] : ["93.184.216.34"]);
 * console.assert(await isPrivateTarget(new URL("http://wiki.lan:8080/a"), policy, resolve));
 * console.assert(await isPrivateTarget(new URL("http://192.168.1.4/a"), policy, resolve));
 * console.assert(await isPrivateTarget(new URL("https://intranet.example/a"), policy, resolve));
 * console.assert(!(await isPrivateTarget(new URL("https://example.com/a"), policy, resolve)));
 * ```
 */
export async function isPrivateTarget(
  url: URL,
  policy: AddressPolicy,
  resolve?: AddressResolver,
): Promise<boolean> {
  const allow = policy.allow_private;
  if (Array.isArray(allow) && privateAllowed({ allow_private: allow }, url.origin)) return true;
  let literal: string | null;
  try {
    literal = parseHostLiteral(url.hostname);
  } catch {
    return true;
  }
  if (literal !== null) return !isPublicAddress(literal);
  const name = url.hostname.toLowerCase().replace(/\.+$/, "");
  if (name === "" || name === "localhost" || LOCAL_SUFFIXES.some((s) => name.endsWith(s))) {
    return true;
  }
  if (!resolve) return true;
  let addresses: readonly string[];
  try {
    addresses = await resolve(name);
  } catch (error) {
    // A name that does not exist reaches nobody; any other failure leaves it unknown.
    return networkError(error, url.origin)?.code !== "not_found";
  }
  return addresses.length === 0 || addresses.some((address) => !isPublicAddress(address));
}
