/**
 * Process trees read from Linux's `/proc`, for the benchmarks that measure a
 * server together with the processes it starts.
 *
 * @module
 */

/**
 * The process `pid` and every process below it, parents first (only `pid` where `/proc` cannot
 * be read: gone, or not Linux).
 *
 * @example
 * ```ts
 * import { processTree } from "./proc.ts";
 * console.assert(processTree(Deno.pid)[0] === Deno.pid);
 * ```
 */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      const children = Deno.readTextFileSync(`/proc/${out[i]}/task/${out[i]}/children`).trim();
      if (children) out.push(...children.split(/\s+/).map(Number));
    } catch {
      // Gone, or not Linux.
    }
  }
  return out;
}

/**
 * CPU time (user + system, ms) used so far by `pid` and the processes below it (`/proc`;
 * `null` elsewhere). On a shared machine it moves far less with the load than wall time.
 *
 * @example
 * ```ts
 * import { treeCpuMs } from "./proc.ts";
 * console.assert((treeCpuMs(Deno.pid) ?? 0) >= 0);
 * ```
 */
export function treeCpuMs(pid: number | null): number | null {
  if (!pid) return null;
  let ticks = 0;
  try {
    for (const p of processTree(pid)) {
      // Fields 14 and 15 of /proc/PID/stat (utime, stime), counted after the command's ")".
      const fields = Deno.readTextFileSync(`/proc/${p}/stat`).split(") ")[1].split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    }
  } catch {
    return null;
  }
  return ticks * 10; // USER_HZ is 100 on Linux.
}
