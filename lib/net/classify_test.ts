import assert from "node:assert/strict";
import { GleanerError } from "../errors.ts";
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
    { kind: "timeout" },
  ],
  [
    "the network policy refuses the endpoint",
    { error: new GleanerError("blocked_url", "http://10.0.0.1 is blocked") },
    { kind: "blocked" },
  ],
  [
    "transport error",
    { error: new GleanerError("provider_unavailable", "refused") },
    { kind: "provider_unavailable" },
  ],
  ["raw TypeError", { error: new TypeError("fetch failed") }, { kind: "provider_unavailable" }],
  ["unreadable 200", { status: 200, unreadable: true }, { kind: "provider_unavailable" }],
  // Querit's error_code inside an HTTP 200 answer stands for the HTTP status it names.
  ["Querit error_code 401 in a 200", { status: 200, bodyStatus: 401 }, { kind: "unauthorized" }],
  [
    "Querit error_code 429 in a 200 (rate), Retry-After kept",
    {
      status: 200,
      bodyStatus: 429,
      body: '{"error_code":429,"error_msg":"Too many searches."}',
      headers: new Headers({ "retry-after": "3" }),
    },
    { kind: "rate_limited", retry_after_s: 3 },
  ],
  [
    "Querit error_code 429 in a 200 saying the quota is spent",
    {
      status: 200,
      bodyStatus: 429,
      body: '{"error_code":"429","error_msg":"Search quota exceeded."}',
    },
    { kind: "insufficient_balance" },
  ],
  ["Querit error_code 400 in a 200", { status: 200, bodyStatus: 400 }, {
    kind: "invalid_arguments",
  }],
  ["Querit error_code 503 in a 200", { status: 200, bodyStatus: 503 }, {
    kind: "provider_unavailable",
  }],
  ["an in-body code that is no HTTP status", { status: 200, bodyStatus: 1001 }, {
    kind: "unclassified",
  }],
  ["an in-body code that is no number", { status: 200, bodyStatus: NaN }, {
    kind: "unclassified",
  }],
  ["400", { status: 400, body: '{"error":"bad query"}' }, { kind: "invalid_arguments" }],
  ["422", { status: 422 }, { kind: "invalid_arguments" }],
  [
    "TinyFish 401 MISSING_API_KEY (https://docs.tinyfish.ai/error-codes)",
    {
      status: 401,
      body: '{"error":{"code":"MISSING_API_KEY","message":"X-API-Key header is required"}}',
    },
    { kind: "unauthorized", upstream_code: "MISSING_API_KEY" },
  ],
  [
    "TinyFish 400 INVALID_INPUT names the field in details[].path",
    {
      status: 400,
      body: JSON.stringify({
        error: {
          code: "INVALID_INPUT",
          message: 'Field "proxy_config.country_code": Invalid enum value',
          details: [{
            code: "invalid_value",
            path: ["proxy_config", "country_code"],
            message: "x",
          }],
        },
      }),
    },
    { kind: "invalid_arguments", field: "proxy_config.country_code" },
  ],
  ["401", { status: 401 }, { kind: "unauthorized" }],
  ["403", { status: 403, body: "forbidden" }, { kind: "unauthorized" }],
  ["404", { status: 404 }, { kind: "not_found" }],
  ["409", { status: 409 }, { kind: "unclassified" }],
  // Documented codes decide before the status (sources in classify.ts and the fakes).
  [
    "Brave 422 SUBSCRIPTION_TOKEN_INVALID",
    {
      status: 422,
      body: '{"type":"ErrorResponse","error":{"status":422,"code":"SUBSCRIPTION_TOKEN_INVALID"}}',
    },
    { kind: "unauthorized", upstream_code: "SUBSCRIPTION_TOKEN_INVALID" },
  ],
  [
    "Brave 422 QUOTA_LIMITED",
    { status: 422, body: '{"type":"ErrorResponse","error":{"status":422,"code":"QUOTA_LIMITED"}}' },
    { kind: "insufficient_balance", upstream_code: "QUOTA_LIMITED" },
  ],
  [
    "Brave errors[] form",
    {
      status: 429,
      body: '{"type":"ErrorResponse","errors":[{"code":"RATE_LIMITED","status":429}]}',
    },
    { kind: "rate_limited", upstream_code: "RATE_LIMITED" },
  ],
  [
    "Brave 422 VALIDATION on a query parameter",
    {
      status: 422,
      body:
        '{"type":"ErrorResponse","error":{"code":"VALIDATION","meta":{"errors":[{"loc":["query","q"]}]}}}',
    },
    { kind: "invalid_arguments", field: "q" },
  ],
  [
    "Google BadRequest names the field",
    {
      status: 400,
      body:
        '{"error":{"code":400,"status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"contents[0].parts","description":"free text"}]}]}}',
    },
    { kind: "invalid_arguments", field: "contents[0].parts" },
  ],
  [
    "FastAPI's HTTPValidationError (Parallel Task Groups) names the parameter path",
    {
      status: 422,
      body:
        '{"detail":[{"loc":["body","inputs",0,"processor"],"msg":"Invalid processor","type":"value_error"}]}',
    },
    { kind: "invalid_arguments", field: "inputs[0].processor" },
  ],
  [
    "a field that is not a parameter name is not kept",
    {
      status: 422,
      body:
        '{"type":"ErrorResponse","error":{"code":"VALIDATION","meta":{"errors":[{"loc":["query","drop table; --"]}]}}}',
    },
    { kind: "invalid_arguments" },
  ],
  [
    "Gemini 400 INVALID_ARGUMENT with reason API_KEY_INVALID",
    {
      status: 400,
      body:
        '{"error":{"code":400,"status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}',
    },
    { kind: "unauthorized", upstream_code: "API_KEY_INVALID" },
  ],
  [
    "Gemini 429 'You exceeded your current quota' is a rate limit, with RetryInfo",
    {
      status: 429,
      body:
        '{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}]}}',
    },
    { kind: "rate_limited", retry_after_s: 17, upstream_code: "RESOURCE_EXHAUSTED" },
  ],
  [
    "Exa 402 NO_MORE_CREDITS",
    { status: 402, body: '{"requestId":"r","error":"out","tag":"NO_MORE_CREDITS"}' },
    { kind: "insufficient_balance", upstream_code: "NO_MORE_CREDITS" },
  ],
  [
    "Jina 401 AuthenticationFailedError",
    { status: 401, body: '{"data":null,"code":401,"name":"AuthenticationFailedError"}' },
    { kind: "unauthorized", upstream_code: "AuthenticationFailedError" },
  ],
  [
    "an unknown code is ignored: the status decides",
    { status: 400, body: '{"error":{"code":"SOMETHING_ELSE"}}' },
    { kind: "invalid_arguments" },
  ],
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
    [{ status: 404 }, "not_found"],
    [{ status: 409 }, "internal"],
  ];
  for (const [evidence, code] of cases) {
    const failure = providerFailure("exa", "https://api.exa.ai/search?key=sk-123", evidence);
    assert.equal(failure.code, code);
    assert.match(failure.message, /^exa: https:\/\/api\.exa\.ai\/search /);
    const shown = JSON.stringify(failure.toJSON());
    assert.ok(!shown.includes("secret body") && !shown.includes("sk-123"), shown);
  }
});

Deno.test("providerFailure: an error code inside a 200 answer is named as such, never the body", () => {
  const failure = providerFailure("querit", "https://api.querit.ai/v1/search", {
    status: 200,
    bodyStatus: 429,
    body: '{"error_code":429,"error_msg":"Too many searches. secret-body"}',
    headers: new Headers({ "retry-after": "4" }),
  });
  assert.equal(failure.code, "rate_limited");
  assert.match(failure.message, /answered HTTP 200 with error code 429 in its body/);
  assert.ok(!failure.message.includes("secret-body"));
  assert.equal(failure.details?.status, 200);
  assert.equal(failure.details?.body_status, 429);
  assert.equal(failure.details?.retry_after_s, 4);
  const odd = providerFailure("querit", "https://api.querit.ai/v1/search", {
    status: 200,
    bodyStatus: NaN,
  });
  assert.equal(odd.code, "internal");
  assert.match(odd.message, /error code \(not a status\) in its body/);
});
