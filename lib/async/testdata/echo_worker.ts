/**
 * A worker thread for `worker_client_test.ts`: answers `{ id, op }` requests
 * the ways a real thread can — an answer, an answer in parts, an error
 * reply, no answer at all (a page that never finishes), an uncaught error,
 * and leaving silently with `self.close()` mid-request.
 *
 * @module
 */
import { parentPort, threadId, workerData } from "node:worker_threads";

if (parentPort) {
  const port = parentPort;
  port.on("message", (request: { id: number; op: string; text?: string }) => {
    switch (request.op) {
      case "echo":
        port.postMessage({ id: request.id, text: request.text, thread: threadId });
        return;
      case "parts":
        for (const part of (request.text ?? "").split(" ")) {
          port.postMessage({ id: request.id, part });
        }
        port.postMessage({ id: request.id, done: true });
        return;
      case "refuse":
        port.postMessage({ id: request.id, error: "refused" });
        return;
      case "hang":
        // Keeps the thread busy and never answers.
        setInterval(() => {}, 1_000);
        return;
      case "throw":
        setTimeout(() => {
          throw new Error("boom in the thread");
        }, 0);
        return;
      case "close":
        // Leaves without answering and without an error.
        (globalThis as unknown as { close(): void }).close();
        return;
    }
  });
  if ((workerData as { announce?: boolean } | undefined)?.announce) {
    setTimeout(() => port.postMessage({ ready: true }), 50);
  }
}
