import assert from "node:assert/strict";
import { GleanerError } from "../../errors.ts";
import {
  type Classification,
  classifyFailure,
  type FailureEvidence,
  providerFailure,
} from "./classify.ts";

const TABLE: [string, FailureEvidence, Classification][] = [
  ["402", { status: 402 }, { kind: "insufficient_balance" }],
  ["Tavily 432 (plan limit)", { status: 432 }, { kind: "insufficient_balance" }],
  ["Tavily 433 (pay-as-you-go limit)", { status: 433 }, { kind: "insufficient_balance" }],
  [
    "403 with an insufficient-credits body",
    { status: 403, body: '{"error":"Insufficient credits for this request"}' },
    { kind: "insufficient_balance" },
  ],
  [
    "429 saying out of credits",
    { status: 429, body: "You are out of credits" },
    { kind: "insufficient_balance" },
  ],
  [
    "400 with a quota body",
    { status: 400, body: '{"detail":"quota_exceeded"}' },
    { kind: "insufficient_balance" },
  ],
  ["429", { status: 429 }, { kind: "rate_limited" }],
  [
    "429 with Retry-After seconds",
    { status: 429, headers: new Headers({ "retry-after": "12" }) },
    { kind: "rate_limited", retry_after_s: 12 },
  ],
  ["408", { status: 408 }, { kind: "provider_unavailable" }],
  ["500", { status: 500 }, { kind: "provider_unavailable" }],
  ["502", { status: 502 }, { kind: "provider_unavailable" }],
  ["503 with a body", { status: 503, body: "<html>down</html>" }, { kind: "provider_unavailable" }],
  ["504", { status: 504 }, { kind: "provider_unavailable" }],
  [
    "timeout",
    { error: new GleanerError("timeout", "x timed out") },
    { kind: "provider_unavailable" },
  ],
  [
    "transport error",
    { error: new GleanerError("provider_unavailable", "refused") },
    { kind: "provider_unavailable" },
  ],
  ["raw TypeError", { error: new TypeError("fetch failed") }, { kind: "provider_unavailable" }],
  ["unreadable 200", { status: 200, unreadable: true }, { kind: "provider_unavailable" }],
  ["400", { status: 400, body: '{"error":"bad query"}' }, { kind: "invalid_arguments" }],
  ["422", { status: 422 }, { kind: "invalid_arguments" }],
  ["401", { status: 401 }, { kind: "unauthorized" }],
  ["403", { status: 403, body: "forbidden" }, { kind: "unauthorized" }],
  ["404", { status: 404 }, { kind: "unclassified" }],
  ["409", { status: 409 }, { kind: "unclassified" }],
];

Deno.test("classifyFailure: the table", () => {
  for (const [name, evidence, expected] of TABLE) {
    assert.deepEqual(classifyFailure(evidence), expected, name);
  }
});

Deno.test("classifyFailure: Retry-After as an HTTP date", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  const at = new Date(now + 90_000).toUTCString();
  const headers = new Headers({ "retry-after": at });
  const verdict = classifyFailure({ status: 429, headers });
  assert.equal(verdict.kind, "rate_limited");
  assert.ok(typeof verdict.retry_after_s === "number");
});

Deno.test("providerFailure: codes follow the class; no body, key or query string in messages", () => {
  const cases: [FailureEvidence, string][] = [
    [{ status: 402, body: "secret body" }, "insufficient_balance"],
    [{ status: 429 }, "rate_limited"],
    [{ status: 503, body: "secret body" }, "provider_unavailable"],
    [{ status: 400, body: "secret body" }, "invalid_arguments"],
    [{ status: 401, body: "secret body" }, "unauthorized"],
    [{ status: 404 }, "internal"],
  ];
  for (const [evidence, code] of cases) {
    const failure = providerFailure("exa", "https://api.exa.ai/search?key=sk-123", evidence);
    assert.equal(failure.code, code);
    assert.match(failure.message, /^exa: https:\/\/api\.exa\.ai\/search /);
    const shown = JSON.stringify(failure.toJSON());
    assert.ok(!shown.includes("secret body") && !shown.includes("sk-123"), shown);
  }
});
