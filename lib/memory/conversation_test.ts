import assert from "node:assert/strict";
import { rejectsWith } from "../../testing/asserts.ts";
import { createStaticEmbedder } from "../embed/static.ts";
import type { Embedder } from "../embed/types.ts";
import { countTokens } from "../text/tokens.ts";
import { renderContextMemory, renderRecall, renderRecalledMemory } from "./render.ts";
import { MemoryService, type MemoryServiceOptions } from "./service.ts";
import { openSqliteMemoryBackend } from "./sqlite/backend.ts";
import { questionTimeRange, TELL_LAG_MS } from "./time_query.ts";

let shared: Promise<Embedder> | undefined;
const staticEmbedder = () => (shared ??= createStaticEmbedder());

function service(options: MemoryServiceOptions = {}) {
  return new MemoryService(openSqliteMemoryBackend(":memory:"), {
    embedder: staticEmbedder,
    ...options,
  });
}

Deno.test("save: occurred_at and author are kept, shown in recall, and checked", async () => {
  const m = service();
  try {
    const out = await m.save({
      memories: [
        {
          content: "I went to a support group yesterday.",
          session_id: "session-1",
          occurred_at: "2023-05-08T13:56",
          author: " Caroline ",
        },
        { content: "No time, no author." },
      ],
    });
    assert.equal(out.saved, 2);
    const { memory } = await m.get({ ref: out.results[0].ref });
    assert.equal(memory.occurred_at, "2023-05-08T13:56:00.000Z");
    assert.equal(memory.author, "Caroline");
    assert.equal((await m.get({ ref: out.results[1].ref })).memory.author, null);
    const recall = await m.recall({ query: "support group" });
    assert.equal(recall.memories[0].occurred_at, "2023-05-08T13:56:00.000Z");
    assert.equal(recall.memories[0].author, "Caroline");
    const text = renderRecall(recall);
    assert.ok(text.includes('occurred_at="2023-05-08T13:56Z" author="Caroline">'), text);

    for (
      const [bad, field] of [
        [{ content: "x", occurred_at: "last tuesday" }, "memories.0.occurred_at"],
        [{ content: "x", occurred_at: "2023-13-45" }, "memories.0.occurred_at"],
        [{ content: "x", occurred_at: "2024-02-30" }, "memories.0.occurred_at"],
        [{ content: "x", occurred_at: "2023-05-08T25:00" }, "memories.0.occurred_at"],
        [{ content: "x", author: "  " }, "memories.0.author"],
        [{ content: "x", author: "a\u0000b" }, "memories.0.author"],
        [{ content: "x", author: "x".repeat(201) }, "memories.0.author"],
      ] as const
    ) {
      const error = await rejectsWith(m.save({ memories: [bad] }), "invalid_arguments", field);
      assert.ok(error.message.startsWith(`${field}:`), error.message);
    }
    assert.equal((await m.backend.counts()).live, 2, "a refused batch writes nothing");
  } finally {
    await m.close();
  }
});

Deno.test("recall: a memory said by the author the question names ranks before the same words said to them", async () => {
  const turns = [
    {
      content: "Caroline, your hiking photos from the hiking trail look great! Hiking is the best.",
      author: "Melanie",
    },
    { content: "I went hiking in the mountains yesterday.", author: "Caroline" },
    { content: "The kids painted a sunset at school.", author: "Melanie" },
  ];
  const order = async (authorWeight: number) => {
    const m = service({ authorWeight });
    try {
      await m.save({
        memories: turns.map((t) => ({ ...t, session_id: "session-1", occurred_at: "2023-05-08" })),
      });
      const out = await m.recall({ query: "Where did Caroline go hiking?" });
      return out.memories.map((r) => r.author);
    } finally {
      await m.close();
    }
  };
  // Without the author, the other speaker's turn wins on the words alone.
  assert.equal((await order(0))[0], "Melanie");
  assert.equal((await order(1))[0], "Caroline");
});

Deno.test("recall: a recalled turn brings the turns said around it in its session, within the budget", async () => {
  const m = service({ contextBefore: 1, contextAfter: 1 });
  try {
    const session = [
      { content: "Hey! How was your weekend?", author: "Caroline" },
      { content: "What did you paint for the gallery show, Mel?", author: "Caroline" },
      { content: "A sunset over the lake, with my kids.", author: "Melanie" },
      { content: "That sounds lovely.", author: "Caroline" },
    ];
    await m.save({
      memories: session.map((t) => ({ ...t, session_id: "s1", occurred_at: "2023-07-15T10:00Z" })),
    });
    await m.save({ memories: [{ content: "The gallery show opens on Friday." }] });
    await m.save({
      memories: [
        { content: "Facts saved in one session: the gallery is on Main Street.", session_id: "f" },
        { content: "Facts saved in one session: parking is free.", session_id: "f" },
      ],
    });
    const out = await m.recall({ query: "painting for the gallery show", top_k: 1 });
    assert.equal(out.memories.length, 1);
    const [hit] = out.memories;
    assert.equal(hit.content, session[1].content);
    assert.deepEqual(
      hit.context?.map((c) => [c.position, c.content, c.author]),
      [["after", session[2].content, "Melanie"], ["before", session[0].content, "Caroline"]],
    );
    const text = renderRecall(out);
    const before = text.indexOf(`<context of="1" author="Caroline">${session[0].content}`);
    const self = text.indexOf(`<memory index="1"`);
    const after = text.indexOf(`<context of="1" author="Melanie">${session[2].content}`);
    assert.ok(before > 0 && self > before && after > self, text);
    assert.ok(!text.slice(after).includes("occurred_at"), "the same time is not repeated");

    // The budget holds the context too; a memory without a session has none.
    const room = countTokens(renderRecalledMemory(hit)) + 5;
    const tight = await m.recall({
      query: "painting for the gallery show",
      top_k: 1,
      max_tokens: room,
    });
    assert.equal(tight.memories.length, 1);
    assert.equal(tight.memories[0].context, undefined);
    assert.ok(tight.tokens <= room);
    const alone = await m.recall({ query: "when does the gallery show open", top_k: 1 });
    assert.equal(alone.memories[0].session_id, null);
    assert.equal(alone.memories[0].context, undefined);
    // Facts saved without an author are not conversation turns: no context.
    const fact = await m.recall({ query: "where is the gallery street", top_k: 1 });
    assert.equal(fact.memories[0].session_id, "f");
    assert.equal(fact.memories[0].context, undefined);
  } finally {
    await m.close();
  }
});

Deno.test("questionTimeRange: days, months, years and relative times, with the telling lag", () => {
  const day = 86_400_000;
  const cases: [string, number, number][] = [
    ["What movie did Joanna watch on 1 May, 2022?", Date.UTC(2022, 4, 1), Date.UTC(2022, 4, 2)],
    ["Who did Maria have dinner with on May 3, 2023?", Date.UTC(2023, 4, 3), Date.UTC(2023, 4, 4)],
    ["What happened on 2023-05-03?", Date.UTC(2023, 4, 3), Date.UTC(2023, 4, 4)],
    ["What setback did Melanie face in October 2023?", Date.UTC(2023, 9, 1), Date.UTC(2023, 10, 1)],
    ["What did Tim do in December, 2022?", Date.UTC(2022, 11, 1), Date.UTC(2023, 0, 1)],
    [
      "How many times has Melanie gone to the beach in 2023?",
      Date.UTC(2023, 0, 1),
      Date.UTC(2024, 0, 1),
    ],
  ];
  for (const [q, start, end] of cases) {
    assert.deepEqual(questionTimeRange(q, 0), { start, end: end + TELL_LAG_MS }, q);
  }
  const now = Date.UTC(2026, 0, 10, 15);
  assert.deepEqual(questionTimeRange("what did we decide yesterday", now), {
    start: Date.UTC(2026, 0, 9),
    end: Date.UTC(2026, 0, 10) + TELL_LAG_MS,
  });
  assert.equal(questionTimeRange("what happened last week?", now)!.start, Date.UTC(2026, 0, 3));
  // No 31 February: the month is what the question names.
  assert.equal(questionTimeRange("on 31 February, 2023", now)!.start, Date.UTC(2023, 1, 1));
  for (const q of ["What may Caroline paint next?", "What is 2023 in binary"]) {
    assert.equal(questionTimeRange(q, now), undefined, q);
  }
  assert.ok(TELL_LAG_MS >= day);
});

Deno.test("recall: a question that names a time prefers what happened then", async () => {
  const order = async (timeWeight: number) => {
    const m = service({ timeWeight, contextAfter: 0, contextBefore: 0 });
    try {
      await m.save({
        memories: [
          {
            content: "Family dinner again! A big family dinner with the whole family.",
            session_id: "s3",
            occurred_at: "2023-08-20T18:00Z",
            author: "Maria",
          },
          {
            content: "Dinner at home yesterday with my parents.",
            session_id: "s1",
            occurred_at: "2023-05-04T09:00Z",
            author: "Maria",
          },
        ],
      });
      const out = await m.recall({
        query: "Who did Maria have a family dinner with on May 3, 2023?",
      });
      return out.memories.map((r) => r.session_id);
    } finally {
      await m.close();
    }
  };
  assert.equal((await order(0))[0], "s3", "on the words alone the longer turn wins");
  assert.equal((await order(1))[0], "s1");
});

Deno.test("recall: context has its own allowance, spent on the best turn first, within the budget", async () => {
  const lines = [
    "Morning! Did you sleep well after the trip?",
    "Not really, the flight back from Lisbon was delayed by four hours.",
    "Oh no, that sounds exhausting after such a long week.",
    "It was, but the old tram ride up the hill made it all worth it.",
    "I remember you loved the pastries there more than anything.",
    "Yes, I brought a whole box of them home for the kids.",
    "The kids must have been thrilled with that surprise.",
  ];
  const save = async (m: MemoryService) => {
    await m.save({
      memories: lines.map((content, i) => ({
        content,
        session_id: "s1",
        occurred_at: "2023-06-01T09:00Z",
        author: i % 2 === 0 ? "Jon" : "Gina",
      })),
    });
    await m.save({
      memories: [
        { content: "Lunch talk: the tram in Lisbon climbs a steep hill.", author: "Jon" },
      ].map((t) => ({ ...t, session_id: "s2", occurred_at: "2023-07-01T12:00Z" })),
    });
  };
  const query = "What did Gina ride up the hill in Lisbon?";
  const recalled = async (options: MemoryServiceOptions) => {
    const m = service({ contextBefore: 2, contextAfter: 2, ...options });
    try {
      await save(m);
      const out = await m.recall({ query, top_k: 2 });
      return { out, text: renderRecall(out) };
    } finally {
      await m.close();
    }
  };
  const wide = await recalled({ contextMaxTokens: 10_000 });
  assert.equal(wide.out.memories[0].content, lines[3]);
  const all = wide.out.memories.flatMap((m) => m.context ?? []);
  assert.ok(all.length >= 4, "without a tight allowance the neighbours of both hits come");

  // One neighbour's worth: the best turn's nearest next turn, and nothing for the second hit.
  const one = countTokens(`<context of="1" author="Jon">${lines[4]}</context>`);
  const { out, text } = await recalled({ contextMaxTokens: one + 2 });
  assert.deepEqual(out.memories[0].context?.map((c) => c.content), [lines[4]]);
  assert.equal(out.memories[1].context, undefined);
  const contextTokens = out.memories.flatMap((m) => m.context ?? []).reduce(
    (sum, c) => sum + countTokens(renderContextMemory(c, out.memories[0])),
    0,
  );
  assert.ok(contextTokens <= one + 2);
  assert.ok(text.includes(lines[4]) && !text.includes(lines[6]));

  // 0 attaches none, and the recall's budget still bounds the whole.
  const none = await recalled({ contextMaxTokens: 0 });
  assert.ok(none.out.memories.every((m) => m.context === undefined));
  assert.ok(out.tokens > none.out.tokens && out.tokens < wide.out.tokens);
});
