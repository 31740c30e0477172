import assert from "node:assert/strict";
import { contentWords, conversation, sharesWord } from "./conversation_data.ts";

Deno.test("conversation: several hundred turns over 20 sessions, the same for a seed", () => {
  const a = conversation();
  const b = conversation();
  assert.deepEqual(a, b);
  assert.equal(a.sessions, 20);
  assert(a.turns.length >= 300, `${a.turns.length} turns`);
  assert.equal(new Set(a.turns.map((t) => t.session)).size, 20);
  // Sessions in order.
  a.turns.forEach((t, i) => assert(i === 0 || t.session >= a.turns[i - 1].session));
  assert.notEqual(JSON.stringify(conversation(20).turns), JSON.stringify(a.turns));
});

Deno.test("conversation: every question's answers are user turns it shares no content word with", () => {
  const c = conversation();
  const halves = new Set(c.questions.map((q) => q.half));
  assert.deepEqual([...halves].sort(), ["report", "tune"]);
  for (const q of c.questions) {
    assert(q.answers.length > 0, q.question);
    for (const a of q.answers) {
      assert.equal(c.turns[a].speaker, "user");
      if (q.kind !== "fact_keyword") assert(!sharesWord(q.question, c.turns[a].text), q.question);
    }
  }
  // A preference's current and first versions are different turns, the current one later.
  for (
    const family of new Set(c.questions.filter((q) => q.kind === "current").map((q) => q.family))
  ) {
    const current = c.questions.find((q) => q.family === family && q.kind === "current")!;
    const first = c.questions.find((q) => q.family === family && q.kind === "first")!;
    assert(current.answers[0] > first.answers[0], family);
    assert(c.turns[current.answers[0]].session > c.turns[first.answers[0]].session, family);
  }
});

Deno.test("sharesWord: equal content words or a common five-letter start, stop words aside", () => {
  assert(sharesWord("We named it Biscuit", "what is its name, named?"));
  assert(sharesWord("travelling north", "the travel plans"));
  assert(!sharesWord("What did the user do?", "The user did it."));
  assert.deepEqual(contentWords("The user's 3 dogs ran"), ["dogs", "ran"]);
});
