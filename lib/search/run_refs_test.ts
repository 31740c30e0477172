import assert from "node:assert/strict";
import { GleanerError } from "../errors.ts";
import { SearchFailure } from "../net/upstream_failure.ts";
import { webAnswerInput } from "../tools/role_tools.ts";
import { PROVIDERS } from "./providers/registry.ts";
import { RUN_REF_MAX_CHARS } from "./providers/types.ts";
import {
  OPEN_RUN_REFS,
  OPERATOR_RUN_REFS,
  sealAnswer,
  sealFailure,
  tenantRunRefs,
} from "./run_refs.ts";

const SECRET = "hmac-secret-0123456789abcdef0123456789";

function refusal(call: () => unknown): GleanerError {
  try {
    call();
  } catch (error) {
    assert.ok(error instanceof GleanerError, String(error));
    return error;
  }
  assert.fail("expected a refusal");
}

Deno.test("tenantRunRefs: only the tenant it was handed to opens a reference, for its provider", () => {
  const alice = tenantRunRefs(SECRET, "alice");
  const bob = tenantRunRefs(SECRET, "bob");
  const ref = alice.seal("parallel", "trun_1");
  assert.match(ref, /^trun_1~[A-Za-z0-9_-]{22}$/);
  assert.equal(alice.seal("parallel", "trun_1"), ref, "the same reference every time");
  assert.equal(tenantRunRefs(SECRET, "alice").open("parallel", ref, "run_id"), "trun_1");
  const unknown = refusal(() => bob.open("parallel", "never_started", "run_id"));
  assert.equal(unknown.code, "not_found");
  assert.deepEqual(unknown.details, { field: "run_id", provider: "parallel" });
  const tampered = `trun_2${ref.slice("trun_1".length)}`;
  const flipped = ref.slice(0, -1) + (ref.endsWith("A") ? "B" : "A");
  for (
    const [who, provider, given] of [
      [bob, "parallel", ref], // another tenant's reference
      [bob, "parallel", "trun_1"], // the provider's own id
      [alice, "parallel", "trun_1"], // even for the tenant that started it
      [alice, "tinyfish", ref], // another provider
      [alice, "parallel", tampered], // another id under the seal
      [alice, "parallel", flipped], // a seal one character off
      [tenantRunRefs("another-secret-0123456789abcdef01234", "alice"), "parallel", ref],
    ] as const
  ) {
    const refused = refusal(() => who.open(provider, given, "run_id"));
    assert.equal(refused.code, "not_found", given);
    const never = refusal(() => who.open(provider, "never_started", "run_id"));
    assert.equal(refused.message, never.message, "the same words as for an unknown id");
  }
  assert.equal(refusal(() => tenantRunRefs("", "alice")).code, "invalid_arguments");
});

Deno.test("OPERATOR_RUN_REFS opens any tenant's reference and plain ids; OPEN_RUN_REFS passes ids as they are", () => {
  const ref = tenantRunRefs(SECRET, "alice").seal("gemini", "v1_fake.run_1");
  assert.equal(OPERATOR_RUN_REFS.open("gemini", ref, "interaction_id"), "v1_fake.run_1");
  assert.equal(
    OPERATOR_RUN_REFS.open("gemini", "v1_fake.run_1", "interaction_id"),
    "v1_fake.run_1",
  );
  assert.equal(OPERATOR_RUN_REFS.seal("gemini", "v1_fake.run_1"), "v1_fake.run_1");
  assert.equal(OPEN_RUN_REFS.open("gemini", ref, "interaction_id"), ref);
  assert.equal(OPEN_RUN_REFS.seal("gemini", "v1_fake.run_1"), "v1_fake.run_1");
});

Deno.test("run references: a tenant's reference to the longest id a provider gives fits every tool that takes one", () => {
  const ref = tenantRunRefs(SECRET, "alice").seal("parallel", "r".repeat(200));
  assert.ok(ref.length <= RUN_REF_MAX_CHARS, `${ref.length} characters`);
  let checked = 0;
  for (const provider of PROVIDERS) {
    for (const tool of provider.tools) {
      for (const field of ["run_id", "interaction_id"]) {
        if (!Object.hasOwn(tool.input.shape, field)) continue;
        const base = tool.kind === "answer" && field === "interaction_id" ? { query: "q" } : {};
        const parsed = tool.input.safeParse({ ...base, [field]: ref });
        assert.ok(parsed.success, `${tool.name}.${field}: ${JSON.stringify(parsed.error)}`);
        checked++;
      }
    }
  }
  assert.ok(checked >= 5, `${checked} tools`);
  assert.ok(webAnswerInput(["gemini"]).safeParse({ query: "q", interaction_id: ref }).success);
});

Deno.test("sealAnswer: the run's id in the answer and its provider_data becomes the reference; the answer's text stays", () => {
  const runs = tenantRunRefs(SECRET, "alice");
  const ref = runs.seal("tinyfish", "tf_run_1");
  const out = sealAnswer(runs, "tinyfish", {
    answer: "Run tf_run_1 found tf_run_10 products.",
    status: "in_progress",
    interaction_id: "tf_run_1",
    provider_data: { run_id: "tf_run_1", note: ["see tf_run_1", "tf_run_10"] },
  });
  assert.equal(out.interaction_id, ref);
  assert.deepEqual(out.provider_data, { run_id: ref, note: [`see ${ref}`, "tf_run_10"] });
  assert.equal(out.answer, "Run tf_run_1 found tf_run_10 products.", "the provider's text");
  const plain = { answer: "x", interaction_id: "tf_run_1" };
  assert.equal(sealAnswer(OPEN_RUN_REFS, "tinyfish", plain), plain, "outside hosted mode");
  assert.equal(sealAnswer(runs, "tinyfish", "text"), "text");
});

Deno.test("sealFailure: a failure that names a run names the reference, keeping its class, code and outcome", () => {
  const runs = tenantRunRefs(SECRET, "alice");
  const ref = runs.seal("tinyfish", "tf_run_1");
  const failure = new SearchFailure(
    "unavailable",
    "tinyfish: timed out; the agent run tf_run_1 may still be going: call again with run_id tf_run_1",
    { backend: "tinyfish", code: "timeout", details: { provider: "tinyfish", run_id: "tf_run_1" } },
  );
  const sealed = sealFailure(runs, "tinyfish", failure);
  assert.ok(sealed instanceof SearchFailure);
  assert.equal(sealed.code, "timeout");
  assert.equal(sealed.outcome, "unavailable");
  assert.equal(sealed.backend, "tinyfish");
  assert.equal(
    sealed.message,
    `tinyfish: timed out; the agent run ${ref} may still be going: call again with run_id ${ref}`,
  );
  assert.equal(sealed.details?.run_id, ref);
  assert.equal(sealed.cause, failure);
  // An id the call was about, named only in the message.
  const plain = new GleanerError("not_found", "gemini: interaction v1_x is gone");
  const named = sealFailure(runs, "gemini", plain, ["v1_x"]) as GleanerError;
  assert.equal(named.message, `gemini: interaction ${runs.seal("gemini", "v1_x")} is gone`);
  assert.equal(sealFailure(runs, "gemini", plain), plain, "nothing to replace");
  const bug = new TypeError("x");
  assert.equal(sealFailure(runs, "gemini", bug, ["x"]), bug);
});
