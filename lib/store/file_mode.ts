/**
 * File modes of a SQLite store: the database file and its `-wal` / `-shm`
 * companions are the owner's alone (0600), and so is the folder that holds
 * them (0700). A looser mode found on open is tightened, with one warning per
 * path naming the old and the new mode; the doctor reports the same findings.
 *
 * A folder is never changed when it is shared by design or not ours: one with
 * the sticky bit (such as `/tmp`), one owned by another user, the filesystem
 * root or the home directory. It is reported instead (the store file's own
 * 0600 still keeps its content private). Nothing is checked on Windows, whose
 * permissions are not POSIX modes.
 *
 * @module
 */
import { getGleanerLogger } from "../log.ts";

const log = getGleanerLogger("store");

/**
 * Permission bits a store file may have at most.
 *
 * @internal exported for tests only
 */
export const STORE_FILE_MODE = 0o600;
/**
 * Permission bits a store folder may have at most.
 *
 * @internal exported for tests only
 */
export const STORE_DIR_MODE = 0o700;

/** Companion files SQLite keeps beside a database in WAL mode. */
const COMPANIONS = ["", "-wal", "-shm", "-journal"] as const;

/** One store path and its mode. */
export interface StoreMode {
  /** The file or folder. */
  path: string;
  /** Whether it is the database (or a companion file) or its folder. */
  kind: "file" | "folder";
  /** Permission bits found (`0o755`). */
  mode: number;
  /** True when group or others have any access. */
  loose: boolean;
  /** Permission bits after tightening (only when it was tightened). */
  tightenedTo?: number;
  /** Why a loose path was left as it is. */
  left?: string;
}

/**
 * `0o755` as `"0755"`.
 *
 * @example
 * ```ts
 * import { octalMode } from "./file_mode.ts";
 * console.assert(octalMode(0o755) === "0755" && octalMode(0o600) === "0600");
 * ```
 */
export function octalMode(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, "0")}`;
}

/** The folder of a store path (`.` for a bare file name). */
export function storeFolder(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash > 0 ? path.slice(0, slash) : slash === 0 ? "/" : ".";
}

function processUid(): number | undefined {
  try {
    return Deno.uid() ?? undefined;
  } catch {
    return undefined; // no --allow-sys: chmod itself refuses what is not ours
  }
}

/** Why a loose folder must be left as it is, or undefined when it may be tightened. */
function sharedFolder(dir: string, info: Deno.FileInfo, home?: string): string | undefined {
  const real = (() => {
    try {
      return Deno.realPathSync(dir);
    } catch {
      return dir;
    }
  })();
  if ((info.mode ?? 0) & 0o1000) return "a shared folder (sticky bit)";
  if (real === "/") return "the filesystem root";
  if (home) {
    try {
      if (real === Deno.realPathSync(home)) return "the home directory";
    } catch {
      // no such home: nothing to compare
    }
  }
  const uid = processUid();
  if (uid !== undefined && info.uid !== null && info.uid !== uid) {
    return `owned by another user (uid ${info.uid})`;
  }
  return undefined;
}

function statOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.statSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * The modes of the store at `path`: its folder, the database and each
 * companion file that exists. With `tighten`, every loose one that may be
 * changed is chmod-ed to its owner's bits (0644 → 0600, 0755 → 0700), each
 * with one warning naming the path and both modes. Empty on Windows and for
 * `:memory:`.
 *
 * @example
 * ```ts
 * import { storeModes } from "./file_mode.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/s.db`, "", { mode: 0o644 });
 * Deno.chmodSync(`${dir}/s.db`, 0o644);
 * const found = storeModes(`${dir}/s.db`, { tighten: true });
 * if (Deno.build.os !== "windows") {
 *   console.assert(found.some((m) => m.kind === "file" && m.tightenedTo === 0o600));
 *   console.assert((Deno.statSync(`${dir}/s.db`).mode! & 0o777) === 0o600);
 * }
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function storeModes(
  path: string,
  options: {
    /** Change loose modes (else only report them). */
    tighten: boolean;
    /** The user's home directory (`HOME` of the entry point's environment), never tightened. */
    home?: string;
  },
): StoreMode[] {
  if (Deno.build.os === "windows" || path === ":memory:") return [];
  const found: StoreMode[] = [];
  const dir = storeFolder(path);
  const dirInfo = statOrUndefined(dir);
  if (dirInfo) {
    found.push(check(dir, "folder", dirInfo, STORE_DIR_MODE, options.tighten, options.home));
  }
  for (const suffix of COMPANIONS) {
    const file = `${path}${suffix}`;
    const info = statOrUndefined(file);
    if (info?.isFile) found.push(check(file, "file", info, STORE_FILE_MODE, options.tighten));
  }
  return found;
}

function check(
  path: string,
  kind: "file" | "folder",
  info: Deno.FileInfo,
  wanted: number,
  tighten: boolean,
  home?: string,
): StoreMode {
  const mode = (info.mode ?? 0) & 0o777;
  const loose = (mode & ~wanted & 0o777) !== 0;
  const entry: StoreMode = { path, kind, mode, loose };
  if (!loose) return entry;
  const shared = kind === "folder" ? sharedFolder(path, info, home) : undefined;
  if (shared) {
    entry.left = shared;
    return entry;
  }
  if (!tighten) return entry;
  const next = mode & wanted;
  try {
    Deno.chmodSync(path, next);
  } catch (error) {
    entry.left = `chmod failed: ${(error as Error).name}`;
    log.warn("store {kind} {path} has mode {from} (others can reach it) and could not be changed", {
      kind,
      path,
      from: octalMode(mode),
    });
    return entry;
  }
  entry.tightenedTo = next;
  log.warn("store {kind} {path} had mode {from}; tightened to {to}", {
    kind,
    path,
    from: octalMode(mode),
    to: octalMode(next),
  });
  return entry;
}
