import assert from "node:assert/strict";
import { rejectsWith } from "../../testing/asserts.ts";
import { type Config, parseConfig } from "../config/config.ts";
import type { ErrorCode } from "../errors.ts";
import type { GleanerError } from "../errors.ts";
import { createFetcher } from "../net/fetch.ts";
import { createOpenAIEmbedder, embeddingsEndpoint } from "./openai.ts";
import type { EmbeddingUsage } from "./types.ts";
import { isZeroVector } from "./vector.ts";

/** A letter histogram: a deterministic, unnormalised "embedding" of a text. */
function letterVector(text: string): number[] {
  const v = new Array(26).fill(0);
  for (const ch of text.toLowerCase()) {
    const code = ch.charCodeAt(0) - 97;
    if (code >= 0 && code < 26) v[code] += 1;
  }
  return v;
}

interface Recorded {
  auth: string | null;
  body: { model: string; input: string[]; encoding_format?: string; dimensions?: number };
}

interface FakeOpenAI {
  origin: string;
  requests: Recorded[];
  /** Status to answer with next (consumed), with optional headers. */
  fail: { status: number; headers?: Record<string, string>; body?: string }[];
  close(): Promise<void>;
}

/** An OpenAI-compatible server on 127.0.0.1 answering in the real response format. */
function startFakeOpenAI(): FakeOpenAI {
  const requests: Recorded[] = [];
  const fail: FakeOpenAI["fail"] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      if (request.method !== "POST" || url.pathname !== "/v1/embeddings") {
        await request.body?.cancel();
        return Response.json({ error: { message: "Not found" } }, { status: 404 });
      }
      const body = await request.json();
      requests.push({ auth: request.headers.get("authorization"), body });
      const next = fail.shift();
      if (next) {
        return new Response(
          next.body ??
            JSON.stringify({ error: { message: "secret upstream detail", type: "error" } }),
          { status: next.status, headers: { "content-type": "application/json", ...next.headers } },
        );
      }
      const data = (body.input as string[]).map((text, index) => ({
        object: "embedding",
        index,
        embedding: letterVector(text),
      }));
      // Real servers may answer out of order; the index field is authoritative.
      data.reverse();
      return Response.json({
        object: "list",
        data,
        model: body.model,
        usage: { prompt_tokens: 3, total_tokens: 3 },
      });
    },
  );
  const { port } = server.addr as Deno.NetAddr;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    fail,
    close: () => server.shutdown(),
  };
}

function network(origin: string): Config["network"] {
  return parseConfig({ network: { allow_private: [origin] } }).network;
}

async function withServer(fn: (server: FakeOpenAI) => Promise<void>): Promise<void> {
  const server = startFakeOpenAI();
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

Deno.test("embeddingsEndpoint appends /embeddings to a base URL once", () => {
  assert.equal(embeddingsEndpoint("https://api.example/v1"), "https://api.example/v1/embeddings");
  assert.equal(embeddingsEndpoint("https://api.example/v1/"), "https://api.example/v1/embeddings");
  assert.equal(
    embeddingsEndpoint("https://api.example/v1/embeddings"),
    "https://api.example/v1/embeddings",
  );
  assert.throws(
    () => embeddingsEndpoint("ftp://x/"),
    (e: GleanerError) => e.code === "invalid_arguments",
  );
});

Deno.test("openai embedder: batches, auth header, index order, unit vectors", async () => {
  await withServer(async (server) => {
    const embedder = createOpenAIEmbedder({
      fetcher: createFetcher(network(server.origin)),
      url: `${server.origin}/v1`,
      model: "text-embedding-test",
      apiKey: "sk-test-key",
      batchSize: 2,
      queryPrefix: "query: ",
    });
    assert.equal(embedder.dimensions, 0);
    const texts = ["aaa", "bb", "", "abc", "zzzz"];
    const vectors = await embedder.embedDocuments(texts);
    assert.equal(embedder.dimensions, 26);
    // 4 non-empty texts in batches of 2 → 2 requests; the empty text is never sent.
    assert.equal(server.requests.length, 2);
    assert.deepEqual(server.requests.map((r) => r.body.input), [["aaa", "bb"], ["abc", "zzzz"]]);
    assert.equal(server.requests[0].auth, "Bearer sk-test-key");
    assert.equal(server.requests[0].body.model, "text-embedding-test");
    assert.equal(server.requests[0].body.encoding_format, "float");
    assert.equal(vectors.length, texts.length);
    assert.equal(vectors[0][0], 1); // "aaa" → all on 'a'
    assert.equal(vectors[1][1], 1); // "bb" → all on 'b'
    assert.ok(isZeroVector(vectors[2]) && vectors[2].length === 26);
    assert.ok(Math.abs(vectors[3][0] - 1 / Math.sqrt(3)) < 1e-6);
    assert.equal(vectors[4][25], 1);

    await embedder.embedQueries(["cab"]);
    assert.deepEqual(server.requests[2].body.input, ["query: cab"]);
    assert.match(embedder.id, /^openai:127\.0\.0\.1:\d+\/text-embedding-test$/);
  });
});

Deno.test("openai embedder: the prompt tokens each response reports add up in the caller's usage", async () => {
  await withServer(async (server) => {
    const embedder = createOpenAIEmbedder({
      fetcher: createFetcher(network(server.origin)),
      url: `${server.origin}/v1`,
      model: "m",
      batchSize: 2,
    });
    const usage: EmbeddingUsage = {};
    await embedder.embedDocuments(["aaa", "bb", "abc"], undefined, usage);
    assert.equal(server.requests.length, 2);
    assert.equal(usage.inputTokens, 6, "two responses of usage.prompt_tokens 3");
    const query: EmbeddingUsage = {};
    await embedder.embedQueries(["cab"], undefined, query);
    assert.equal(query.inputTokens, 3);

    // A compatible server that leaves `usage` out reports nothing.
    const embedding = new Array(26).fill(0).map((_, i) => (i === 0 ? 1 : 0));
    server.fail.push({
      status: 200,
      body: JSON.stringify({
        object: "list",
        data: [{ object: "embedding", index: 0, embedding }],
      }),
    });
    const none: EmbeddingUsage = {};
    await embedder.embedDocuments(["a"], undefined, none);
    assert.equal(none.inputTokens, undefined);
  });
});

Deno.test("openai embedder: upstream failures map to stable codes without echoing bodies", async () => {
  await withServer(async (server) => {
    const embedder = createOpenAIEmbedder({
      fetcher: createFetcher(network(server.origin)),
      url: `${server.origin}/v1/`,
      model: "m",
      apiKey: "sk-very-secret",
    });
    const cases: [number, ErrorCode][] = [
      [429, "rate_limited"],
      [401, "unauthorized"],
      [403, "unauthorized"],
      [402, "insufficient_balance"],
      [500, "provider_unavailable"],
      [503, "provider_unavailable"],
      [400, "invalid_arguments"],
    ];
    for (const [status, code] of cases) {
      server.fail.push({ status, headers: status === 429 ? { "retry-after": "7" } : {} });
      const error = await rejectsWith(embedder.embedDocuments(["hello"]), code);
      assert.ok(!error.message.includes("secret upstream detail"), error.message);
      assert.ok(!error.message.includes("sk-very-secret"), error.message);
      assert.ok(error.message.includes(`${server.origin}/v1/embeddings`), error.message);
      if (status === 429) assert.equal(error.details?.retry_after_s, 7);
    }
    // A 200 that is not the OpenAI format is the provider's fault.
    server.fail.push({ status: 200, body: "<html>oops</html>" });
    await rejectsWith(embedder.embedDocuments(["hello"]), "provider_unavailable");
    server.fail.push({ status: 200, body: JSON.stringify({ data: [] }) });
    await rejectsWith(embedder.embedDocuments(["hello"]), "provider_unavailable");
    // It recovers once the upstream does.
    const [v] = await embedder.embedDocuments(["hello"]);
    assert.equal(v.length, 26);
  });
});

Deno.test("openai embedder: wrong path is not_found; expected dimensions are enforced", async () => {
  await withServer(async (server) => {
    const fetcher = createFetcher(network(server.origin));
    const wrongPath = createOpenAIEmbedder({ fetcher, url: `${server.origin}/api`, model: "m" });
    await rejectsWith(wrongPath.embedDocuments(["x"]), "not_found");
    const wrongDims = createOpenAIEmbedder({
      fetcher,
      url: `${server.origin}/v1`,
      model: "m",
      dimensions: 8,
    });
    assert.equal(wrongDims.dimensions, 8);
    await rejectsWith(wrongDims.embedDocuments(["x"]), "provider_unavailable");
    assert.equal(server.requests.at(-1)?.body.dimensions, 8);
  });
});

Deno.test("openai embedder: network policy and unreachable servers", async () => {
  await withServer(async (server) => {
    // Loopback is refused unless the operator allowed it.
    const guarded = createOpenAIEmbedder({
      fetcher: createFetcher(parseConfig({}).network),
      url: `${server.origin}/v1`,
      model: "m",
    });
    await rejectsWith(guarded.embedDocuments(["x"]), "blocked_url");
    assert.equal(server.requests.length, 0);
  });
  // A closed port: nothing listens any more.
  const gone = startFakeOpenAI();
  const origin = gone.origin;
  await gone.close();
  const embedder = createOpenAIEmbedder({
    fetcher: createFetcher(network(origin)),
    url: `${origin}/v1`,
    model: "m",
  });
  await rejectsWith(embedder.embedDocuments(["x"]), "provider_unavailable");
});

Deno.test("openai embedder: an aborted signal stops the call", async () => {
  await withServer(async (server) => {
    const embedder = createOpenAIEmbedder({
      fetcher: createFetcher(network(server.origin)),
      url: `${server.origin}/v1`,
      model: "m",
    });
    const controller = new AbortController();
    controller.abort(new DOMException("stop", "AbortError"));
    await rejectsWith(embedder.embedDocuments(["x"], controller.signal), "timeout");
    assert.equal(server.requests.length, 0);
  });
});
