// Type-checked by scripts/npm_smoke.sh with tsc against the installed npm
// package: the .d.ts files resolve and carry the real types (an `any`
// anywhere on these paths would leave a @ts-expect-error unused: an error).
import { createGleaner, type Gleaner, scrapeUrls, TOOLS, VERSION } from "@gleaner/gleaner";
import { createMcpServer } from "@gleaner/gleaner/mcp";
import { createApp } from "@gleaner/gleaner/http";
import {
  createIndex,
  type FetchReply,
  registerDeepResearchTools,
  type SearchResult,
} from "@gleaner/gleaner/deep-research";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

export function toolkit(): SearchResult[] {
  const index = createIndex([{ id: "a", title: "A", url: "https://example.org/a" }]);
  const server = new McpServer({ name: "typed", version: "1" });
  const reply: FetchReply = { document: { id: "a", title: "A", text: "", url: "https://x/" } };
  registerDeepResearchTools(server, {
    corpus: "c",
    search: (query) => index.search(query),
    fetch: () => reply,
    // @ts-expect-error the locales are en and pt-BR
    locale: "fr",
  });
  // @ts-expect-error a search result has no score
  const wrong: SearchResult = { id: "a", title: "A", url: "u", score: 1 };
  void wrong;
  return index.search("a");
}

export async function typed(): Promise<number> {
  const gleaner: Gleaner = await createGleaner({ store: { path: ":memory:" } });
  const out = await scrapeUrls(gleaner, { items: [{ url: "http://127.0.0.1/", query: "q" }] });
  const ok: boolean = out.items[0].ok;
  // @ts-expect-error tokens is a number
  const wrong: string = out.tokens;
  // @ts-expect-error unknown input key
  await scrapeUrls(gleaner, { items: [{ url: "http://127.0.0.1/", nope: 1 }] });
  // @ts-expect-error store.path is a string
  await createGleaner({ store: { path: 42 } });
  const server = createMcpServer(gleaner);
  const app = createApp(gleaner);
  void [ok, wrong, server, app, TOOLS.length, VERSION.length];
  return out.tokens;
}
