/**
 * NATS credentials for the events publisher: a credentials file (`.creds`: the user JWT and the
 * user's NKey seed, as `nsc` writes it) or a bare NKey seed file, and the nonce signature the
 * server asks for in `CONNECT` (`jwt`, `nkey`, `sig`).
 *
 * The formats, read from their documentation:
 * - the credentials file: https://docs.nats.io/using-nats/developer/connecting/creds
 *   (`-----BEGIN NATS USER JWT-----` … and `-----BEGIN USER NKEY SEED-----` …);
 * - NKeys: https://docs.nats.io/running-a-nats-service/configuration/securing_nats/auth_intro/nkey_auth
 *   and the encoding of https://github.com/nats-io/nkeys (RFC 4648 base32 without padding of a
 *   prefix, the 32-byte Ed25519 key, and a CRC-16/XMODEM little-endian); a seed starts with `S`
 *   and the letter of its public key (`SU…` for a user);
 * - the signature: the server's `INFO.nonce` signed with Ed25519, sent base64url without padding
 *   (https://docs.nats.io/reference/protocols/client#connect).
 *
 * @module
 */

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/** The prefix byte of a seed (`S`). */
const PREFIX_SEED = 18 << 3;
/** The prefix byte of a user's public key (`U`). */
const PREFIX_USER = 20 << 3;

/** What a credentials file holds. */
export interface NatsCredentials {
  /** The user JWT (absent in a bare seed file). */
  jwt?: string;
  /** The user's NKey seed (`SU…`). */
  seed: string;
}

/** Why a credentials file was refused; never the seed itself. */
class NatsCredentialsError extends Error {
  /** The name of the error class. */
  override name = "NatsCredentialsError";
}

function base32Decode(text: string): Uint8Array {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text) {
    const index = BASE32.indexOf(ch);
    if (index === -1) throw new NatsCredentialsError("the NKey is not base32");
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** CRC-16/XMODEM (polynomial 0x1021, initial 0), as the NKeys encoding uses. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/**
 * Encodes an NKey's bytes (prefix and key) as NKeys writes them: the bytes, their
 * CRC-16 little-endian, in base32 without padding
 * (https://github.com/nats-io/nkeys/blob/main/strkey.go).
 *
 * @example
 * ```ts
 * import { encodeNkey } from "./nkeys.ts";
 * const body = new Uint8Array(33);
 * body[0] = 20 << 3; // a user's public key
 * console.assert(encodeNkey(body).startsWith("U"));
 * ```
 *
 * @internal exported for tests only
 */
export function encodeNkey(body: Uint8Array): string {
  const crc = crc16(body);
  const encoded = new Uint8Array(body.length + 2);
  encoded.set(body);
  encoded[body.length] = crc & 0xff;
  encoded[body.length + 1] = crc >> 8;
  return base32Encode(encoded);
}

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/**
 * Reads a credentials file's text: the user JWT and seed of a `.creds` file, or a bare seed
 * (the only `SU…` word of the text, as an NKey seed file holds).
 *
 * @throws {NatsCredentialsError} when no user seed is found.
 *
 * @example
 * ```ts
 * import { parseCredentials } from "./nkeys.ts";
 * const creds = parseCredentials(
 *   "-----BEGIN NATS USER JWT-----\neyJhbGciOi.x.y\n------END NATS USER JWT------\n\n" +
 *     "-----BEGIN USER NKEY SEED-----\nSUAEXAMPLE\n------END USER NKEY SEED------\n",
 * );
 * console.assert(creds.jwt === "eyJhbGciOi.x.y" && creds.seed === "SUAEXAMPLE");
 * ```
 *
 * @internal exported for tests only
 */
export function parseCredentials(text: string): NatsCredentials {
  const block = (label: RegExp) => {
    const match = text.match(
      new RegExp(`-{3,}\\s*BEGIN ${label.source}\\s*-{3,}\\s*\\r?\\n\\s*(\\S+)`),
    );
    return match?.[1];
  };
  const jwt = block(/NATS USER JWT/);
  const seed = block(/USER NKEY SEED/) ?? text.match(/(?:^|\s)(SU[A-Z2-7]{50,})(?:\s|$)/)?.[1];
  if (!seed || !seed.startsWith("SU")) {
    throw new NatsCredentialsError("no user NKey seed (SU…) in the credentials file");
  }
  return { ...(jwt ? { jwt } : {}), seed };
}

/** The raw 32-byte Ed25519 seed of an encoded user seed, its checksum checked. */
function rawSeed(seed: string): Uint8Array {
  const bytes = base32Decode(seed.trim());
  if (bytes.length !== 36) throw new NatsCredentialsError("the NKey seed has the wrong length");
  const body = bytes.subarray(0, 34);
  const crc = bytes[34] | (bytes[35] << 8);
  if (crc16(body) !== crc) throw new NatsCredentialsError("the NKey seed's checksum is wrong");
  const prefix = body[0] & 0xf8;
  const kind = ((body[0] & 0x07) << 5) | ((body[1] & 0xf8) >> 3);
  if (prefix !== PREFIX_SEED || kind !== PREFIX_USER) {
    throw new NatsCredentialsError("the NKey seed is not a user seed (SU…)");
  }
  return body.slice(2);
}

/** PKCS #8 wrapping of a raw Ed25519 private key (RFC 8410, section 7). */
function pkcs8(seed: Uint8Array): Uint8Array<ArrayBuffer> {
  const head = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22];
  const out = new Uint8Array(new ArrayBuffer(head.length + 2 + 32));
  out.set(head);
  out.set([0x04, 0x20], head.length);
  out.set(seed, head.length + 2);
  return out;
}

/** A user NKey ready to answer the server's nonce. */
export interface NatsSigner {
  /** The user's public NKey (`U…`), sent as `nkey`. */
  readonly publicKey: string;
  /** The JWT of the credentials file, when it had one, sent as `jwt`. */
  readonly jwt?: string;
  /** Signs the server's nonce: base64url without padding, sent as `sig`. */
  sign(nonce: string): Promise<string>;
}

/**
 * Makes the signer of a credentials file's text.
 *
 * @throws {NatsCredentialsError} when the seed is missing or malformed.
 *
 * @example
 * ```ts ignore
 * import { natsSigner } from "./nkeys.ts";
 * const signer = await natsSigner(await Deno.readTextFile("user.creds"));
 * const sig = await signer.sign(info.nonce);
 * ```
 */
export async function natsSigner(credentialsText: string): Promise<NatsSigner> {
  const creds = parseCredentials(credentialsText);
  const key = await crypto.subtle.importKey(
    "pkcs8",
    pkcs8(rawSeed(creds.seed)),
    { name: "Ed25519" },
    true,
    ["sign"],
  );
  const jwk = await crypto.subtle.exportKey("jwk", key);
  const publicRaw = fromBase64Url(jwk.x ?? "");
  const body = new Uint8Array(33);
  body[0] = PREFIX_USER;
  body.set(publicRaw, 1);
  return {
    publicKey: encodeNkey(body),
    ...(creds.jwt ? { jwt: creds.jwt } : {}),
    async sign(nonce) {
      const signature = await crypto.subtle.sign(
        { name: "Ed25519" },
        key,
        new TextEncoder().encode(nonce),
      );
      return base64Url(new Uint8Array(signature));
    },
  };
}
