import assert from "node:assert/strict";
import { parseConfig } from "../config/parse.ts";
import { defaultTools } from "./default_tools.ts";
import { generatedListing, listedInputSchema, listedOutputSchema } from "./listing.ts";
import { listingKey } from "./listing_key.ts";
import { PREBUILT_LISTING } from "./listing_prebuilt.ts";
import { routerSearchTool } from "./router_tool.ts";
import { researchToolFor } from "./research.ts";
import { searchToolFor } from "./search.ts";
import { prebuiltListing } from "../../scripts/build_listing.ts";

/** As a client receives it. */
const wire = (value: unknown) => JSON.parse(JSON.stringify(value));

Deno.test("the prebuilt listing is what the tools' zod schemas generate now (else: deno task build:listing)", () => {
  const now = prebuiltListing();
  for (const part of ["inputs", "outputs"] as const) {
    assert.deepEqual(
      Object.keys(PREBUILT_LISTING[part]).sort(),
      Object.keys(now[part]).sort(),
      `the prebuilt ${part} keys are stale: run deno task build:listing`,
    );
    for (const [key, schema] of Object.entries(now[part])) {
      assert.deepEqual(
        PREBUILT_LISTING[part][key],
        schema,
        `the prebuilt ${part} of ${key} are stale: run deno task build:listing`,
      );
    }
  }
  // It holds the default configuration's variants, not only the static definitions.
  assert.ok(Object.keys(now.inputs).some((key) => key.startsWith("search {")));
});

Deno.test("every tool the default configuration lists is served from the table, as generated", () => {
  for (const tool of defaultTools(parseConfig({}))) {
    const key = listingKey(tool);
    assert.ok(key !== undefined && key in PREBUILT_LISTING.inputs, `${tool.name}: ${key}`);
    assert.equal(listedInputSchema(tool), PREBUILT_LISTING.inputs[key], tool.name);
    assert.equal(listedOutputSchema(tool), PREBUILT_LISTING.outputs[tool.name], tool.name);
    assert.deepEqual(wire(listedInputSchema(tool)), wire(generatedListing(tool).input), tool.name);
    assert.deepEqual(
      wire(listedOutputSchema(tool)),
      wire(generatedListing(tool).output),
      tool.name,
    );
  }
});

Deno.test("a tool built for another configuration is listed from its own schemas", () => {
  const config = parseConfig({
    search: { domain_profiles: { papers: { prefer: ["arxiv.org"] } }, searxng_url: "http://s" },
    llm: { url: "http://127.0.0.1:9/v1", model: "m" },
  });
  for (const tool of [searchToolFor(config), researchToolFor(config)]) {
    const key = listingKey(tool);
    assert.ok(key !== undefined && !(key in PREBUILT_LISTING.inputs), `${tool.name}: ${key}`);
    const listed = JSON.stringify(listedInputSchema(tool));
    assert.ok(listed.includes('"papers"') && listed.includes('"expand"'), listed.slice(0, 300));
  }
  // SearXNG's controls follow the configuration too (a key of its own).
  assert.ok(JSON.stringify(listedInputSchema(searchToolFor(config))).includes('"engines"'));
  assert.ok(
    !JSON.stringify(listedInputSchema(searchToolFor(parseConfig({})))).includes('"engines"'),
  );
});

Deno.test("a tool of the same name that is not Gleaner's own (the router's search, a copy) is never served another's schemas", () => {
  const router = routerSearchTool(["duckduckgo", "mojeek"]);
  assert.equal(router.name, "search");
  assert.equal(listingKey(router), undefined);
  assert.ok(JSON.stringify(listedInputSchema(router)).includes('"provider"'));
  const copy = { ...searchToolFor(parseConfig({})) };
  assert.equal(listingKey(copy), undefined);
});
