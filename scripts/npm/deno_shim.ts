/**
 * The `Deno` namespace for the npm build on Node: `@deno/shim-deno` plus the
 * few members it lacks that Gleaner uses (`Deno.serve` over
 * `@hono/node-server`, `Deno.unrefTimer`, `Deno.errors.NotCapable`),
 * `isMainModule` for `import.meta.main`, and `Promise.try` where Node 22
 * lacks it.
 *
 * `scripts/build_npm.ts` copies this file into the build as `_shims/deno.ts`
 * and imports it first in every entry point and in every module that names
 * `Deno`; it is never part of the Deno graph.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Deno as shim } from "@deno/shim-deno";
import { serve as nodeServe } from "@hono/node-server";

type Handler = (request: Request) => Response | Promise<Response>;

interface ServeOptions {
  hostname?: string;
  port?: number;
  signal?: AbortSignal;
  onListen?: (addr: { hostname: string; port: number; transport: "tcp" }) => void;
}

/** `Deno.serve(options, handler)` on Node's http server (the subset Gleaner uses). */
function serve(options: ServeOptions, handler: Handler) {
  const hostname = options.hostname ?? "0.0.0.0";
  let addr = { hostname, port: options.port ?? 8000, transport: "tcp" as const };
  let resolveFinished!: () => void;
  const finished = new Promise<void>((resolve) => (resolveFinished = resolve));
  const server = nodeServe(
    { fetch: handler, hostname, port: options.port ?? 8000 },
    (info: { address: string; port: number }) => {
      addr = { hostname: info.address, port: info.port, transport: "tcp" };
      options.onListen?.(addr);
    },
  );
  server.on("close", () => resolveFinished());
  const shutdown = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
    });
  options.signal?.addEventListener("abort", () => void shutdown(), { once: true });
  return {
    get addr() {
      // Node binds an IP address synchronously: the real port is known at once (port 0 too).
      const bound = server.address();
      return bound && typeof bound === "object"
        ? { hostname: bound.address, port: bound.port, transport: "tcp" as const }
        : addr;
    },
    finished,
    shutdown,
    ref() {},
    unref() {},
  };
}

/** `Deno.unrefTimer(id)`: Node timers are objects with `unref`. */
function unrefTimer(id: unknown): void {
  (id as { unref?: () => void } | undefined)?.unref?.();
}

class NotCapable extends Error {
  override name = "NotCapable";
}

const errors = Object.create(shim.errors, {
  NotCapable: { value: (shim.errors as Record<string, unknown>).NotCapable ?? NotCapable },
});

/** The `Deno` namespace on Node. */
// deno-lint-ignore no-explicit-any
export const Deno: any = Object.create(shim, {
  serve: { value: serve },
  unrefTimer: { value: unrefTimer },
  errors: { value: errors },
});

// Node 22 (V8 12.4) lacks Promise.try (ES2025), which the store uses.
const PromiseCtor = Promise as unknown as { try?: unknown };
PromiseCtor.try ??= function <T>(fn: (...args: unknown[]) => T, ...args: unknown[]) {
  return new Promise<Awaited<T>>((resolve) => resolve(fn(...args) as Awaited<T>));
};

/** `import.meta.main` on Node: true when `url` is the script Node was started with. */
export function isMainModule(url: string): boolean {
  const entry = globalThis.process?.argv?.[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(url));
  } catch {
    return false;
  }
}
