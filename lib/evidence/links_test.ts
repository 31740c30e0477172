import assert from "node:assert/strict";
import { countTokens } from "../rank/tokens.ts";
import { relatedLinks, renderLink } from "./links.ts";

const links = [
  { url: "https://other.example/tides", text: "Tides elsewhere" },
  { url: "https://site.example/about", text: "About us" },
  { url: "https://site.example/moon-tides", text: "How the Moon drives tides" },
  { url: "https://site.example/page", text: "This page" },
];

Deno.test("relatedLinks: same site first, ranked by the query, self link dropped", () => {
  const picked = relatedLinks("https://site.example/page", links, "moon tides", {
    max: 10,
    maxTokens: 500,
  });
  assert.deepEqual(picked.map((l) => l.url), [
    "https://site.example/moon-tides",
    "https://site.example/about",
    "https://other.example/tides",
  ]);
});

Deno.test("relatedLinks: at most `max`, within the token budget", () => {
  const many = Array.from(
    { length: 40 },
    (_, i) => ({ url: `https://site.example/p${i}`, text: `Page number ${i}` }),
  );
  assert.equal(
    relatedLinks("https://site.example/", many, undefined, { max: 10, maxTokens: 1000 }).length,
    10,
  );
  const tight = relatedLinks("https://site.example/", many, undefined, { max: 10, maxTokens: 40 });
  const used = tight.reduce((sum, l) => sum + countTokens(renderLink(l)) + 1, 0);
  assert.ok(used <= 40 && tight.length > 0);
});

Deno.test("relatedLinks: page furniture and media files are not offered", () => {
  const noisy = [
    { url: "https://site.example/post?replytocom=1", text: "Reply" },
    { url: "https://site.example/post#respond", text: "Cancel Reply" },
    { url: "https://site.example/logo.png", text: "Logo" },
    { url: "https://site.example/wiki/File:Logo.png", text: "Logo.png" },
    { url: "https://site.example/share", text: "Share" },
    { url: "https://site.example/guide", text: "The full guide" },
  ];
  const picked = relatedLinks("https://site.example/post", noisy, undefined, {
    max: 10,
    maxTokens: 500,
  });
  assert.deepEqual(picked.map((l) => l.url), ["https://site.example/guide"]);
});
