import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { GleanerError } from "../errors.ts";
import { createVocabulary, globWhere, startsAWord } from "./vocabulary.ts";

const ibge = createVocabulary({
  locale: "pt-BR",
  sourceName: "o IBGE",
  entries: [
    { asked: "renda", source: ["rendimento"] },
    { asked: "pressão alta", source: ["hipertens"] },
    { asked: "emprego", source: ["ocupa"] },
  ],
});

const ilo = createVocabulary({
  locale: "en",
  sourceName: "ILOSTAT",
  entries: [
    { asked: "labor", source: ["labour"] },
    { asked: "enrollment", source: ["enrolment"] },
    { asked: "men", source: ["male"] },
  ],
});

Deno.test("vocabulary: patterns match at a word start only, never mid-word", () => {
  const cases: [string, string, boolean][] = [
    ["novos produtos", "ovo", false],
    ["producao de ovos", "ovo", true],
    ["female population", "male", false],
    ["male population", "male", true],
    ["population, male", "male", true],
    ["female/male ratio", "male", true],
    ["atividade economica", "idade", false],
    ["grupos de idade", "idade", true],
    ["verduras, raizes, tuberculos", "uber", false],
    ["pessoas ocupadas", "ocupa", true], // a stem may end inside a word
    ["taxa de desocupacao", "ocupa", false],
    ["", "x", false],
    ["abc", "", false],
  ];
  for (const [text, pattern, want] of cases) {
    assert.equal(startsAWord(text, pattern), want, `${pattern} in ${text}`);
  }
});

Deno.test("vocabulary: accents and case are normalised on both sides", () => {
  const expanded = ibge.expandQuery("POPULAÇÃO");
  assert.deepEqual(expanded.map((e) => e.term), ["populacao"]);
  assert.ok(ibge.matchesQuery(ibge.normalize("População residente"), expanded));
  const accented = createVocabulary({
    locale: "pt-BR",
    sourceName: "a CID-10",
    entries: [{ asked: "Câncer", source: ["Neoplasia Maligna"] }],
  });
  const cancer = accented.expandQuery("cancer");
  assert.deepEqual(cancer[0].patterns, ["cancer", "neoplasia maligna"]);
  assert.ok(accented.matchesQuery(accented.normalize("Neoplasia maligna do estômago"), cancer));
});

Deno.test("vocabulary: table phrases are one term before splitting; stop-words leave the AND", () => {
  assert.deepEqual(ibge.queryTerms("renda de quem tem pressão alta"), ["pressao alta", "renda"]);
  const expanded = ibge.expandQuery("renda e pressão alta");
  assert.deepEqual(expanded, [
    { term: "pressao alta", patterns: ["pressao alta", "hipertens"], translated: true },
    { term: "renda", patterns: ["renda", "rendimento"], translated: true },
  ]);
  assert.ok(ibge.matchesQuery(ibge.normalize("Rendimento de hipertensos"), expanded));
  assert.ok(!ibge.matchesQuery(ibge.normalize("Rendimento domiciliar"), expanded), "ANDed");
  assert.ok(!ibge.matchesQuery(ibge.normalize("Hipertensão arterial"), expanded), "ANDed");
  // "hours of work" does not die on "of".
  const hours = ilo.expandQuery("hours of work");
  assert.deepEqual(hours.map((e) => e.term), ["hours", "work"]);
  assert.ok(
    ilo.matchesQuery(ilo.normalize("Mean weekly hours actually worked per employed person"), [
      hours[0],
    ]),
  );
});

Deno.test("vocabulary: a query of stop-words only still counts", () => {
  assert.deepEqual(ilo.queryTerms("of the"), ["of", "the"]);
  assert.deepEqual(ibge.queryTerms("de"), ["de"]);
  assert.deepEqual(ibge.queryTerms(""), []);
  assert.deepEqual(ibge.queryTerms("  ,;  "), []);
});

Deno.test("vocabulary: singulars per language invent no fragments", () => {
  const cases: [typeof ilo, string, string[]][] = [
    [ilo, "wages", ["wages", "wage"]],
    [ilo, "classes", ["classes", "class"]],
    [ilo, "policies", ["policies", "policy"]],
    [ilo, "status", ["status"]],
    [ilo, "analysis", ["analysis"]],
    [ilo, "news", ["news"]],
    [ilo, "bus", ["bus"]],
    [ilo, "labors", ["labors", "labor", "labour"]],
    [ibge, "populacoes", ["populacoes", "populacao"]],
    [ibge, "nacionais", ["nacionais", "nacional"]],
    [ibge, "homens", ["homens", "homem"]],
    [ibge, "mulheres", ["mulheres", "mulher"]],
    [ibge, "novos", ["novos", "novo"]],
    [ibge, "rendas", ["rendas", "renda", "rendimento"]],
    [ibge, "onibus", ["onibus"]],
    [ibge, "gas", ["gas"]],
  ];
  for (const [vocab, term, want] of cases) assert.deepEqual(vocab.expandTerm(term), want, term);
});

Deno.test("vocabulary: the table translates, and the notes say so in the locale", () => {
  const labor = ilo.expandQuery("labor force");
  assert.equal(labor[0].translated, true);
  assert.equal(labor[1].translated, false);
  assert.ok(ilo.matchesQuery(ilo.normalize("Labour force participation rate"), labor));
  assert.deepEqual(ilo.vocabularyNotes(labor), [
    '"labor" was also searched as "labour", the wording ILOSTAT uses.',
  ]);
  const renda = ibge.expandQuery("renda");
  assert.deepEqual(ibge.vocabularyNotes(renda), [
    '"renda" também foi buscado como "rendimento", a palavra que o IBGE usa.',
  ]);
  assert.deepEqual(ibge.vocabularyNotes(ibge.expandQuery("novos")), [], "a singular is no note");
  // men → male at a word start: asking about men never brings women.
  const men = ilo.expandQuery("men");
  assert.ok(ilo.matchesQuery(ilo.normalize("Population, male"), men));
  assert.ok(!ilo.matchesQuery(ilo.normalize("Population, female"), men));
  assert.ok(!ilo.matchesQuery(ilo.normalize("Population, women"), men));
});

Deno.test("vocabulary: an empty table expands nothing; askedWordsFor gives index keywords", () => {
  const none = createVocabulary({ locale: "en", sourceName: "the source", entries: [] });
  assert.deepEqual(none.expandQuery("labor"), [
    { term: "labor", patterns: ["labor"], translated: false },
  ]);
  assert.deepEqual(ibge.askedWordsFor("Rendimento médio das pessoas ocupadas"), [
    "renda",
    "emprego",
  ]);
  assert.deepEqual(ibge.askedWordsFor("Taxa de desocupação"), [], "ocupa mid-word is no match");
  assert.deepEqual(ilo.askedWordsFor("Female labour force"), ["labor"]);
});

Deno.test("vocabulary: globWhere builds the documented GLOB recipe and SQLite agrees with matchesQuery", () => {
  const db = new DatabaseSync(":memory:");
  try {
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, name_lc TEXT)");
    const names = [
      "Rendimento médio das pessoas ocupadas",
      "Rendimento de hipertensos",
      "Taxa de desocupação",
      "Produção de ovos",
      "Novos empreendimentos",
      "Pressão alta e renda",
      "Population, female",
      "Population, male",
    ];
    const insert = db.prepare("INSERT INTO t (name, name_lc) VALUES (?, ?)");
    for (const name of names) insert.run(name, ibge.normalize(name));
    const queries: [typeof ibge, string][] = [
      [ibge, "renda de emprego"],
      [ibge, "pressão alta renda"],
      [ibge, "ovo"],
      [ibge, "ocupa"],
      [ilo, "male"],
      [ilo, "men population"],
      [ibge, "nada disso"],
    ];
    for (const [vocab, query] of queries) {
      const expanded = vocab.expandQuery(query);
      const where = globWhere("name_lc", expanded);
      const rows = db.prepare(`SELECT name FROM t WHERE ${where.sql} ORDER BY id`)
        .all(...where.params) as { name: string }[];
      const expected = names.filter((n) => vocab.matchesQuery(vocab.normalize(n), expanded));
      assert.deepEqual(rows.map((r) => r.name), expected, query);
    }
    const ovo = globWhere("name_lc", ibge.expandQuery("ovo"));
    assert.equal(ovo.sql, "((name_lc GLOB ? OR name_lc GLOB ?))");
    assert.deepEqual(ovo.params, ["ovo*", "*[^a-z0-9]ovo*"]);
  } finally {
    db.close();
  }
});

Deno.test("vocabulary: globWhere strips *?[] from patterns, binds them, and refuses a bad column", () => {
  const where = globWhere("t.name_lc", [
    { term: "a*b", patterns: ["a*b", "[x]?"], translated: false },
    { term: "*", patterns: ["*"], translated: false },
  ]);
  assert.equal(
    where.sql,
    "((t.name_lc GLOB ? OR t.name_lc GLOB ?) OR (t.name_lc GLOB ? OR t.name_lc GLOB ?)) AND 0",
  );
  assert.deepEqual(where.params, ["ab*", "*[^a-z0-9]ab*", "x*", "*[^a-z0-9]x*"]);
  assert.deepEqual(globWhere("name_lc", []), { sql: "1", params: [] });
  for (const column of ["name_lc; DROP TABLE t", "", "1col", "a.b.c"]) {
    assert.throws(
      () => globWhere(column, []),
      (e: unknown) =>
        e instanceof GleanerError && e.code === "invalid_arguments" && /column/.test(e.message),
      column,
    );
  }
});

Deno.test("vocabulary: a malformed table entry or locale is refused naming it", () => {
  const bad: [unknown, RegExp][] = [
    [{ locale: "en", sourceName: "s", entries: [{ asked: "a", source: "b" }] }, /entries\[0\]/],
    [
      { locale: "en", sourceName: "s", entries: [{ asked: "a", source: ["b"] }, { source: [] }] },
      /entries\[1\]/,
    ],
    [{ locale: "es", sourceName: "s", entries: [] }, /locale/],
  ];
  for (const [options, field] of bad) {
    assert.throws(
      () => createVocabulary(options as Parameters<typeof createVocabulary>[0]),
      (e: unknown) =>
        e instanceof GleanerError && e.code === "invalid_arguments" && field.test(e.message),
    );
  }
});
