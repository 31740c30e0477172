import assert from "node:assert/strict";
import { LineTransport } from "./stdio.ts";

/** Feeds `chunks` to a transport with a 64-byte line limit; returns what it wrote and read. */
async function run(chunks: string[]) {
  const encoder = new TextEncoder();
  const input = ReadableStream.from(chunks.map((c) => encoder.encode(c)));
  const written: string[] = [];
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => void written.push(new TextDecoder().decode(chunk)),
  });
  const transport = new LineTransport(input, output, 64);
  const read: unknown[] = [];
  transport.onmessage = (message) => {
    read.push(message);
    // Answer each request so that the end of input can close.
    if ("id" in message && "method" in message) {
      void transport.send({ jsonrpc: "2.0", id: message.id, result: {} });
    }
  };
  const closed = new Promise<void>((resolve) => transport.onclose = resolve);
  await transport.start();
  await closed;
  const replies = written.join("").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
  return { read, replies };
}

const pad = "x".repeat(200);

Deno.test("stdio: an oversized request is refused under its id, id first or last", async () => {
  const first = `{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"p":"${pad}"}}`;
  const last = `{"method":"tools/call","params":{"p":"${pad}"},"jsonrpc":"2.0","id":42}`;
  const ok = `{"jsonrpc":"2.0","id":3,"method":"ping"}`;
  // Split across chunks, newline in the middle of one.
  const all = `${first}\n${last}\n${ok}\n`;
  const { read, replies } = await run([all.slice(0, 50), all.slice(50, 230), all.slice(230)]);
  assert.deepEqual(replies.map((r) => [r.id, r.error?.code ?? "ok"]), [
    ["a-1", -32600],
    [42, -32600],
    [3, "ok"],
  ]);
  assert.match(replies[0].error.message, /longer than 64 bytes/);
  assert.equal(read.length, 1);
});

Deno.test("stdio: an oversized line that is not a request gets -32700 with id null", async () => {
  const response = `{"jsonrpc":"2.0","id":5,"result":{"p":"${pad}"}}`;
  const nested = `{"method":"notifications/x","params":{"p":"${pad}","id":9}}`;
  const { replies } = await run([`${"z".repeat(300)}\n${response}\n${nested}\n`]);
  assert.deepEqual(replies.map((r) => [r.id, r.error.code]), [
    [null, -32700],
    [null, -32700],
    [null, -32600],
  ]);
});
