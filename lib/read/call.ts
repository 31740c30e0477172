/**
 * One tool call's reads, as the browser tier sees them: who is asking (the
 * browser's pages are shared out by caller, not by read) and when the call
 * first had a page (all its browser work ends at one deadline from then).
 *
 * Small and free of the browser driver: the evidence runs (`scrape_urls`,
 * `research`) make one per call and pass it down with every read.
 *
 * @module
 */

/** How many times `read.browser_timeout_ms` one call's browser work may take in all. */
export const BROWSER_CALL_FACTOR = 2;

/**
 * The reads of one call. The object itself is the caller's identity in the
 * browser's page pool; its browser clock starts when its first read gets a
 * page ({@link ReadCall.startBrowser}), and the call's deadline runs from
 * there (a browser launch or another caller's turn before that is not the
 * call's work).
 *
 * @example
 * ```ts
 * import { ReadCall } from "./call.ts";
 * const call = new ReadCall();
 * let told: number | undefined;
 * call.whenBrowserStarts((at) => told = at);
 * const at = call.startBrowser();
 * console.assert(call.startBrowser() === at && told === at); // set once, by the first page
 * ```
 */
export class ReadCall {
  #started?: number;
  #listeners = new Set<(at: number) => void>();

  /** `performance.now()` when the call's first read got a page; `undefined` before. */
  browserStarted(): number | undefined {
    return this.#started;
  }

  /** Starts the call's browser clock (a read got a page) unless it runs already; when it started. */
  startBrowser(): number {
    if (this.#started === undefined) {
      const at = performance.now();
      this.#started = at;
      const listeners = [...this.#listeners];
      this.#listeners.clear();
      for (const listener of listeners) listener(at);
    }
    return this.#started;
  }

  /**
   * Calls `listener` with the start time once the browser clock starts (at
   * once when it runs already). Returns a function that forgets the listener.
   */
  whenBrowserStarts(listener: (at: number) => void): () => void {
    if (this.#started !== undefined) {
      listener(this.#started);
      return () => {};
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
