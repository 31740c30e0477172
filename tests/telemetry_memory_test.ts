/**
 * OpenTelemetry spans for memory work: a real MCP client saves and recalls
 * memories over Streamable HTTP against the real server, the OTLP exporter
 * sends to a receiver on loopback that the test starts, and the embed,
 * search and store spans arrive as children of their tool's span, with the
 * GenAI and database attribute names of the semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#embeddings,
 * https://opentelemetry.io/docs/specs/semconv/database/database-spans/). No
 * memory text, query or session id leaves the process.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createGleaner } from "../mod.ts";
import { serveHttp } from "../http/serve.ts";
import { initTelemetry, shutdownTelemetry } from "../lib/telemetry/mod.ts";
import { serveLoopback } from "../testing/fixtures/serve.ts";
import { ignorePostgres, postgresSuffix, startPostgres } from "../testing/fixtures/postgres.ts";

type OtlpValue = { stringValue?: string; intValue?: string; boolValue?: boolean };

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: OtlpValue }[];
}

/** Every span of the `/v1/traces` requests received. */
function spansOf(bodies: string[]): ExportedSpan[] {
  return bodies.flatMap((body) =>
    (JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[] })
      .resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))
  );
}

/** A span's attributes as plain values. */
function attrs(span: ExportedSpan): Record<string, string | number | boolean | undefined> {
  return Object.fromEntries(
    span.attributes.map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : value.boolValue),
    ]),
  );
}

/** What the spans of one engine name. */
interface Engine {
  /** The `memory` settings (the root folder is a fresh temp dir). */
  memory: (root: string) => Record<string, unknown>;
  /** `db.system.name`. */
  system: string;
  /** `db.collection.name`. */
  collection: string;
  /**
   * An OpenAI-compatible embedding service on loopback instead of the shipped
   * static model: its origin, and the input tokens it reports per text.
   */
  openai?: { origin: string; tokensPerText: number };
}

/** What the fake embedding service reports for each text (`usage.prompt_tokens`). */
const TOKENS_PER_TEXT = 7;

/**
 * An OpenAI-compatible `POST /v1/embeddings` on 127.0.0.1 answering in the
 * documented format (https://platform.openai.com/docs/api-reference/embeddings/create:
 * `data[].embedding` with `index`, and `usage: { prompt_tokens, total_tokens }`):
 * a letter histogram of each text, and {@link TOKENS_PER_TEXT} tokens per text.
 */
function startFakeEmbeddings() {
  return serveLoopback(async (request) => {
    const body = await request.json() as { input: string[]; model: string };
    const data = body.input.map((text, index) => {
      const v = new Array(26).fill(0.01);
      for (const ch of text.toLowerCase()) {
        const code = ch.charCodeAt(0) - 97;
        if (code >= 0 && code < 26) v[code] += 1;
      }
      return { object: "embedding", index, embedding: v };
    });
    const tokens = TOKENS_PER_TEXT * body.input.length;
    return Response.json({
      object: "list",
      data,
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  });
}

/**
 * Saves two memories and recalls one through MCP with telemetry on, then
 * checks the exported spans and that nothing planted in them leaked.
 */
async function memorySpans(engine: Engine): Promise<void> {
  const traces: string[] = [];
  const everything: string[] = [];
  const receiver = serveLoopback(async (request) => {
    const body = await request.text();
    everything.push(body);
    if (new URL(request.url).pathname === "/v1/traces") traces.push(body);
    return Response.json({});
  });
  const root = await Deno.makeTempDir();
  // Planted in the memory, the query and the session id: none may be exported.
  const planted = `zq${crypto.randomUUID().replaceAll("-", "")}`;
  const session = `session-${planted}`;
  let recalled: string | undefined;
  try {
    await initTelemetry({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin,
      OTEL_SERVICE_NAME: "gleaner-test",
    });
    // The shipped static embedder (or the loopback service), so save and recall embed for real.
    const gleaner = await createGleaner({
      server: { port: 0 },
      store: { path: ":memory:" },
      memory: engine.memory(root),
      ...(engine.openai
        ? {
          embed: {
            provider: "openai",
            api_url: `${engine.openai.origin}/v1`,
            api_model: "text-embedding-3-small",
          },
          network: { allow_private: [engine.openai.origin] },
        }
        : {}),
    });
    const server = serveHttp(gleaner);
    const client = new Client({ name: "gleaner-test", version: "1.0.0" });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)) as Transport,
      );
      const saved = await client.callTool({
        name: "save_memories",
        arguments: {
          memories: [
            { content: `The ferry timetable codeword is ${planted}.`, session_id: session },
            { content: "The harbour office opens at nine.", session_id: session },
          ],
        },
      });
      assert.notEqual(saved.isError, true, JSON.stringify(saved.content));
      const recall = await client.callTool({
        name: "recall_memories",
        arguments: { query: `ferry timetable codeword ${planted}`, session_id: session },
      });
      assert.notEqual(recall.isError, true, JSON.stringify(recall.content));
      recalled = JSON.stringify(recall.structuredContent);
    } finally {
      await client.close();
      await server.shutdown();
      await gleaner.close();
    }
  } finally {
    await shutdownTelemetry(); // sends what is buffered
    await receiver.close();
    await Deno.remove(root, { recursive: true });
  }
  assert.ok(recalled?.includes(planted), "the recall itself found the memory");

  const spans = spansOf(traces);
  const names = spans.map((s) => s.name);
  const tool = (name: string) => {
    const found = spans.filter((s) => s.name === `gleaner.tool.${name}`);
    assert.equal(found.length, 1, `one ${name} tool span (got ${names.join(", ")})`);
    return found[0];
  };
  const children = (parent: ExportedSpan, name: string) =>
    spans.filter((s) =>
      s.name === name && s.parentSpanId === parent.spanId && s.traceId === parent.traceId
    );

  // save_memories: the documents embedded, the duplicate check, the insert.
  const save = tool("save_memories");
  const [saveEmbed] = children(save, "gleaner.memory.embed");
  assert.ok(saveEmbed, `an embed span under save_memories (got ${names.join(", ")})`);
  assert.equal(saveEmbed.kind, 3, "embeddings are CLIENT spans");
  const embedAttrs = attrs(saveEmbed);
  assert.equal(embedAttrs["gen_ai.operation.name"], "embeddings");
  assert.match(
    String(embedAttrs["gen_ai.request.model"]),
    engine.openai ? /^openai:127\.0\.0\.1:\d+\/text-embedding-3-small$/ : /^static:/,
  );
  // Tokens only where the service counts them; a local model counts none.
  assert.equal(
    embedAttrs["gen_ai.usage.input_tokens"],
    engine.openai ? 2 * engine.openai.tokensPerText : undefined,
  );
  assert.ok(Number(embedAttrs["gen_ai.embeddings.dimension.count"]) > 0);
  assert.equal(embedAttrs["gleaner.memory.texts"], 2);
  assert.equal(embedAttrs["gleaner.memory.purpose"], "document");
  const [store] = children(save, "gleaner.memory.store");
  assert.ok(store, `a store span under save_memories (got ${names.join(", ")})`);
  assert.equal(store.kind, 3, "database calls are CLIENT spans");
  assert.deepEqual(
    {
      system: attrs(store)["db.system.name"],
      operation: attrs(store)["db.operation.name"],
      collection: attrs(store)["db.collection.name"],
      rows: attrs(store)["gleaner.memory.rows"],
      batch: attrs(store)["db.operation.batch.size"],
    },
    {
      system: engine.system,
      operation: "INSERT",
      collection: engine.collection,
      rows: 2,
      batch: 2,
    },
  );

  // recall_memories: BM25 candidates, the query embedded, vector candidates.
  const recall = tool("recall_memories");
  const searches = children(recall, "gleaner.memory.search").map(attrs);
  assert.deepEqual(
    searches.map((a) => a["gleaner.memory.retriever"]).sort(),
    ["bm25", "dense"],
    `search spans under recall_memories (got ${names.join(", ")})`,
  );
  for (const a of searches) {
    assert.equal(a["db.system.name"], engine.system);
    assert.equal(a["db.collection.name"], engine.collection);
    assert.equal(a["db.operation.name"], "SELECT");
    assert.ok(Number(a["db.response.returned_rows"]) >= 1, "rows counted");
  }
  const [queryEmbed] = children(recall, "gleaner.memory.embed");
  assert.equal(attrs(queryEmbed)["gleaner.memory.purpose"], "query");
  assert.equal(attrs(queryEmbed)["gleaner.memory.texts"], 1);
  assert.equal(attrs(queryEmbed)["gen_ai.usage.input_tokens"], engine.openai?.tokensPerText);

  // Nothing of the memories, the query or the session leaves the process.
  const exported = everything.join("\n");
  assert.ok(!exported.includes(planted), "no memory text, query or session id is exported");
  assert.ok(!exported.includes("harbour office"), "no memory text is exported");
  assert.ok(!exported.includes("ferry"), "no query word is exported");
}

Deno.test("telemetry: memory embed, search and store spans nest under the tool span; no memory text exported (SQLite)", () =>
  memorySpans({
    memory: (root) => ({ path: `${root}/memory.db` }),
    system: "sqlite",
    collection: "memories",
  }));

Deno.test("telemetry: the embed span carries the input tokens an OpenAI-compatible service reports", async () => {
  const service = startFakeEmbeddings();
  try {
    await memorySpans({
      memory: (root) => ({ path: `${root}/memory.db` }),
      system: "sqlite",
      collection: "memories",
      openai: { origin: service.origin, tokensPerText: TOKENS_PER_TEXT },
    });
  } finally {
    await service.close();
  }
});

Deno.test({
  name: `telemetry: memory spans on PostgreSQL name db.system.name postgresql${postgresSuffix}`,
  ignore: ignorePostgres,
  fn: async () => {
    await using server = await startPostgres();
    await memorySpans({
      memory: () => ({ backend: "postgres", postgres_url: server.url }),
      system: "postgresql",
      collection: "gleaner_memory",
    });
  },
});
