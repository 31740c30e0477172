/**
 * Who may name a provider's long-running run: Parallel's task runs, task
 * groups and FindAll runs, TinyFish agent runs, Gemini Deep Research
 * interactions. Their ids are handed out by the provider on the operator's
 * account, and a status or resume call asks the provider for whatever id it
 * is given; in hosted mode that would let any tenant holding (or guessing, or
 * reading in a log) an id read another tenant's research, or the operator's.
 *
 * So in hosted mode a tenant is never handed the upstream id itself, but a
 * reference bound to that tenant and provider: `<upstream id>~<seal>`, the
 * seal an HMAC-SHA256 of (tenant, provider, id) under the hosted HMAC secret
 * (`memory.hosted_hmac_secret`), 22 characters of base64url (128 bits). A
 * status or resume call opens the reference before anything is sent: an id
 * without this tenant's seal, an upstream id alone, or another tenant's
 * reference is `not_found`, the provider never asked, so nothing says whether
 * such a run exists. Nothing is stored: every replica that shares the secret
 * opens the same references, on SQLite or Valkey alike, for as long as the
 * provider keeps the run.
 *
 * The operator (a hosted request with the admin key) is handed upstream ids
 * and may name any run: an upstream id, or any tenant's reference (its seal
 * is not checked). Outside hosted mode ids pass as they are.
 *
 * @module
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { GleanerError } from "../errors.ts";
import { isRecord } from "../net/json_call.ts";
import { SearchFailure } from "../net/upstream_failure.ts";

/** The answer fields that carry a run's id (a run tool's `run_id`, a long answer's `interaction_id`). */
const ID_FIELDS = ["run_id", "interaction_id"] as const;

/** Separates the upstream id from its seal; no provider's id holds it. */
const SEPARATOR = "~";

/** Characters of a seal: 16 bytes of HMAC in base64url. */
const SEAL_CHARS = 22;

/** A reference as a tenant is handed it: the upstream id, `~`, the seal. */
const SEALED = new RegExp(`^(.+)${SEPARATOR}([A-Za-z0-9_-]{${SEAL_CHARS}})$`);

/** How one caller names runs: what it is handed, and what it may ask about. */
export interface RunRefs {
  /**
   * The upstream id a caller's reference names for `provider`; a
   * `GleanerError("not_found")` naming `field` when this caller may not
   * name that run (checked before anything reaches the provider).
   */
  open(provider: string, ref: string, field: string): string;
  /** The reference this caller is handed for the upstream id `id` of `provider`. */
  seal(provider: string, id: string): string;
}

/**
 * Runs named by their upstream ids, as they are (a single user's server; a
 * library caller).
 *
 * @example
 * ```ts
 * import { OPEN_RUN_REFS } from "./run_refs.ts";
 * console.assert(OPEN_RUN_REFS.seal("parallel", "trun_1") === "trun_1");
 * console.assert(OPEN_RUN_REFS.open("parallel", "trun_1", "run_id") === "trun_1");
 * ```
 */
export const OPEN_RUN_REFS: RunRefs = {
  open: (_provider, ref) => ref,
  seal: (_provider, id) => id,
};

/**
 * The operator's references in hosted mode: handed upstream ids, and may
 * name any run, by its upstream id or by any tenant's reference.
 *
 * @example
 * ```ts
 * import { OPERATOR_RUN_REFS, tenantRunRefs } from "./run_refs.ts";
 * const ref = tenantRunRefs("k".repeat(32), "a").seal("tinyfish", "tf_run_1");
 * console.assert(OPERATOR_RUN_REFS.open("tinyfish", ref, "run_id") === "tf_run_1");
 * console.assert(OPERATOR_RUN_REFS.seal("tinyfish", "tf_run_2") === "tf_run_2");
 * ```
 */
export const OPERATOR_RUN_REFS: RunRefs = {
  open: (_provider, ref) => SEALED.exec(ref)?.[1] ?? ref,
  seal: (_provider, id) => id,
};

function notFound(provider: string, field: string): GleanerError {
  return new GleanerError(
    "not_found",
    `${field}: no run of ${provider} started by this user has this id`,
    { details: { field, provider } },
  );
}

/**
 * A hosted tenant's references: each upstream id is handed sealed to
 * `tenant` and the provider, and only references this tenant was handed
 * open (see the module description).
 *
 * @example
 * ```ts
 * import { tenantRunRefs } from "./run_refs.ts";
 * const secret = "k".repeat(32);
 * const alice = tenantRunRefs(secret, "alice-tenant");
 * const ref = alice.seal("parallel", "trun_1");
 * console.assert(ref.startsWith("trun_1~"));
 * console.assert(alice.open("parallel", ref, "run_id") === "trun_1");
 * let refused = "";
 * try {
 *   tenantRunRefs(secret, "bob-tenant").open("parallel", ref, "run_id");
 * } catch (error) {
 *   refused = (error as { code: string }).code;
 * }
 * console.assert(refused === "not_found");
 * ```
 */
export function tenantRunRefs(secret: string, tenant: string): RunRefs {
  if (!secret) {
    throw new GleanerError(
      "invalid_arguments",
      "memory.hosted_hmac_secret is required when memory.hosted is on",
      { details: { field: "memory.hosted_hmac_secret" } },
    );
  }
  const mac = (provider: string, id: string) =>
    createHmac("sha256", secret)
      .update(`gleaner-run\u0000${tenant}\u0000${provider}\u0000${id}`, "utf8")
      .digest().subarray(0, 16);
  return {
    open(provider, ref, field) {
      const match = SEALED.exec(ref);
      if (!match) throw notFound(provider, field);
      const given = Buffer.from(match[2], "base64url");
      const expected = mac(provider, match[1]);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw notFound(provider, field);
      }
      return match[1];
    },
    seal: (provider, id) =>
      `${id}${SEPARATOR}${mac(provider, id).toString("base64url").slice(0, SEAL_CHARS)}`,
  };
}

/** `text` with every whole `id` replaced by `ref` (an id inside a longer token is left alone). */
function replaceId(text: string, id: string, ref: string): string {
  if (!text.includes(id)) return text;
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.replace(new RegExp(`(?<![A-Za-z0-9_.~-])${escaped}(?![A-Za-z0-9_~-])`, "g"), ref);
}

/** `value` with the ids of `refs` replaced in every string, deeply (bounded depth). */
function replaceDeep(value: unknown, refs: Map<string, string>, depth = 0): unknown {
  if (typeof value === "string") {
    let text = value;
    for (const [id, ref] of refs) text = replaceId(text, id, ref);
    return text;
  }
  if (depth > 8) return value;
  if (Array.isArray(value)) return value.map((v) => replaceDeep(v, refs, depth + 1));
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, replaceDeep(v, refs, depth + 1)]),
    );
  }
  return value;
}

/** The references of the run ids in `fields` (and of `known`), for this caller. */
function refsOf(
  runs: RunRefs,
  provider: string,
  fields: Record<string, unknown> | undefined,
  known: readonly string[],
): Map<string, string> {
  const ids = new Set(known);
  for (const field of ID_FIELDS) {
    const id = fields?.[field];
    if (typeof id === "string" && id !== "") ids.add(id);
  }
  const refs = new Map<string, string>();
  for (const id of ids) {
    const ref = runs.seal(provider, id);
    if (ref !== id) refs.set(id, ref);
  }
  return refs;
}

/**
 * A tool's answer as this caller is handed it: the run id it carries
 * (`run_id`, `interaction_id`, and the same id where `provider_data` repeats
 * it) replaced by the caller's reference. The answer's own text (a report,
 * items, citations) is left as the provider wrote it.
 *
 * @example
 * ```ts
 * import { sealAnswer, tenantRunRefs } from "./run_refs.ts";
 * const runs = tenantRunRefs("k".repeat(32), "a");
 * const out = sealAnswer(runs, "tinyfish", {
 *   answer: "",
 *   interaction_id: "tf_run_1",
 *   provider_data: { run_id: "tf_run_1" },
 * });
 * console.assert(out.interaction_id === runs.seal("tinyfish", "tf_run_1"));
 * console.assert(out.provider_data.run_id === out.interaction_id);
 * ```
 */
export function sealAnswer<T>(runs: RunRefs, provider: string, value: T): T {
  if (!isRecord(value)) return value;
  const refs = refsOf(runs, provider, value, []);
  if (refs.size === 0) return value;
  const out: Record<string, unknown> = { ...value };
  for (const field of ID_FIELDS) {
    if (typeof out[field] === "string") out[field] = refs.get(out[field] as string) ?? out[field];
  }
  if (out.provider_data !== undefined) out.provider_data = replaceDeep(out.provider_data, refs);
  return out as T;
}

/**
 * A failure as this caller is handed it: where its message or details name a
 * run (`details.run_id`, `details.interaction_id`, or one of `known`, the ids
 * the call was about), they name the caller's reference instead, so "call
 * again with run_id …" gives the reference that resumes it. Anything that is
 * not a Gleaner error is returned as it is; a provider's failure stays a
 * {@link SearchFailure} with its outcome and attempts.
 *
 * @example
 * ```ts
 * import { GleanerError } from "../errors.ts";
 * import { sealFailure, tenantRunRefs } from "./run_refs.ts";
 * const runs = tenantRunRefs("k".repeat(32), "a");
 * const error = sealFailure(runs, "tinyfish", new GleanerError(
 *   "timeout",
 *   "call again with run_id tf_run_1",
 *   { details: { run_id: "tf_run_1" } },
 * )) as GleanerError;
 * console.assert(error.message.endsWith(runs.seal("tinyfish", "tf_run_1")));
 * ```
 */
export function sealFailure(
  runs: RunRefs,
  provider: string,
  error: unknown,
  known: readonly string[] = [],
): unknown {
  if (!(error instanceof GleanerError)) return error;
  const refs = refsOf(runs, provider, error.details, known);
  if (refs.size === 0) return error;
  const message = replaceDeep(error.message, refs) as string;
  const details = replaceDeep(error.details, refs) as Record<string, unknown> | undefined;
  if (error instanceof SearchFailure) {
    return new SearchFailure(error.outcome, message, {
      backend: error.backend,
      code: error.code,
      cause: error,
      attempts: error.attempts,
      details,
    });
  }
  return new GleanerError(error.code, message, { cause: error, details });
}
