/**
 * Extra certificate authorities (a corporate CA, a TLS-inspecting proxy):
 * `NODE_EXTRA_CA_CERTS` and `DENO_CERT`, each a PEM file.
 *
 * Gleaner sends its requests with `node:https` (see `fetch.ts`). In Deno 2.9,
 * `node:https` loads its default trust store, including `NODE_EXTRA_CA_CERTS`,
 * only with `--allow-sys` (it asks for sys access to "ca", a name
 * `--allow-sys=` does not accept, so the grant is the whole `--allow-sys`), and
 * it ignores `DENO_CERT`, which only Deno's own `fetch` honours
 * (https://docs.deno.com/runtime/reference/env_variables/). So when `DENO_CERT`
 * is set, {@link extraCaOption} builds the trust list itself: the default roots,
 * the `NODE_EXTRA_CA_CERTS` certificates and the `DENO_CERT` ones.
 *
 * Permissions: read access to the files `NODE_EXTRA_CA_CERTS` and `DENO_CERT` name; env access to
 * both names and to `NODE_USE_SYSTEM_CA`.
 *
 * @module
 */
import type { Env } from "../config/env.ts";
import { X509Certificate } from "node:crypto";
import tls from "node:tls";
import { getGleanerLogger } from "../log.ts";

/** The environment variables that name extra CA files, in the order they are read. */
const CA_VARIABLES = ["NODE_EXTRA_CA_CERTS", "DENO_CERT"] as const;

/** What one CA variable points at. */
export interface CaFileReport {
  /** The environment variable. */
  variable: (typeof CA_VARIABLES)[number];
  /** The file it names. */
  path: string;
  /** How many certificates the file holds (when it could be read and parsed). */
  certificates?: number;
  /** Why the file cannot be used (unreadable, no certificate, a certificate that does not parse). */
  error?: string;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The PEM certificates of a file's text; throws when one does not parse or none is found. */
function parsePem(text: string): string[] {
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new Error("no PEM certificate in the file");
  blocks.forEach((pem, i) => {
    try {
      new X509Certificate(pem);
    } catch {
      throw new Error(`certificate ${i + 1} of the file does not parse`);
    }
  });
  return blocks;
}

function isPermissionError(error: unknown): boolean {
  return error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied;
}

/**
 * Reads the files named by `NODE_EXTRA_CA_CERTS` and `DENO_CERT` (those set
 * in `env`, the entry point's environment snapshot)
 * and says whether each holds loadable certificates. A missing permission is
 * thrown, not reported, so that callers name the flag.
 *
 * @example
 * ```ts
 * import { inspectExtraCa } from "./ca.ts";
 * console.assert(inspectExtraCa({}).length === 0);
 * ```
 */
export function inspectExtraCa(env: Env): CaFileReport[] {
  return readExtraCa(env).map(({ pems: _, ...report }) => report);
}

/** Each CA file named in `env`, read and parsed once: its report and its certificates. */
function readExtraCa(env: Env): (CaFileReport & { pems: string[] })[] {
  const files: (CaFileReport & { pems: string[] })[] = [];
  for (const variable of CA_VARIABLES) {
    const path = env[variable];
    if (!path) continue;
    try {
      const pems = parsePem(Deno.readTextFileSync(path));
      files.push({ variable, path, certificates: pems.length, pems });
    } catch (error) {
      if (isPermissionError(error)) throw error;
      files.push({ variable, path, error: (error as Error).message, pems: [] });
    }
  }
  return files;
}

/**
 * The `ca` option for `node:https` requests: undefined (the runtime's own trust
 * store, which includes `NODE_EXTRA_CA_CERTS`) unless `DENO_CERT` is set; then
 * the default roots plus the `NODE_EXTRA_CA_CERTS` and `DENO_CERT` certificates.
 * A file that cannot be used is left out with a warning (`gleaner doctor`
 * reports it). The guarded fetcher calls it once, when it is created.
 *
 * @example
 * ```ts ignore
 * import https from "node:https";
 * import { extraCaOption } from "./ca.ts";
 * https.request({ host: "example.com", ca: extraCaOption({ DENO_CERT: "/etc/corp-ca.pem" }) });
 * ```
 */
export function extraCaOption(env: Env): string[] | undefined {
  if (!env.DENO_CERT) return undefined;
  const ca = [...tls.rootCertificates];
  for (const { pems, ...report } of readExtraCa(env)) {
    if (report.error !== undefined) {
      getGleanerLogger("net").warn("{variable} ({path}) is not used: {error}", { ...report });
      continue;
    }
    ca.push(...pems);
  }
  return ca;
}
