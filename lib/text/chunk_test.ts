import assert from "node:assert/strict";
import { chunkMarkdown, wordCount } from "./chunk.ts";
import { extractHtml } from "../extract/mod.ts";
import { corpusPages, fixturePages, type TestPage } from "../../testing/fixtures/test_pages.ts";
import { corpora } from "../../testing/fixtures/corpora.ts";

/** Fenced blocks and table runs of a Markdown text, found by a plain line scan. */
function structures(md: string) {
  const code: [number, number][] = [];
  const tables: [number, number][] = [];
  const lines = md.split("\n");
  let pos = 0, fenceStart = -1, fenceMark = "", tableStart = -1, prevEnd = 0;
  for (const line of lines) {
    const end = pos + line.length;
    if (fenceStart === -1) {
      const m = line.match(/^\s{0,3}(`{3,}|~{3,})/);
      if (m) {
        fenceStart = pos;
        fenceMark = m[1];
      }
    } else if (line.trim().startsWith(fenceMark) && /^[`~]+$/.test(line.trim())) {
      code.push([fenceStart, end]);
      fenceStart = -1;
    }
    const isRow = fenceStart === -1 && line.trimStart().startsWith("|");
    if (isRow && tableStart === -1) tableStart = pos;
    if (!isRow && tableStart !== -1) {
      tables.push([tableStart, prevEnd]);
      tableStart = -1;
    }
    prevEnd = end;
    pos = end + 1;
  }
  if (tableStart !== -1) tables.push([tableStart, prevEnd]);
  return { code, tables };
}

/** On every page, units are exact slices, in order, covering the text; counts what was seen. */
function assertUnitsCover(
  pages: TestPage[],
): { units: number; codeBlocks: number; tableRows: number } {
  let units = 0, codeBlocks = 0, tableRows = 0;
  for (const page of pages) {
    const md = extractHtml(page.html, "http://fakehost/test/page.html").markdown;
    const chunks = chunkMarkdown(md);
    units += chunks.length;
    let last = 0;
    const covered = new Uint8Array(md.length);
    for (const u of chunks) {
      assert.equal(md.slice(u.start, u.end), u.text, `${page.name}: offsets of a unit`);
      assert.ok(u.start >= last, `${page.name}: units overlap or go backwards`);
      assert.ok(u.text.trim().length > 0);
      covered.fill(1, u.start, u.end);
      last = u.end;
    }
    // Everything but heading lines that head content is inside some unit.
    let pos = 0;
    for (const line of md.split("\n")) {
      if (!/^#{1,6}\s/.test(line)) {
        for (let i = pos; i < pos + line.length; i++) {
          if (!/\s/.test(md[i])) assert.equal(covered[i], 1, `${page.name}: text left out at ${i}`);
        }
      }
      pos += line.length + 1;
    }
    const { code, tables } = structures(md);
    for (const [s, e] of code) {
      codeBlocks++;
      if (e - s > 2400) continue;
      const inside = chunks.filter((u) => u.end > s && u.start < e);
      assert.equal(inside.length, 1, `${page.name}: code block split`);
      assert.ok(inside[0].start <= s && inside[0].end >= e, `${page.name}: code block cut`);
    }
    for (const [s, e] of tables) {
      for (const u of chunks.filter((u) => u.end > s && u.start < e)) {
        tableRows++;
        // A huge row (more than 1.5 × maxWords) is split like prose.
        const rowStart = md.lastIndexOf("\n", u.start - 1) + 1;
        const rowEnd = md.indexOf("\n", u.start) === -1 ? md.length : md.indexOf("\n", u.start);
        if (wordCount(md.slice(rowStart, rowEnd)) > 120) continue;
        assert.ok(u.start === 0 || md[u.start - 1] === "\n", `${page.name}: table split mid-row`);
        assert.ok(u.end === md.length || md[u.end] === "\n", `${page.name}: table split mid-row`);
      }
    }
  }
  return { units, codeBlocks, tableRows };
}

Deno.test("chunkMarkdown: on every test page, units are exact slices, in order, covering the text", async () => {
  const pages = await fixturePages();
  assert.ok(pages.length >= 12, `expected the 12 fixture pages, found ${pages.length}`);
  const seen = assertUnitsCover(pages);
  assert.ok(seen.units > 300, `only ${seen.units} units`);
});

Deno.test({
  name:
    `chunkMarkdown: units cover the Readability corpus, code and tables kept whole${corpora.suffix}`,
  ignore: corpora.ignore,
}, async () => {
  corpora.assertPresent();
  const pages = await corpusPages();
  assert.ok(pages.length >= 130, `expected the 130 test pages, found ${pages.length}`);
  const { units, codeBlocks, tableRows } = assertUnitsCover(pages);
  assert.ok(
    units > 3000 && codeBlocks > 10 && tableRows > 10,
    "the corpus exercises code and tables",
  );
});

Deno.test("chunkMarkdown: headings go to the path; a heading alone is a unit", () => {
  const md =
    "# Guide\n\nIntro text.\n\n## Install\n\nRun the installer.\n\n## Empty\n\n### Deep\n\nDeep text.";
  const units = chunkMarkdown(md);
  assert.deepEqual(units.map((u) => [u.text, u.headings.join(" > ")]), [
    ["Intro text.", "Guide"],
    ["Run the installer.", "Guide > Install"],
    ["## Empty", "Guide"],
    ["Deep text.", "Guide > Empty > Deep"],
  ]);
});

Deno.test("chunkMarkdown: long paragraphs split at sentences into 40-80 word units", () => {
  const sentence = (i: number) =>
    `Sentence number ${i} talks about tides and the Moon for a while now.`;
  const para = Array.from({ length: 12 }, (_, i) => sentence(i)).join(" ");
  const units = chunkMarkdown(para);
  assert.equal(units.length, 3);
  const long = (i: number) =>
    sentence(i).replace("now.", "now, and then it goes on and on about the sea.");
  const longUnits = chunkMarkdown(Array.from({ length: 6 }, (_, i) => long(i)).join(" "));
  assert.equal(longUnits.length, 3, "two long sentences make a unit");
  for (const u of [...units, ...longUnits]) {
    assert.ok(wordCount(u.text) >= 40 && wordCount(u.text) <= 80);
    assert.ok(/^Sentence number \d+/.test(u.text) && /(now|sea)\.$/.test(u.text));
  }
});

Deno.test("chunkMarkdown: code kept whole, huge code split between lines, tables between rows", () => {
  const code = "```js\n" + "const a = 1; // a line of code with several words in it\n".repeat(20) +
    "```";
  const md = `Intro.\n\n${code}\n\nAfter.`;
  const units = chunkMarkdown(md);
  assert.ok(units.some((u) => u.text === code));
  const huge = "```\n" + "x = 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12\n".repeat(200) +
    "```";
  const hugeUnits = chunkMarkdown(huge);
  assert.ok(hugeUnits.length > 1);
  for (const u of hugeUnits) {
    assert.ok(u.start === 0 || huge[u.start - 1] === "\n");
    assert.ok(u.end === huge.length || huge[u.end] === "\n");
  }
  const table = "| a | b |\n| --- | --- |\n" +
    Array.from({ length: 60 }, (_, i) => `| row ${i} has words | and more words ${i} |`).join("\n");
  const tableUnits = chunkMarkdown(table);
  assert.ok(tableUnits.length > 3);
  assert.ok(tableUnits[0].text.startsWith("| a | b |\n| --- | --- |"));
  for (const u of tableUnits) assert.ok(u.text.startsWith("| ") && u.text.endsWith(" |"));
});

Deno.test("chunkMarkdown: short list items stay whole and group together", () => {
  const md = "- first item with a few words\n- second item\n  continued here\n- third";
  const units = chunkMarkdown(md);
  assert.equal(units.length, 1);
  assert.equal(units[0].text, md);
});

Deno.test("chunkMarkdown: a huge table row (a layout table holding an article) splits like prose", () => {
  const sentence = "The board met again and agreed on the plan for the harbour. ";
  const md = `| ${sentence.repeat(60)}|\n| short row |`;
  const units = chunkMarkdown(md, { minWords: 20, maxWords: 40 });
  assert.ok(units.length > 10, `${units.length} units`);
  for (const u of units) {
    assert.equal(md.slice(u.start, u.end), u.text);
    assert.ok(u.text.split(/\s+/).length <= 70, u.text);
  }
});

Deno.test("chunkMarkdown: a CJK run without spaces is cut into units of at most maxWords characters", () => {
  let cjk = "";
  for (let i = 0; cjk.length < 20_000; i++) cjk += String.fromCharCode(0x4e00 + (i * 7919) % 3000);
  const astral = "𠀀".repeat(3_000); // CJK Extension B: surrogate pairs
  for (const run of [cjk, astral]) {
    const md = `# Title\n\nA short sentence first. ${run} and words after it.`;
    const units = chunkMarkdown(md, { minWords: 40, maxWords: 80 });
    assert.ok(units.length > 50, `${units.length} units`);
    for (const unit of units) {
      assert.equal(md.slice(unit.start, unit.end), unit.text);
      assert.ok(unit.text.length <= 81 * 2, `${unit.text.length} characters`);
      assert.ok(
        !/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(unit.text),
        "no half of a surrogate pair",
      );
    }
    assert.equal(
      units.map((u) => u.text).join("").replace(/\s/g, ""),
      md.slice(9).replace(/\s/g, ""),
    );
  }
});
