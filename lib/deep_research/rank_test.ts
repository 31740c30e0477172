import assert from "node:assert/strict";
import { createIndex, type IndexEntry, normalizeText, rankEntries, tokenize } from "./rank.ts";

const url = (id: string) => `https://stats.example.org/${id}`;

Deno.test("rank: normalisation removes accents and case, collapses space", () => {
  const cases: [string, string][] = [
    ["População", "populacao"],
    ["  SÃO   Paulo\n", "sao paulo"],
    ["Ação, Educação & Saúde", "acao, educacao & saude"],
    ["ﬁnance", "finance"], // a ligature folds (NFKD)
    ["Müller–Straße", "muller–straße"],
  ];
  for (const [input, want] of cases) assert.equal(normalizeText(input), want, input);
});

Deno.test("rank: tokens are [a-z0-9]{2,}, distinct, in order, minus the locale's stop-words", () => {
  const cases: [string, "en" | "pt-BR", string[]][] = [
    ["The price of the bread, and the price of milk", "en", ["price", "bread", "milk"]],
    ["Taxa de desocupação das pessoas de 14 anos", "pt-BR", [
      "taxa",
      "desocupacao",
      "pessoas",
      "14",
      "anos",
    ]],
    ["a b c x1 2", "en", ["x1"]],
    ["São Paulo e Rio", "pt-BR", ["sao", "paulo", "rio"]],
    ["de da do", "pt-BR", []],
  ];
  for (const [input, locale, want] of cases) {
    assert.deepEqual(tokenize(input, locale), want, input);
  }
});

const CATALOGUE: IndexEntry[] = [
  { id: "t1", title: "Consumer prices by region", url: url("t1"), text: "monthly index of prices" },
  { id: "t2", title: "Producer prices", url: url("t2"), keywords: ["inflation"] },
  { id: "6579", title: "Resident population estimates", url: url("6579") },
  { id: "t4", title: "Population census 2022", url: url("t4"), keywords: ["census"] },
  { id: "t5", title: "Harvest of grains", url: url("t5"), text: "population of cattle too" },
];

Deno.test("rank: field weights (id 10, title 3, keywords 2, text 1) order the results", () => {
  const index = createIndex(CATALOGUE);
  assert.equal(index.size, 5);
  // An exact id beats a title word.
  assert.deepEqual(index.search("6579").map((r) => r.id), ["6579"]);
  // Title (3) beats text (1): both population entries before the one whose text names it.
  assert.deepEqual(index.search("population").map((r) => r.id), ["6579", "t4", "t5"]);
  // Keywords (2) beat text (1).
  assert.deepEqual(index.search("inflation").map((r) => r.id), ["t2"]);
  assert.deepEqual(index.search("index prices").map((r) => r.id), ["t1", "t2"]);
});

Deno.test("rank: a prefix of 3+ characters counts half; 2 characters does not", () => {
  const index = createIndex(CATALOGUE);
  assert.deepEqual(index.search("popul").map((r) => r.id), ["6579", "t4", "t5"]);
  assert.deepEqual(index.search("po").map((r) => r.id), []);
  // Exact title beats prefix title: "prices" exact in t1 and t2; "price" is a prefix of both.
  const exact = rankEntries([
    { id: "a", title: "Pricey things", url: url("a") },
    { id: "b", title: "Price lists", url: url("b") },
  ], "price");
  assert.deepEqual(exact.map((r) => r.id), ["b", "a"]);
});

Deno.test("rank: coverage of distinct tokens beats repetition; the phrase in the title adds a bonus", () => {
  const entries: IndexEntry[] = [
    { id: "rep", title: "Census census census", url: url("rep"), keywords: ["census"] },
    { id: "both", title: "Census of cattle", url: url("both"), text: "herd" },
  ];
  assert.deepEqual(rankEntries(entries, "census herd").map((r) => r.id), ["both", "rep"]);
  const phrase: IndexEntry[] = [
    { id: "apart", title: "Grain estimates and harvest", url: url("apart") },
    { id: "together", title: "Estimates of the grain harvest", url: url("together") },
  ];
  // The same tokens match in both titles; only "together" holds "grain harvest" as a phrase.
  assert.deepEqual(rankEntries(phrase, "grain harvest").map((r) => r.id), ["together", "apart"]);
  // Without the phrase the tie keeps the collection's order.
  assert.deepEqual(rankEntries(phrase, "harvest grain").map((r) => r.id), ["apart", "together"]);
});

Deno.test("rank: ties keep the collection's order; empty and unmatched queries give []", () => {
  const entries: IndexEntry[] = ["c", "a", "b"].map((id) => ({ id, title: "Alike", url: url(id) }));
  assert.deepEqual(rankEntries(entries, "alike").map((r) => r.id), ["c", "a", "b"]);
  assert.deepEqual(rankEntries(entries, ""), []);
  assert.deepEqual(rankEntries(entries, "   "), []);
  assert.deepEqual(rankEntries(entries, "the of and"), [], "stop-words only");
  assert.deepEqual(rankEntries(entries, "nothing"), []);
});

Deno.test("rank: accents and case are ignored on both sides, in pt-BR", () => {
  const entries: IndexEntry[] = [
    { id: "a", title: "POPULAÇÃO residente", url: url("a") },
    { id: "b", title: "Produção de ovos", url: url("b") },
  ];
  const index = createIndex(entries, { locale: "pt-BR" });
  assert.deepEqual(index.search("populacao").map((r) => r.id), ["a"]);
  assert.deepEqual(index.search("Produção").map((r) => r.id), ["b"]);
  assert.deepEqual(index.search("de"), [], "a stop-word alone matches nothing");
});

Deno.test("rank: limit, contract keys only, entries without id or url left out, deterministic", () => {
  const many: IndexEntry[] = Array.from({ length: 30 }, (_, i) => ({
    id: `d${i}`,
    title: `Document ${i}`,
    url: url(`d${i}`),
    keywords: ["document"],
    text: "secret ranking text",
  }));
  const index = createIndex([
    ...many,
    { id: "", title: "Document without id", url: url("x") },
    { id: "nourl", title: "Document without url", url: "" },
  ]);
  assert.equal(index.size, 30);
  assert.equal(index.search("document").length, 10);
  assert.equal(index.search("document", { limit: 3 }).length, 3);
  assert.deepEqual(index.search("document", { limit: 0 }), []);
  const first = index.search("document", { limit: 50 });
  assert.equal(first.length, 30);
  for (const r of first) assert.deepEqual(Object.keys(r).sort(), ["id", "title", "url"]);
  assert.deepEqual(index.search("document", { limit: 50 }), first, "same answer twice");
});

Deno.test("rank (bm25): exact id first, accents folded in pt-BR, stop-words only and unmatched give []", () => {
  const entries: IndexEntry[] = [
    { id: "a", title: "Produção agrícola", url: url("a"), text: "lavouras e rebanhos do país" },
    { id: "6579", title: "População residente", url: url("6579"), text: "estimativas anuais" },
    { id: "c", title: "Tabela 6579 citada", url: url("c"), text: "população população 6579" },
    { id: "d", title: "Rebanhos", url: url("d"), text: "efetivo dos rebanhos, bovinos e suínos" },
  ];
  const index = createIndex(entries, { locale: "pt-BR", scoring: "bm25" });
  assert.equal(index.size, 4);
  assert.equal(index.search("6579")[0].id, "6579", "the exact id beats a text that repeats it");
  assert.deepEqual(index.search("populacao").map((r) => r.id).sort(), ["6579", "c"]);
  assert.equal(index.search("rebanhos bovinos")[0].id, "d");
  assert.deepEqual(index.search("de da do"), []);
  assert.deepEqual(index.search("zebra"), []);
  assert.deepEqual(index.search(""), []);
  assert.equal(index.search("rebanhos", { limit: 1 }).length, 1);
  for (const r of index.search("rebanhos")) {
    assert.deepEqual(Object.keys(r).sort(), ["id", "title", "url"]);
  }
});
