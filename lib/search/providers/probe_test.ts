import assert from "node:assert/strict";
import { parseConfig } from "../../config/config.ts";
import { createFetcher } from "../../net/fetch.ts";
import { withFakeProviders } from "../../../testing/fixtures/fake_providers.ts";
import { probeProviders } from "./probe.ts";

Deno.test("probe: keyless Jina is probed as the reader it is, never with the search it would be refused", async () => {
  await withFakeProviders(async (fakes) => {
    const config = parseConfig(fakes.config({}, { providers: { jina: { enabled: true } } }));
    const rows = await probeProviders(config, createFetcher(config.network));
    const jina = rows.find((r) => r.name === "jina");
    assert.deepEqual(jina?.roles, ["contents"]);
    assert.equal(jina?.ok, true, jina?.detail);
    assert.deepEqual(fakes.requestsOf("jina").map((r) => r.path), ["/https://example.com/"]);
  });
});
