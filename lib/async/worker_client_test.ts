import assert from "node:assert/strict";
import { type ErrorCode, GleanerError } from "../errors.ts";
import { rejectsWith } from "../../testing/asserts.ts";
import { createWorkerClient, type WorkerClient } from "./worker_client.ts";

const WORKER = new URL("./testdata/echo_worker.ts", import.meta.url);

function client(announce = false): WorkerClient {
  return createWorkerClient({ url: WORKER, name: "the echo thread", workerData: { announce } });
}

/** Asserts `promise` rejects with a GleanerError of `code` whose message matches `pattern`. */
async function failsWith(promise: Promise<unknown>, code: ErrorCode, pattern: RegExp) {
  assert.match((await rejectsWith(promise, code)).message, pattern);
}

type Reply = { id: number; [key: string]: unknown };

function ask(c: WorkerClient, op: string, text = "", timeoutMs?: number, signal?: AbortSignal) {
  return c.call<Reply>(({ id, post }) => post({ id, op, text }), {
    timeoutMs,
    signal,
    onReply: (reply) => {
      if (typeof reply.error === "string") throw new Error(reply.error);
      return { value: reply };
    },
  });
}

Deno.test("worker client: answers by id, in parts, and rejects an error reply", async () => {
  const c = client();
  try {
    const [a, b] = await Promise.all([ask(c, "echo", "one"), ask(c, "echo", "two")]);
    assert.equal(a.text, "one");
    assert.equal(b.text, "two");
    const parts: string[] = [];
    const joined = await c.call<string>(
      ({ id, post }) => post({ id, op: "parts", text: "tides rise and fall" }),
      {
        onReply: (reply) => {
          if (typeof reply.part === "string") parts.push(reply.part);
          return reply.done ? { value: parts.join(" ") } : undefined;
        },
      },
    );
    assert.equal(joined, "tides rise and fall");
    await assert.rejects(ask(c, "refuse"), /refused/);
    assert.equal(c.pending(), 0);
  } finally {
    await c.close();
  }
});

Deno.test("worker client: a thread that closes itself mid-request rejects its calls, and the next call gets a new thread", async () => {
  const c = client();
  try {
    const first = await ask(c, "echo", "before");
    // No deadline: without the exit handling this call would wait for ever.
    const waiting = ask(c, "hang");
    const closing = ask(c, "close");
    await failsWith(closing, "internal", /exited \(code \d+\) without answering/);
    await failsWith(waiting, "internal", /exited/);
    assert.equal(c.running(), false);
    const after = await ask(c, "echo", "after");
    assert.equal(after.text, "after");
    assert.notEqual(after.thread, first.thread);
  } finally {
    await c.close();
  }
});

Deno.test("worker client: an uncaught error in the thread rejects its calls with internal", async () => {
  const c = client();
  try {
    await failsWith(ask(c, "throw"), "internal", /the echo thread failed: .*boom/);
    assert.equal((await ask(c, "echo", "again")).text, "again");
  } finally {
    await c.close();
  }
});

Deno.test("worker client: a deadline terminates the thread and the next call gets a new one", async () => {
  const c = client(true);
  try {
    const first = await ask(c, "echo", "x", 5_000);
    await failsWith(ask(c, "hang", "", 100), "timeout", /did not answer within 100 ms/);
    assert.equal(c.running(), false);
    const next = await ask(c, "echo", "y", 5_000);
    assert.equal(next.text, "y");
    assert.notEqual(next.thread, first.thread);
  } finally {
    await c.close();
  }
});

Deno.test("worker client: an abort stops the call, and close rejects waiting calls", async () => {
  const c = client();
  const controller = new AbortController();
  const hanging = ask(c, "hang", "", undefined, controller.signal);
  controller.abort();
  await failsWith(hanging, "timeout", /cancelled/);
  const waiting = ask(c, "hang");
  await c.close(new GleanerError("internal", "shutting down"));
  await failsWith(waiting, "internal", /shutting down/);
  await failsWith(ask(c, "echo"), "internal", /closed/);
});
