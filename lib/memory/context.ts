/**
 * What every operation of the memory service works with: the backend, the
 * resolved settings and the embedder with its re-embed job.
 *
 * @module
 */
import type { ResolvedMemoryOptions } from "./options.ts";
import type { Reembedder } from "./reembed.ts";
import type { MemoryBackend } from "./types.ts";

/** The state one `MemoryService` shares with its operations. */
export interface MemoryContext {
  /** The engine underneath. */
  readonly backend: MemoryBackend;
  /** The settings, defaults filled in. */
  readonly options: ResolvedMemoryOptions;
  /** The embedder and the re-embed job. */
  readonly embedding: Reembedder;
}
