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
