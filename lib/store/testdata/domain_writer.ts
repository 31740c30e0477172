/**
 * Test helper (not part of the library): records `n` attempts of one domain
 * in a store, starting only when a line arrives on stdin, so two processes
 * can be released together. Usage:
 * `deno run -A domain_writer.ts sqlite|valkey <path|url> <domain> <n> [prefix]`.
 *
 * @module
 */
import { openStore } from "../mod.ts";

if (import.meta.main) {
  const [backend, target, domain, count, prefix] = Deno.args;
  const store = openStore(
    backend === "valkey" ? { path: ":memory:", cache_url: target } : { path: target },
    { keyPrefix: prefix },
  );
  await store.ready();
  await Deno.stdout.write(new TextEncoder().encode("ready\n"));
  // Wait for the go signal (any byte on stdin).
  const reader = Deno.stdin.readable.getReader();
  await reader.read();
  reader.releaseLock();
  const n = Number(count);
  for (let i = 0; i < n; i++) {
    await store.domains.record(domain, i % 2 === 0 ? "http" : "browser", i % 4 !== 3, "timeout");
    // Yield a moment so the other writer's records interleave with ours.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await store.close();
  await Deno.stdout.write(new TextEncoder().encode("done\n"));
}
