import assert from "node:assert/strict";
import { countTokens } from "../text/tokens.ts";
import { relatedLinks } from "./links.ts";
import { renderLink } from "../rank/render.ts";

const links = [
  { url: "https://other.example/tides", text: "Tides elsewhere" },
  { url: "https://site.example/about", text: "About us" },
  { url: "https://site.example/moon-tides", text: "How the Moon drives tides" },
  { url: "https://site.example/page", text: "This page" },
];

Deno.test("relatedLinks: same site first, ranked by the query, self link dropped", async () => {
  const picked = await relatedLinks("https://site.example/page", links, "moon tides", {
    max: 10,
    maxTokens: 500,
  });
  assert.deepEqual(picked.map((l) => l.url), [
    "https://site.example/moon-tides",
    "https://site.example/about",
    "https://other.example/tides",
  ]);
});

Deno.test("relatedLinks: at most `max`, within the token budget", async () => {
  const many = Array.from(
    { length: 40 },
    (_, i) => ({ url: `https://site.example/p${i}`, text: `Page number ${i}` }),
  );
  assert.equal(
    (await relatedLinks("https://site.example/", many, undefined, { max: 10, maxTokens: 1000 }))
      .length,
    10,
  );
  const tight = await relatedLinks("https://site.example/", many, undefined, {
    max: 10,
    maxTokens: 40,
  });
  const used = tight.reduce((sum, l) => sum + countTokens(renderLink(l)) + 1, 0);
  assert.ok(used <= 40 && tight.length > 0);
});

Deno.test("relatedLinks: page furniture and media files are not offered", async () => {
  const noisy = [
    { url: "https://site.example/post?replytocom=1", text: "Reply" },
    { url: "https://site.example/post#respond", text: "Cancel Reply" },
    { url: "https://site.example/logo.png", text: "Logo" },
    { url: "https://site.example/wiki/File:Logo.png", text: "Logo.png" },
    { url: "https://site.example/share", text: "Share" },
    { url: "https://site.example/guide", text: "The full guide" },
  ];
  const picked = await relatedLinks("https://site.example/post", noisy, undefined, {
    max: 10,
    maxTokens: 500,
  });
  assert.deepEqual(picked.map((l) => l.url), ["https://site.example/guide"]);
});

Deno.test("relatedLinks: without a query, same site first in page order, others after, budget kept", async () => {
  const links = [];
  for (let i = 0; i < 100_000; i++) {
    const host = i % 3 === 0 ? "a.example" : "b.example";
    links.push({
      url: `https://${host}/p/${i}`,
      text: i % 10 === 1 ? "share" : `Link number ${i}`,
    });
  }
  const picked = await relatedLinks("https://a.example/", links, undefined, {
    max: 10,
    maxTokens: 1_000,
  });
  assert.deepEqual(
    picked.map((l) => l.url),
    [0, 3, 6, 9, 12, 15, 18, 24, 27, 30].map((i) => `https://a.example/p/${i}`), // 21: "share"
  );
  // Few same-site links: the others follow in page order; a tight budget skips long renderings.
  const few = [links[1], links[3], links[2], {
    url: "https://a.example/x",
    text: "tides and moons ".repeat(30),
  }];
  const mixed = await relatedLinks("https://a.example/", few, undefined, {
    max: 10,
    maxTokens: 60,
  });
  assert.deepEqual(mixed.map((l) => l.url), [
    "https://a.example/p/3",
    "https://b.example/p/2",
  ]);
});
