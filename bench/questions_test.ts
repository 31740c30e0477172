/**
 * Checks bench/questions.json, the question set used to measure answer containment of Gleaner's
 * evidence: shape, counts, spread over pages, and that every answer sentence really occurs in the
 * main content (expected.html) of its test page.
 *
 * The pages live outside the repo; set GLEANER_TEST_PAGES to their folder (default
 * `shared/testdata/readability-test-pages` beside the repository). Without them the page check is
 * ignored (one line on stderr), or fails when `GLEANER_REQUIRE_CORPORA=1`.
 */
import { corpora, READABILITY_CORPUS } from "../testing/fixtures/corpora.ts";
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";

interface Question {
  id: string;
  page: string;
  question: string;
  answer: string;
  reworded: boolean;
  half: "tune" | "report";
}

const MIN_ENTRIES = 110;
const MIN_REWORDED_SHARE = 0.55;
const MIN_PAGES = 60;
const MAX_PER_PAGE = 3;
const MAX_ANSWER_WORDS = 60;

const PAGES_DIR = Deno.env.get("GLEANER_TEST_PAGES") ?? READABILITY_CORPUS;

const questions: Question[] = JSON.parse(
  await Deno.readTextFile(new URL("./questions.json", import.meta.url)),
);

/** Collapses whitespace and folds typographic quotes and dashes to ASCII. */
function normalise(text: string): string {
  return text
    .replace(/[\u2018\u2019\u201A\u201B\u2032]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F\u2033]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/\s+/g, " ") // \s covers U+00A0 and other Unicode spaces
    .trim();
}

Deno.test("questions.json: every entry has the expected shape", () => {
  assert.ok(Array.isArray(questions), "questions.json must hold an array");
  for (const q of questions) {
    assert.deepEqual(
      Object.keys(q).sort(),
      ["answer", "half", "id", "page", "question", "reworded"],
      `unexpected keys in ${JSON.stringify(q).slice(0, 80)}`,
    );
    assert.match(q.id, /^q\d{3}$/, `bad id ${q.id}`);
    assert.equal(typeof q.page, "string", `${q.id}: page`);
    assert.ok(q.page.length > 0 && !q.page.includes("/"), `${q.id}: page must be a folder name`);
    assert.ok(q.question.trim().endsWith("?"), `${q.id}: question must end with "?"`);
    assert.equal(typeof q.reworded, "boolean", `${q.id}: reworded must be a boolean`);
    assert.ok(q.half === "tune" || q.half === "report", `${q.id}: half must be tune or report`);
    assert.equal(q.answer, normalise(q.answer), `${q.id}: answer must be whitespace-normalised`);
    assert.ok(!/[<>]/.test(q.answer), `${q.id}: answer must not hold markup`);
    const words = q.answer.split(" ").length;
    assert.ok(words >= 5 && words <= MAX_ANSWER_WORDS, `${q.id}: answer has ${words} words`);
  }
});

Deno.test("questions.json: ids are unique and counts meet the targets", () => {
  const ids = new Set(questions.map((q) => q.id));
  assert.equal(ids.size, questions.length, "ids must be unique");
  assert.ok(questions.length >= MIN_ENTRIES, `${questions.length} entries < ${MIN_ENTRIES}`);

  const reworded = questions.filter((q) => q.reworded).length;
  assert.ok(
    reworded / questions.length >= MIN_REWORDED_SHARE,
    `only ${reworded}/${questions.length} reworded`,
  );

  const perPage = new Map<string, number>();
  for (const q of questions) perPage.set(q.page, (perPage.get(q.page) ?? 0) + 1);
  assert.ok(perPage.size >= MIN_PAGES, `${perPage.size} pages < ${MIN_PAGES}`);
  const crowded = [...perPage].filter(([, n]) => n > MAX_PER_PAGE).map(([p]) => p);
  assert.deepEqual(crowded, [], `pages with more than ${MAX_PER_PAGE} questions`);

  const questionsSeen = new Set(questions.map((q) => q.question));
  assert.equal(questionsSeen.size, questions.length, "questions must be distinct");
});

Deno.test({
  name: `questions.json: every answer occurs verbatim in its page's expected.html${corpora.suffix}`,
  ignore: corpora.ignore && Deno.env.get("GLEANER_TEST_PAGES") === undefined,
  fn: async () => {
    if (Deno.env.get("GLEANER_TEST_PAGES") === undefined) corpora.assertPresent();
    const textByPage = new Map<string, string>();
    const missing: string[] = [];
    for (const q of questions) {
      let text = textByPage.get(q.page);
      if (text === undefined) {
        const dir = `${PAGES_DIR}/${q.page}`;
        const html = await Deno.readTextFile(`${dir}/expected.html`);
        const { document } = parseHTML(
          `<!doctype html><html><body>${html}</body></html>`,
        ) as unknown as { document: { body: { textContent: string | null } } };
        text = normalise(document.body.textContent ?? "");
        textByPage.set(q.page, text);

        // Only English pages: when the page declares a language it must be English.
        const meta = JSON.parse(await Deno.readTextFile(`${dir}/expected-metadata.json`));
        if (typeof meta.lang === "string" && meta.lang !== "") {
          assert.match(meta.lang, /^en\b/i, `${q.page} is not an English page`);
        }
      }
      if (!text.includes(normalise(q.answer))) missing.push(`${q.id} (${q.page})`);
    }
    assert.deepEqual(missing, [], "answers not found in expected.html");
  },
});

Deno.test("questions.json: the tune/report halves are fixed by page and both hold reworded questions", () => {
  const pages = [...new Set(questions.map((q) => q.page))].sort();
  for (const q of questions) {
    const expected = pages.indexOf(q.page) % 2 === 0 ? "tune" : "report";
    assert.equal(q.half, expected, `${q.id}: page ${q.page} belongs to the ${expected} half`);
  }
  for (const half of ["tune", "report"]) {
    const reworded = questions.filter((q) => q.half === half && q.reworded).length;
    assert.ok(reworded >= 50, `${half} half holds ${reworded} reworded questions`);
  }
});
