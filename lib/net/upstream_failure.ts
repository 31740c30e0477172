/**
 * The failure of one upstream call and the record of each call a router
 * keeps ({@link Attempt}): what every outside-service client throws once its
 * failure is classified (`classify.ts`).
 *
 * @module
 */
import { type ErrorCode, GleanerError } from "../errors.ts";

/** What came of one provider call. */
export type AttemptOutcome =
  | "ok"
  | "empty"
  | "blocked"
  | "rate_limited"
  | "unavailable"
  | "invalid";

/** The record of one provider call. */
export interface Attempt {
  /** Provider name (the field keeps its historical name). */
  backend: string;
  /** What came of it. */
  outcome: AttemptOutcome;
  /** Wall time of the call in milliseconds. */
  ms: number;
}

/** Outcomes that mean a provider call failed. */
export type FailureOutcome = Exclude<AttemptOutcome, "ok" | "empty">;

/** The error code that best fits each failure outcome. */
const OUTCOME_CODES: Record<FailureOutcome, ErrorCode> = {
  blocked: "provider_unavailable",
  rate_limited: "rate_limited",
  unavailable: "provider_unavailable",
  invalid: "provider_unavailable",
};

/**
 * A failed search call. It carries the {@link AttemptOutcome} so the router
 * can record it, and — when thrown by the router after every provider failed —
 * the {@link Attempt}s made (also in `details.attempts`).
 *
 * @example
 * ```ts
 * import { SearchFailure } from "./upstream_failure.ts";
 * const err = new SearchFailure("rate_limited", "duckduckgo answered 429", { backend: "duckduckgo" });
 * console.assert(err.code === "rate_limited" && err.outcome === "rate_limited");
 * ```
 */
export class SearchFailure extends GleanerError {
  /** What kind of failure it was. */
  readonly outcome: FailureOutcome;
  /** The provider that failed, when known. */
  readonly backend?: string;
  /** Every provider call made before giving up (set by the router). */
  readonly attempts: Attempt[];

  /** Creates a failure; the error code follows from the outcome unless given. */
  constructor(
    outcome: FailureOutcome,
    message: string,
    options: {
      backend?: string;
      code?: ErrorCode;
      cause?: unknown;
      attempts?: Attempt[];
      details?: Record<string, unknown>;
    } = {},
  ) {
    const attempts = options.attempts ?? [];
    super(options.code ?? OUTCOME_CODES[outcome], message, {
      cause: options.cause,
      details: {
        ...options.details,
        outcome,
        ...(options.backend ? { backend: options.backend } : {}),
        ...(options.attempts ? { attempts } : {}),
      },
    });
    this.name = "SearchFailure";
    this.outcome = outcome;
    this.backend = options.backend;
    this.attempts = attempts;
  }
}
