/**
 * Gleaner's HTTP server on loopback, over the fixture web and fake
 * upstreams of {@link startTestWorld}, for the length of one test.
 *
 * @module
 */
import { createGleaner } from "../lib/gleaner.ts";
import { serveHttp } from "../http/serve.ts";
import { startTestWorld } from "./fixtures/world.ts";

/** The running fixture world a test gets. */
export type TestWorld = Awaited<ReturnType<typeof startTestWorld>>;

/**
 * Runs `fn` with the base URL of a Gleaner HTTP server (port 0) built from
 * the test world's config, `config` merged over it and `server` merged into
 * its `server` section; everything is shut down afterwards.
 */
export async function withServer(
  server: Record<string, unknown>,
  fn: (base: string, world: TestWorld) => Promise<void>,
  config: Record<string, unknown> = {},
): Promise<void> {
  const world = await startTestWorld();
  const gleaner = await createGleaner({
    ...world.config,
    ...config,
    server: { port: 0, ...server },
  });
  const running = serveHttp(gleaner);
  try {
    await fn(running.url, world);
  } finally {
    await running.shutdown();
    await gleaner.close();
    await world.close();
  }
}
