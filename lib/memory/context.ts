/**
 * What every operation of the memory service works with: the backend, the
 * resolved settings, the embedder with its re-embed job, and the group
 * commit of saves.
 *
 * @module
 */
import type { Batched } from "../async/batched.ts";
import type { GroupCommit, SimilarityProbe } from "./group_commit.ts";
import type { ResolvedMemoryOptions } from "./options.ts";
import type { Reembedder } from "./reembed.ts";
import type { MemoryBackend, MemoryCandidate } from "./types.ts";

/** The state one `MemoryService` shares with its operations. */
export interface MemoryContext {
  /** The engine underneath. */
  readonly backend: MemoryBackend;
  /** The settings, defaults filled in. */
  readonly options: ResolvedMemoryOptions;
  /** The embedder and the re-embed job. */
  readonly embedding: Reembedder;
  /** The saves' inserts, committed in groups. */
  readonly writes: GroupCommit;
  /** The saves' similarity checks (cosine ≥ `reviewSimilarity`), run in groups. */
  readonly similar: Batched<SimilarityProbe, MemoryCandidate | undefined>;
}
