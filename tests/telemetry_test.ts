/**
 * OpenTelemetry, opt-in: the CLI run with `OTEL_*` exports spans and metrics
 * to an OTLP/HTTP receiver on loopback that the test starts, and nothing of
 * the query, the URL or the page leaves the process.
 */
import assert from "node:assert/strict";
import { initTelemetry, telemetry } from "../lib/telemetry/mod.ts";
import { serveLoopback } from "../testing/fixtures/serve.ts";
import { DENO_RUN_FLAGS, startTestWorld } from "../testing/fixtures/world.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;

interface Received {
  path: string;
  body: string;
}

/** Names of the spans (`/v1/traces`) or metrics (`/v1/metrics`) received. */
function exportedNames(received: Received[], signal: "traces" | "metrics"): string[] {
  const [outer, inner, leaf] = signal === "traces"
    ? ["resourceSpans", "scopeSpans", "spans"]
    : ["resourceMetrics", "scopeMetrics", "metrics"];
  type Batch = Record<string, Record<string, Record<string, { name: string }[]>[]>[]>;
  return received.filter((r) => r.path === `/v1/${signal}`).flatMap((r) =>
    (JSON.parse(r.body) as Batch)[outer].flatMap((resource) =>
      resource[inner].flatMap((scope) => scope[leaf].map((item) => item.name))
    )
  );
}

Deno.test("telemetry is off without an OTLP endpoint", async () => {
  const off = await initTelemetry({ HOME: "/root", OTEL_SERVICE_NAME: "x" });
  assert.equal(off.enabled, false);
  assert.equal(telemetry().enabled, false);
});

Deno.test("telemetry: spans per tool and stage, metrics, and no query, URL or page text exported", async () => {
  const received: Received[] = [];
  const headers: string[] = [];
  const receiver = serveLoopback(async (request) => {
    headers.push(request.headers.get("x-collector-key") ?? "");
    received.push({ path: new URL(request.url).pathname, body: await request.text() });
    return Response.json({});
  });
  const world = await startTestWorld();
  const query = "whether a request body was already consumed";
  const pagePath = "/pages/002";
  try {
    const command = new Deno.Command(Deno.execPath(), {
      args: ["run", ...DENO_RUN_FLAGS, CLI, "scrape", world.web.url(pagePath), "--query", query],
      env: {
        ...world.env,
        NO_COLOR: "1",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin,
        OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=k%201",
        OTEL_SERVICE_NAME: "gleaner-test",
      },
      stdout: "piped",
      stderr: "piped",
    });
    const out = await command.output();
    const stdout = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.match(stdout, /bodyUsed/, "the scrape itself worked");

    // Everything is sent before the process exits.
    assert.ok(headers.length >= 2 && headers.every((h) => h === "k 1"), "OTLP headers sent");
    const spans = exportedNames(received, "traces");
    for (const name of ["gleaner.tool.scrape_urls", "gleaner.read.http", "gleaner.rank"]) {
      assert.ok(spans.includes(name), `span ${name} exported (got ${spans.join(", ")})`);
    }
    const metrics = exportedNames(received, "metrics");
    for (
      const name of [
        "gleaner.tool.duration",
        "gleaner.read.duration",
        "gleaner.rank.duration",
        "gleaner.tokens.saved",
      ]
    ) {
      assert.ok(metrics.includes(name), `metric ${name} exported (got ${metrics.join(", ")})`);
    }
    const traces = received.filter((r) => r.path === "/v1/traces").map((r) => JSON.parse(r.body));
    const ids = new Set(
      traces.flatMap((t) =>
        t.resourceSpans.flatMap((rs: { scopeSpans: { spans: { traceId: string }[] }[] }) =>
          rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => span.traceId))
        )
      ),
    );
    assert.equal(ids.size, 1, "one tool call, one trace: stages nest under the tool span");
    const everything = received.map((r) => r.body).join("\n");
    assert.ok(!everything.includes(query), "query text is not exported");
    assert.ok(!everything.includes(pagePath), "the URL is not exported");
    assert.ok(!everything.includes("bodyUsed"), "page content is not exported");
  } finally {
    await world.close();
    await receiver.close();
  }
});
