import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { createGleaner, currentDatetimeTool, type Gleaner } from "../mod.ts";
import { createMcpServer } from "./server.ts";

async function connected(source: Parameters<typeof createMcpServer>[0]) {
  const server = createMcpServer(source, [currentDatetimeTool]);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "tool-server-test", version: "1" });
  await client.connect(clientSide);
  return { server, client };
}

Deno.test("tool server: initialize, ping, tools/list and tools/call with the SDK client", async () => {
  const gleaner = await createGleaner({ store: { path: ":memory:" } });
  const { server, client } = await connected(gleaner);
  try {
    assert.equal(client.getServerVersion()?.name, "gleaner");
    assert.ok(client.getServerCapabilities()?.tools, "tools declared");
    assert.equal(client.getServerCapabilities()?.logging, undefined);
    assert.equal(server.getClientVersion()?.name, "tool-server-test");
    assert.deepEqual(await client.ping(), {});
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t: { name: string }) => t.name), ["current_datetime"]);
    const out = await client.callTool({ name: "current_datetime", arguments: {} });
    assert.ok(!out.isError);
    assert.match((out.structuredContent as { iso: string }).iso, /^\d{4}-\d\d-\d\dT/);
    await assert.rejects(client.callTool({ name: "nope", arguments: {} }), /unknown tool/);
  } finally {
    await client.close();
    await gleaner.close();
  }
});

Deno.test("tool server: an unknown protocol version is answered with the latest one", async () => {
  const gleaner = await createGleaner({ store: { path: ":memory:" } });
  const server = createMcpServer(gleaner, [currentDatetimeTool]);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const answers: { id?: unknown; result?: { protocolVersion?: string } }[] = [];
  clientSide.onmessage = (message: (typeof answers)[number]) => void answers.push(message);
  await clientSide.start();
  await clientSide.send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "1999-01-01",
      capabilities: {},
      clientInfo: { name: "old", version: "0" },
    },
  });
  for (let i = 0; i < 100 && answers.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(answers[0]?.result?.protocolVersion, LATEST_PROTOCOL_VERSION);
  await server.close();
  await gleaner.close();
});

Deno.test("tool server: a lazily created Gleaner is made once, after tools/list, before any call", async () => {
  let made = 0;
  let gleaner: Gleaner | undefined;
  const source = async () => {
    made++;
    gleaner = await createGleaner({ store: { path: ":memory:" } });
    return gleaner;
  };
  let memo: Promise<Gleaner> | undefined;
  const { client } = await connected(() => memo ??= source());
  try {
    assert.equal(made, 0, "initialize creates no Gleaner");
    await client.listTools();
    for (let i = 0; i < 400 && made === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(made, 1, "warmed up in the background after tools/list");
    const out = await client.callTool({ name: "current_datetime", arguments: {} });
    assert.ok(!out.isError);
    assert.equal(made, 1);
  } finally {
    await client.close();
    await (await memo)?.close();
  }
});
