/**
 * Which memory store a call uses: the one local store, or in hosted mode one
 * store per user, each its own SQLite file named by an HMAC of the user id
 * (so file names reveal nothing and cannot be steered by the id's text).
 *
 * @module
 */
import { createHmac } from "node:crypto";
import type { MemorySection } from "../config/sections.ts";
import type { Env } from "../config/env.ts";
import { GleanerError } from "../errors.ts";
import type { Embedder } from "../embed/types.ts";
import { MEMORY_PATH } from "../store/sqlite.ts";
import { idTextProblem } from "../text/id_text.ts";
import { MemoryService } from "./service.ts";
import { defaultMemoryPath, openSqliteMemoryBackend } from "./sqlite/backend.ts";
import type { MemoryBackend } from "./types.ts";

/** The `memory` section of the configuration. */
export type MemorySettings = MemorySection;

/** Most bytes of a user id. */
const MAX_USER_ID_BYTES = 256;

/**
 * Opens the configured engine's backend for one store. `user` is set in
 * hosted mode (already verified); the SQLite engine then opens that user's
 * own file, the PostgreSQL engine that user's tenant in the shared database.
 * `env` is the entry point's environment snapshot (the default file's folder).
 */
function openMemoryBackend(
  settings: MemorySettings,
  user?: string,
  env: Env = {},
): MemoryBackend | Promise<MemoryBackend> {
  switch (settings.backend) {
    case "sqlite":
      return openSqliteMemoryBackend(memoryFilePath(settings, user, env), { home: env.HOME });
    case "postgres":
      // Loaded only here, so SQLite users never load the PostgreSQL client.
      return import("./postgres/stores.ts").then((m) =>
        m.openPostgresMemoryBackend(settings, user)
      );
    default:
      throw new GleanerError(
        "invalid_arguments",
        `memory.backend ${String(settings.backend)} is not supported`,
        { details: { field: "memory.backend" } },
      );
  }
}

/**
 * The SQLite file of the local store, or of `user`'s store in hosted mode:
 * `<hosted_dir>/<hex HMAC-SHA256(hosted_hmac_secret, user), 32 chars>.db`.
 * Without `memory.path`, the default folder comes from `env` (the entry
 * point's environment snapshot: `XDG_DATA_HOME`, else `HOME`).
 *
 * @example
 * ```ts
 * import { parseConfig } from "../config/parse.ts";
 * import { memoryFilePath } from "./stores.ts";
 * const { memory } = parseConfig({ memory: {
 *   path: "/data/memory.db", hosted: true, hosted_hmac_secret: "k".repeat(32),
 * } });
 * const a = memoryFilePath(memory, "alice");
 * console.assert(a.startsWith("/data/users/") && a !== memoryFilePath(memory, "bob"));
 * ```
 */
export function memoryFilePath(settings: MemorySettings, user?: string, env: Env = {}): string {
  if (!settings.hosted) return settings.path ?? defaultMemoryPath(env);
  if (user === undefined) {
    throw new GleanerError("unauthorized", "hosted memory needs a verified user");
  }
  checkUserId(user);
  const secret = settings.hosted_hmac_secret;
  if (!secret) {
    throw new GleanerError(
      "invalid_arguments",
      "memory.hosted_hmac_secret is required in hosted mode",
      {
        details: { field: "memory.hosted_hmac_secret" },
      },
    );
  }
  const base = settings.path && settings.path !== MEMORY_PATH
    ? settings.path.replace(/\/[^/]*$/, "") || "/"
    : defaultMemoryPath(env).replace(/\/[^/]*$/, "");
  const dir = (settings.hosted_dir ?? `${base}/users`).replace(/\/+$/, "");
  const name = createHmac("sha256", secret).update(user, "utf8").digest("hex").slice(0, 32);
  return `${dir}/${name}.db`;
}

/**
 * Throws `unauthorized` unless `user` is a usable id: 1–256 bytes, no control
 * characters and no lone surrogates (the same rule as every id-like field,
 * see {@link idTextProblem}; two lone surrogates would name the same store).
 * The code stays `unauthorized`: the id is the caller's verified identity.
 */
export function checkUserId(user: string): void {
  const bytes = typeof user === "string" ? new TextEncoder().encode(user).length : 0;
  if (bytes === 0 || bytes > MAX_USER_ID_BYTES || idTextProblem(user) !== undefined) {
    throw new GleanerError("unauthorized", "the verified user id is missing or malformed", {
      details: { field: "user" },
    });
  }
}

/** Options of {@link MemoryStores}. */
export interface MemoryStoresOptions {
  /** The embedder shared by every store. */
  embedder?: () => Promise<Embedder | undefined>;
  /** Opens a backend (default {@link openMemoryBackend}); the PostgreSQL engine plugs in here. */
  open?: (settings: MemorySettings, user?: string) => MemoryBackend | Promise<MemoryBackend>;
  /**
   * The entry point's environment snapshot (`readHostEnv()` in
   * `lib/config/env.ts`): `XDG_DATA_HOME`/`HOME` give the default memory file
   * when `memory.path` is not set. Default: none.
   */
  env?: Env;
}

/**
 * The open memory services of one Gleaner: the local one, or one per hosted
 * user (least recently used ones closed beyond `memory.hosted_max_open`).
 */
export class MemoryStores {
  #settings: MemorySettings;
  #options: MemoryStoresOptions;
  #open = new Map<string, Promise<MemoryService>>();
  #failure: string | undefined;

  /** Creates the registry (nothing opens until first use). */
  constructor(settings: MemorySettings, options: MemoryStoresOptions = {}) {
    this.#settings = settings;
    this.#options = options;
    if (settings.hosted) {
      for (const field of ["hosted_proxy_token", "hosted_hmac_secret"] as const) {
        if (!settings[field]) {
          throw new GleanerError(
            "invalid_arguments",
            `memory.${field} is required when memory.hosted is on`,
            { details: { field: `memory.${field}` } },
          );
        }
      }
    }
  }

  /**
   * The service of the local store (`user` undefined), or of `user`'s store
   * in hosted mode. In hosted mode a call without a verified user is
   * `unauthorized`; outside it, a user is refused too (no silent sharing).
   */
  forUser(user?: string): Promise<MemoryService> {
    if (!this.#settings.enabled) {
      return Promise.reject(
        new GleanerError("invalid_arguments", "memory is turned off (memory.enabled)", {
          details: { field: "memory.enabled" },
        }),
      );
    }
    if (this.#settings.hosted) {
      if (user === undefined) {
        return Promise.reject(
          new GleanerError("unauthorized", "hosted memory needs a proxy-verified user"),
        );
      }
      try {
        checkUserId(user);
      } catch (error) {
        return Promise.reject(error);
      }
    } else if (user !== undefined) {
      return Promise.reject(
        new GleanerError("unauthorized", "per-user memory needs memory.hosted on"),
      );
    }
    const key = user === undefined ? "" : `u:${user}`;
    let service = this.#open.get(key);
    if (service) {
      // Most recently used last.
      this.#open.delete(key);
      this.#open.set(key, service);
      return service;
    }
    service = (async () => {
      const open = this.#options.open ??
        ((settings: MemorySettings, user?: string) =>
          openMemoryBackend(settings, user, this.#options.env));
      const backend = await open(this.#settings, user);
      return new MemoryService(backend, {
        embedder: this.#options.embedder,
        profileMaxTokens: this.#settings.profile_max_tokens,
        denseWeight: this.#settings.dense_weight,
        ...(this.#settings.dense_min_similarity !== undefined
          ? { denseMinSimilarity: this.#settings.dense_min_similarity }
          : {}),
        minScore: this.#settings.min_score,
        reviewSimilarity: this.#settings.review_similarity,
        duplicateSimilarity: this.#settings.duplicate_similarity,
        splitTokens: this.#settings.split_tokens,
        rrfK: this.#settings.rrf_k,
        recallBudget: this.#settings.recall_budget,
        accessWeight: this.#settings.access_weight,
        contextMaxTokens: this.#settings.context_max_tokens,
        contextBefore: this.#settings.context_before,
        contextAfter: this.#settings.context_after,
      });
    })();
    service.then(
      () => {
        this.#failure = undefined;
      },
      (error) => {
        this.#open.delete(key);
        // The code only: a backend's message may carry its connection string.
        const code = error instanceof GleanerError ? error.code : "internal";
        this.#failure = `the last store failed to open (${code})`;
      },
    );
    this.#open.set(key, service);
    this.#evict();
    return service;
  }

  #evict(): void {
    const max = this.#settings.hosted ? this.#settings.hosted_max_open : Infinity;
    while (this.#open.size > max) {
      const [key, oldest] = this.#open.entries().next().value!;
      this.#open.delete(key);
      oldest.then((s) => s.close()).catch(() => {});
    }
  }

  /**
   * The memory side for a health report: `off` when `memory.enabled` is off,
   * `degraded` when the last store that was opened failed to, else `ok`
   * (nothing is opened to find out).
   */
  status(): { status: "ok" | "degraded" | "off"; reason?: string; detail: string } {
    const backend = `${this.#settings.backend}, ${
      this.#settings.hosted ? "hosted per-user stores" : "local store"
    }`;
    if (!this.#settings.enabled) {
      return { status: "off", reason: "memory.enabled is off", detail: backend };
    }
    if (this.#failure) return { status: "degraded", reason: this.#failure, detail: backend };
    const open = this.#open.size;
    return {
      status: "ok",
      detail: `${backend}, ${open === 0 ? "not opened yet" : `${open} open`}`,
    };
  }

  /** Closes every open store. */
  async close(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(all.map((p) => p.then((s) => s.close()).catch(() => {})));
  }
}
