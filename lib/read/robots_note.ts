/**
 * robots.txt state in a reader's own domain memory, when the robots.txt
 * cache is shared by readers that must not learn of each other (hosted mode:
 * one reader per user). The shared cache fetches an origin's robots.txt once
 * a day for everyone; each reader notes the state it went by, dated by its
 * own read, so when (or whether) anyone else fetched it never shows.
 *
 * @module
 */
import { GleanerError } from "../errors.ts";
import { getGleanerLogger } from "../log.ts";
import type { RobotsChecker } from "../net/robots.ts";
import type { DomainStats } from "../store/types.ts";
import type { Reader } from "./cascade.ts";

const log = getGleanerLogger("read");

/** Failures met before any request could go out: no robots.txt was consulted for them. */
const BEFORE_NETWORK = new Set(["blocked_url", "invalid_arguments"]);

/**
 * Wraps `reader` so that each read that went to the network (not answered
 * from the cache, not refused before any request) notes the origin's
 * robots.txt state, as `robots` has it cached, in `domains`.
 *
 * @example
 * ```ts ignore
 * import { notingRobots } from "./robots_note.ts";
 * const userReader = notingRobots(reader, { robots: fetcher.robots, domains: userDomains });
 * await userReader.read({ url: "https://example.com/" });
 * console.log((await userDomains.get("https://example.com"))?.robots?.state);
 * ```
 */
export function notingRobots(
  reader: Reader,
  deps: { robots: Pick<RobotsChecker, "stateOf">; domains: DomainStats },
): Reader {
  const note = async (url: string) => {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return;
    }
    const state = deps.robots.stateOf(origin);
    if (state === undefined) return;
    try {
      await deps.domains.setRobots(origin, state);
    } catch (error) {
      log.debug("robots.txt state not stored: {error}", { error });
    }
  };
  return {
    async read(request) {
      let page;
      try {
        page = await reader.read(request);
      } catch (error) {
        if (!(error instanceof GleanerError && BEFORE_NETWORK.has(error.code))) {
          await note(request.url);
        }
        throw error;
      }
      if (page.tier !== "cache") {
        await note(request.url);
        if (page.finalUrl && page.finalUrl !== request.url) await note(page.finalUrl);
      }
      return page;
    },
  };
}
