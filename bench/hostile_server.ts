/**
 * Serves the hostile fixture (`testing/fixtures/hostile.ts`) on loopback in a
 * process of its own and prints its origin on one line; `bench/health.ts`
 * starts it, so that sending 40 MB of hostile bodies does not busy the
 * process that samples `/health` (it did: samples waited hundreds of
 * milliseconds on the benchmark itself). Stops when stdin closes.
 *
 * @module
 */
import { serveHostile } from "../testing/fixtures/hostile.ts";

if (import.meta.main) {
  const web = serveHostile();
  Deno.stdout.writeSync(new TextEncoder().encode(`${web.origin}\n`));
  // Ends with the parent: when stdin closes.
  for await (const _ of Deno.stdin.readable) { /* wait */ }
  await web.close();
}
