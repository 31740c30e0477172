/**
 * Control characters (U+0000–U+001F, U+007F) and lone surrogates in id-like
 * fields (`session_id`, `ref`, `id`, `kind`, deep-research `id`) are
 * `invalid_arguments` naming the field, on every surface (library service,
 * HTTP, tool schemas) and on both storage engines (SQLite always, PostgreSQL
 * when its binaries are there, required with GLEANER_REQUIRE_POSTGRES=1).
 * PostgreSQL cannot store U+0000: before the check a NUL `session_id` was a
 * 500 with a stack trace in the log; SQLite stored it.
 */
import assert from "node:assert/strict";
import { configure, type LogRecord, reset } from "@logtape/logtape";
import { createApp } from "../http/app.ts";
import { parseToolInput } from "../lib/api.ts";
import { deepResearchFetchTool } from "../lib/tools/deep_research.ts";
import { GleanerError } from "../lib/errors.ts";
import { createGleaner, type Gleaner } from "../lib/gleaner.ts";
import { checkUserId } from "../lib/memory/stores.ts";
import { ignorePostgres, postgresSuffix, startPostgres } from "../testing/fixtures/postgres.ts";

const BAD: [string, string][] = [
  ["NUL", "s\u00001"],
  ["U+001F", "s\u001f1"],
  ["newline", "s\n1"],
  ["DEL", "s\u007f1"],
  ["lone high surrogate", "s\ud8001"],
  ["lone low surrogate", "s\udc00"],
];

function isInvalid(field: string) {
  return (e: unknown) =>
    e instanceof GleanerError && e.code === "invalid_arguments" &&
    e.message.includes(field) && e.details?.field === field;
}

/** Every check, on one Gleaner (whatever its memory engine). */
async function refusesBadIds(t: Deno.TestContext, gleaner: Gleaner): Promise<void> {
  const records: LogRecord[] = [];
  await configure({
    reset: true,
    sinks: { capture: (r: LogRecord) => void records.push(r) },
    loggers: [
      { category: ["gleaner"], lowestLevel: "debug", sinks: ["capture"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: ["capture"] },
    ],
  });
  try {
    const service = await gleaner.memories();
    const saved = await service.save({
      memories: [{ content: "the deploy key rotates on Monday" }],
    });
    const ref = saved.results[0].ref;

    await t.step("library: the memory service refuses them, naming the field", async () => {
      for (const [name, bad] of BAD) {
        await assert.rejects(
          () => service.save({ memories: [{ content: "x y z", session_id: bad }] }),
          isInvalid("memories.0.session_id"),
          name,
        );
        await assert.rejects(
          () => service.recall({ query: "deploy", session_id: bad }),
          isInvalid("session_id"),
          name,
        );
        await assert.rejects(
          () => service.list({ session_id: bad }),
          isInvalid("session_id"),
          name,
        );
        await assert.rejects(() => service.get({ ref: bad }), isInvalid("ref"), name);
        await assert.rejects(() => service.delete({ ref: bad }), isInvalid("ref"), name);
        await assert.rejects(
          () => service.update({ ref: bad, content: "new text" }),
          isInvalid("ref"),
          name,
        );
        await assert.rejects(
          // deno-lint-ignore no-explicit-any
          () => service.save({ memories: [{ content: "x y z", kind: bad as any }] }),
          isInvalid("memories.0.kind"),
          name,
        );
        // deno-lint-ignore no-explicit-any
        await assert.rejects(() => service.list({ kind: bad as any }), isInvalid("kind"), name);
      }
      // Free text may hold control characters (newlines, tabs), but not U+0000.
      await assert.rejects(
        () => service.save({ memories: [{ content: "a\u0000b" }] }),
        isInvalid("memories.0.content"),
      );
      await assert.rejects(
        () => service.update({ ref, content: "a\u0000b" }),
        isInvalid("content"),
      );
      await assert.rejects(() => service.recall({ query: "a\u0000" }), isInvalid("query"));
      await assert.rejects(() => service.list({ search: "a\u0000" }), isInvalid("search"));
      const tabbed = await service.save({ memories: [{ content: "line one\n\tline two" }] });
      assert.equal(tabbed.saved, 1);
      await service.delete({ ref: tabbed.results[0].ref });
      for (const id of [0, -1, 1.5, Number.NaN, 2 ** 63]) {
        await assert.rejects(() => service.get({ id }), isInvalid("id"), String(id));
      }
      // Nothing half-saved; the good memory is untouched.
      const listed = await service.list({});
      assert.equal(listed.total_count, 1);
      assert.equal((await service.get({ ref })).memory.content, "the deploy key rotates on Monday");
    });

    await t.step("HTTP: 400 invalid_arguments naming the field, nothing logged", async () => {
      const app = createApp(gleaner);
      const post = async (path: string, body: unknown) => {
        const res = await app.request(`http://localhost${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() };
      };
      for (const [name, bad] of BAD) {
        const cases: [string, unknown, string][] = [
          ["/v1/memories/save", { memories: [{ content: "a b", session_id: bad }] }, "memories.0"],
          ["/v1/memories/recall", { query: "deploy", session_id: bad }, "session_id"],
          ["/v1/memories/list", { session_id: bad }, "session_id"],
          ["/v1/memories/get", { ref: bad }, "ref"],
          ["/v1/memories/update", { ref: bad, content: "new" }, "ref"],
          ["/v1/memories/delete", { ref: bad }, "ref"],
          ["/v1/memories/list", { kind: bad }, "kind"],
        ];
        for (const [path, body, field] of cases) {
          const res = await post(path, body);
          assert.equal(res.status, 400, `${name} ${path}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.error.code, "invalid_arguments", `${name} ${path}`);
          assert.ok(
            res.body.error.message.includes(field),
            `${name} ${path}: ${res.body.error.message}`,
          );
        }
      }
      const nul = await post("/v1/memories/save", { memories: [{ content: "a\u0000b" }] });
      assert.equal(nul.status, 400, JSON.stringify(nul.body));
      assert.match(nul.body.error.message, /memories\.0\.content: must not contain U\+0000/);
      const errors = records.filter((r) => r.level === "error" || r.level === "fatal");
      assert.deepEqual(errors.map((r) => r.message.join("")), []);
      assert.equal((await service.list({})).total_count, 1);
    });
  } finally {
    await reset();
  }
}

Deno.test("id-like fields refuse control characters and lone surrogates (SQLite)", async (t) => {
  const dir = await Deno.makeTempDir();
  const gleaner = await createGleaner({
    store: { path: ":memory:" },
    memory: { path: `${dir}/memory.db` },
  });
  try {
    await refusesBadIds(t, gleaner);
  } finally {
    await gleaner.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    `id-like fields refuse control characters and lone surrogates (PostgreSQL)${postgresSuffix}`,
  ignore: ignorePostgres,
  fn: async (t) => {
    await using server = await startPostgres();
    const gleaner = await createGleaner({
      store: { path: ":memory:" },
      memory: { backend: "postgres", postgres_url: server.url },
    });
    try {
      await refusesBadIds(t, gleaner);
    } finally {
      await gleaner.close();
    }
  },
});

Deno.test("a user id with a lone surrogate is refused like one with a control character", () => {
  for (const user of ["a\u0000", "a\ud800", "\udfff"]) {
    assert.throws(
      () => checkUserId(user),
      (e: unknown) => e instanceof GleanerError && e.code === "unauthorized",
      JSON.stringify(user),
    );
  }
  checkUserId("alice@example.com");
});

Deno.test("deep-research fetch: an id with a control character is invalid_arguments naming id", () => {
  for (const id of ["https://example.com/\u0000", "memory:abcd\u0007", "memory:\ud800"]) {
    assert.throws(
      () => parseToolInput(deepResearchFetchTool, { id }),
      (e: unknown) =>
        e instanceof GleanerError && e.code === "invalid_arguments" &&
        e.message.startsWith("fetch: id:"),
      JSON.stringify(id),
    );
  }
  assert.deepEqual(parseToolInput(deepResearchFetchTool, { id: "memory:abcd1234" }), {
    id: "memory:abcd1234",
  });
});
