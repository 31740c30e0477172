/**
 * Pacing of long main-thread work (reading and decoding bodies, counting
 * tokens of big pages) so that a server keeps answering while it reads.
 *
 * Yielding with `setTimeout(0)` lets other JavaScript run, but it is not
 * enough under Deno: while ten large bodies stream in, some read is always
 * ready, the event loop never goes idle, and the runtime's own work (taking
 * and answering the requests of `Deno.serve`) waited up to 100 ms although
 * no task ran longer than 30 ms (`deno task bench health`). The pacer
 * counts the time since its last pause (or since it was last idle for
 * {@link PACE_IDLE_MS}) across every caller and, once
 * {@link PACE_BUSY_MS} have passed, makes all of them wait
 * {@link PACE_PAUSE_MS} together. Streams stop reading meanwhile
 * (back-pressure), the loop goes idle, and the waiting requests are served.
 *
 * @module
 */

/**
 * Paced work runs this long (ms) between two pauses…
 *
 * @internal exported for tests only
 */
export const PACE_BUSY_MS = 5;
/**
 * …and then every paced caller waits this long (ms).
 *
 * @internal exported for tests only
 */
export const PACE_PAUSE_MS = 2;
/**
 * A call this long (ms) after the previous one starts a new turn: the
 * thread was most likely idle meanwhile, so a lone small step (a fetch of
 * one chunk) does not pause. Paced steps are far shorter than this.
 *
 * @internal exported for tests only
 */
export const PACE_IDLE_MS = 50;

let turnStarted = performance.now();
let lastCall = turnStarted;
let pause: Promise<void> | undefined;

/**
 * Call between two steps of long work: returns `undefined` when the work
 * may go on at once, or a promise to await when it is time to pause (the
 * same promise for every caller, so they pause together).
 *
 * @example
 * ```ts
 * import { pace } from "./pace.ts";
 * let sum = 0;
 * for (let i = 0; i < 1_000_000; i++) {
 *   sum += i;
 *   if (i % 10_000 === 0) await pace();
 * }
 * console.assert(sum === 499_999_500_000);
 * ```
 */
export function pace(): Promise<void> | undefined {
  if (pause) return pause;
  const now = performance.now();
  if (now - lastCall > PACE_IDLE_MS) turnStarted = now;
  lastCall = now;
  if (now - turnStarted < PACE_BUSY_MS) return undefined;
  pause = new Promise((resolve) =>
    setTimeout(() => {
      pause = undefined;
      turnStarted = lastCall = performance.now();
      resolve();
    }, PACE_PAUSE_MS)
  );
  return pause;
}

/**
 * Long work written once as a generator that `yield`s between bounded
 * steps: {@link runSteps} runs it straight through (the synchronous API),
 * {@link runPaced} pauses with {@link pace} at its yields (the same code, so
 * the same result).
 */
export type Steps<T> = Generator<void, T, void>;

/**
 * Runs `steps` to the end at once and returns its result.
 *
 * @example
 * ```ts
 * import { runSteps, type Steps } from "./pace.ts";
 * function* sum(n: number): Steps<number> {
 *   let total = 0;
 *   for (let i = 1; i <= n; i++) {
 *     total += i;
 *     if (i % 100 === 0) yield;
 *   }
 *   return total;
 * }
 * console.assert(runSteps(sum(1000)) === 500_500);
 * ```
 */
export function runSteps<T>(steps: Steps<T>): T {
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/**
 * Runs `steps` to the end, pausing with the shared {@link pace} at its yields
 * when the turn is spent, so a server keeps answering meanwhile.
 *
 * @example
 * ```ts
 * import { runPaced, type Steps } from "./pace.ts";
 * function* sum(n: number): Steps<number> {
 *   let total = 0;
 *   for (let i = 1; i <= n; i++) {
 *     total += i;
 *     if (i % 100 === 0) yield;
 *   }
 *   return total;
 * }
 * console.assert(await runPaced(sum(1000)) === 500_500);
 * ```
 */
export async function runPaced<T>(steps: Steps<T>): Promise<T> {
  // The first step waits its turn too: ten callers started at once must not
  // each run a step before any of them pauses.
  for (;;) {
    const pause = pace();
    if (pause) await pause;
    const step = steps.next();
    if (step.done) return step.value;
  }
}
