/**
 * Opening PostgreSQL memory stores from the configuration: one pool per
 * `memory.postgres_url` per process, shared by every user's store and ended
 * when the last store using it closes. In hosted mode each user is a tenant
 * named by the same HMAC of the user id that names SQLite files (so the
 * database never holds raw user ids); otherwise the tenant is `""`.
 *
 * Loaded only when `memory.backend` is `postgres`.
 *
 * @module
 */
import { createHmac } from "node:crypto";
import type { MemorySection } from "../../config/sections.ts";
import { GleanerError } from "../../errors.ts";
import { type PostgresMemoryBackend, PostgresMemoryDatabase } from "./backend.ts";

/** The `memory` section of the configuration. */
type MemorySettings = MemorySection;

interface Shared {
  db: Promise<PostgresMemoryDatabase>;
  refs: number;
}

const shared = new Map<string, Shared>();

/**
 * The tenant of `user` (hosted mode): hex HMAC-SHA256(`hosted_hmac_secret`,
 * user), 32 characters; `""` without a user.
 *
 * @example
 * ```ts
 * import { postgresTenant } from "./stores.ts";
 * const s = { hosted_hmac_secret: "k".repeat(32) };
 * console.assert(postgresTenant(s, "alice").length === 32);
 * console.assert(postgresTenant(s, undefined) === "");
 * ```
 *
 * @internal exported for its documentation example (a doc test)
 */
export function postgresTenant(
  settings: Pick<MemorySettings, "hosted_hmac_secret">,
  user: string | undefined,
): string {
  if (user === undefined) return "";
  const secret = settings.hosted_hmac_secret;
  if (!secret) {
    throw new GleanerError(
      "invalid_arguments",
      "memory.hosted_hmac_secret is required in hosted mode",
      { details: { field: "memory.hosted_hmac_secret" } },
    );
  }
  return createHmac("sha256", secret).update(user, "utf8").digest("hex").slice(0, 32);
}

/**
 * Opens the PostgreSQL store of `user` (hosted mode) or the single store.
 * The schema is migrated when the process first connects to the URL.
 *
 * @example
 * ```ts ignore
 * const backend = await openPostgresMemoryBackend(config.memory);
 * await backend.close();
 * ```
 */
export async function openPostgresMemoryBackend(
  settings: MemorySettings,
  user?: string,
): Promise<PostgresMemoryBackend> {
  const url = settings.postgres_url;
  if (!url) {
    throw new GleanerError(
      "invalid_arguments",
      "memory.postgres_url is required when memory.backend is postgres",
      { details: { field: "memory.postgres_url" } },
    );
  }
  const tenant = postgresTenant(settings, user);
  let entry = shared.get(url);
  if (!entry) {
    entry = { db: PostgresMemoryDatabase.open({ url }), refs: 0 };
    shared.set(url, entry);
  }
  const held = entry;
  held.refs++;
  let db: PostgresMemoryDatabase;
  try {
    db = await held.db;
  } catch (error) {
    held.refs--;
    if (shared.get(url) === held) shared.delete(url);
    throw error;
  }
  let closed = false;
  return db.backend(tenant, async () => {
    if (closed) return;
    closed = true;
    if (--held.refs > 0) return;
    if (shared.get(url) === held) shared.delete(url);
    await db.close();
  });
}
