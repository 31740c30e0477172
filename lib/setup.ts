/**
 * `gleaner setup`: gets this machine ready ahead of the first call, and says
 * what it did, step by step: the store and the memory store are created and
 * migrated, the ranking model is put in place and embeds a sentence, the
 * query expansion loads, and the headless browser is launched and renders a
 * page that only a working browser renders (a script sets its title). The
 * steps run side by side; only what each step needs is loaded.
 *
 * The browser's page is served by setup itself on 127.0.0.1, for that one
 * read, with the network policy widened to exactly that origin: the policy
 * of the configuration is not changed.
 *
 * Permissions: those of `gleaner serve` (the store and memory folders, the model, Chromium).
 *
 * @module
 */
import type { Config } from "./config/config.ts";
import type { Env } from "./config/env.ts";
import { toGleanerError } from "./errors.ts";

/** One step of the setup. */
export interface SetupStep {
  /** What was set up. */
  name: string;
  /** `ok` done, `fail` could not be done, `skip` not needed with this configuration. */
  status: "ok" | "fail" | "skip";
  /** What was done, or what went wrong. */
  detail: string;
  /** What to do about a failure. */
  fix?: string;
  /** How long it took. */
  ms: number;
}

/** What {@link runSetup} did. */
export interface SetupReport {
  /** True when no step failed. */
  ok: boolean;
  /** The steps, in a fixed order. */
  steps: SetupStep[];
  /** Wall time of the whole setup. */
  ms: number;
}

/** Options of {@link runSetup}. */
export interface SetupOptions {
  /** The entry point's environment snapshot (data directory, Chromium's environment). */
  env: Env;
  /** The config file the configuration came from, to say so. */
  configFile?: string;
  /** Told each step as soon as it and the steps before it are done (in the fixed order). */
  onStep?: (step: SetupStep) => void;
}

type Outcome = Omit<SetupStep, "name" | "ms">;

/** The test page: its title is set by a script, so only a rendering browser shows it. */
const CHECK_TITLE = "Gleaner browser check: rendered";
const CHECK_PAGE = `<!doctype html><html><head><title>static</title></head><body>
<main><p id="static">Served by gleaner setup.</p></main>
<script>document.title = ${JSON.stringify(CHECK_TITLE)};
var done = document.createElement("p"); done.id = "rendered"; done.textContent = "rendered";
document.querySelector("main").appendChild(done);</script></body></html>`;

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

async function storeStep(config: Config, env: Env): Promise<Outcome> {
  const { openStore } = await import("./store/mod.ts");
  const store = openStore(config.store, { env });
  try {
    await store.ready();
    return {
      status: "ok",
      detail: `${store.path ?? "store"}: created and migrated (${store.backend} cache)`,
    };
  } finally {
    await store.close();
  }
}

async function memoryStep(config: Config, env: Env): Promise<Outcome> {
  const memory = config.memory;
  if (!memory.enabled) return { status: "skip", detail: "memory.enabled is false" };
  if (memory.backend === "postgres") {
    return {
      status: "skip",
      detail: "PostgreSQL: migrated on first use; gleaner doctor checks the server",
    };
  }
  if (memory.hosted) {
    return { status: "skip", detail: "hosted mode: one file per user, created on first use" };
  }
  const [{ memoryFilePath }, { openSqliteMemoryBackend }] = await Promise.all([
    import("./memory/stores.ts"),
    import("./memory/sqlite/backend.ts"),
  ]);
  const path = memoryFilePath(memory, undefined, env);
  let migrated: { from: number; to: number } | undefined;
  const backend = openSqliteMemoryBackend(path, {
    home: env.HOME,
    onMigrated: (result) => (migrated = result),
  });
  try {
    const row = backend.db.prepare("SELECT vec_version() AS v").get() as { v: string };
    const schema = migrated && migrated.from !== migrated.to
      ? `migrated from schema ${migrated.from} to ${migrated.to}`
      : `schema ${migrated?.to ?? "current"}`;
    return { status: "ok", detail: `${path}: ${schema}; sqlite-vec ${row.v} loaded` };
  } finally {
    await backend.close();
  }
}

async function modelStep(config: Config, env: Env): Promise<Outcome> {
  if (config.embed.provider === "none") {
    return { status: "skip", detail: "embed.provider is none: ranking uses BM25 alone" };
  }
  const [{ createEmbedder }, { createFetcher }] = await Promise.all([
    import("./embed/mod.ts"),
    import("./net/fetch.ts"),
  ]);
  const embedder = await createEmbedder(config.embed, {
    fetcher: createFetcher(config.network, { env }),
    env,
  });
  if (!embedder) return { status: "skip", detail: "no embedder configured" };
  try {
    // A remote embedder is only created here: embedding would send text to it.
    if (config.embed.provider === "openai") {
      return { status: "ok", detail: `${embedder.id}: configured (remote, not called)` };
    }
    const [vector] = await embedder.embedDocuments(["Gleaner setup embeds one sentence."]);
    return {
      status: "ok",
      detail: `${embedder.id}: ready, embedded a test sentence (${vector.length} dimensions)`,
    };
  } finally {
    await embedder.close?.();
  }
}

async function expansionStep(config: Config, env: Env): Promise<Outcome> {
  if (config.rank.expand_terms === 0) {
    return { status: "skip", detail: "rank.expand_terms is 0" };
  }
  const { expanderOptions, loadQueryExpander } = await import("./rank/expand.ts");
  const expander = await loadQueryExpander({ ...expanderOptions(config.rank), env });
  const words = expander.expand("database migration").size;
  return { status: "ok", detail: `loaded (a test query gained ${words} related words)` };
}

async function browserStep(config: Config, env: Env): Promise<Outcome> {
  if (config.read.render === "never") {
    return { status: "skip", detail: "read.render is never: pages are never rendered" };
  }
  const { createBrowserTier } = await import("./read/browser/browser.ts");
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(CHECK_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const allow = config.network.allow_private;
  // Only setup's own page is let through, for this one read.
  const scoped: Config = {
    ...config,
    network: {
      ...config.network,
      allow_private: allow === true ? true : [...(allow === false ? [] : allow), origin],
      allowed_ports: [...config.network.allowed_ports, server.addr.port],
      respect_robots: false,
    },
    read: { ...config.read, browser_pages: 1 },
  };
  const tier = createBrowserTier(scoped, { env });
  try {
    const page = await tier.read(`${origin}/`, { waitForSelector: "#rendered" });
    if (page.title !== CHECK_TITLE) {
      return {
        status: "fail",
        detail: `the browser loaded the test page but did not run its script (title "${
          page.title.slice(0, 80)
        }")`,
        fix: "check that JavaScript is not turned off in the browser's policies",
      };
    }
    const where = config.read.browser_cdp_url ? "the DevTools endpoint" : "headless Chromium";
    return { status: "ok", detail: `${where} started and rendered a test page (script ran)` };
  } finally {
    await tier.close();
    await server.shutdown();
  }
}

/** What to do when a step failed, by step. */
const FIXES: Record<string, string> = {
  store: "check store.path: a file you may write in a folder you own",
  "memory store": "check memory.path: a file you may write in a folder you own",
  "ranking model": "check embed.* (embed.provider: static needs no download)",
  "query expansion": "set rank.expand_terms to 0 to turn it off",
  browser: "install Chromium (apt-get install chromium) or set read.chrome_path; " +
    "read.render: never turns the browser off",
};

/**
 * Runs the setup steps side by side and reports each (in a fixed order, through
 * `onStep` as soon as it can be told).
 *
 * @example
 * ```ts ignore
 * import { parseConfig } from "@gleaner/gleaner";
 * import { runSetup } from "./setup.ts";
 * const report = await runSetup(parseConfig({}), {
 *   env: { HOME: "/home/me" },
 *   onStep: (step) => console.log(step.status, step.name, step.detail),
 * });
 * console.log(report.ok);
 * ```
 */
export async function runSetup(config: Config, options: SetupOptions): Promise<SetupReport> {
  const started = performance.now();
  const { env } = options;
  const run = (name: string, work: () => Promise<Outcome>) => {
    const begun = performance.now();
    return work().then(
      (outcome): SetupStep => ({ name, ...outcome, ms: Math.round(performance.now() - begun) }),
      (error): SetupStep => {
        const failure = toGleanerError(error, name);
        return {
          name,
          status: "fail",
          detail: `${failure.code}: ${failure.message}`,
          fix: FIXES[name],
          ms: Math.round(performance.now() - begun),
        };
      },
    );
  };
  const pending = [
    Promise.resolve<SetupStep>({
      name: "config",
      status: "ok",
      detail: options.configFile
        ? `${options.configFile} (or the defaults where it is silent)`
        : "no config file: the defaults and the environment",
      ms: 0,
    }),
    run("store", () => storeStep(config, env)),
    run("memory store", () => memoryStep(config, env)),
    run("ranking model", () => modelStep(config, env)),
    run("query expansion", () => expansionStep(config, env)),
    run("browser", () => browserStep(config, env)),
  ];
  const steps: SetupStep[] = [];
  for (const step of pending) {
    const done = await step;
    steps.push(done);
    options.onStep?.(done);
  }
  return {
    ok: steps.every((s) => s.status !== "fail"),
    steps,
    ms: Math.round(performance.now() - started),
  };
}

/**
 * One step as a line of text: `ok   browser: headless Chromium started … (1.2 s)`.
 *
 * @example
 * ```ts
 * import { formatSetupStep } from "./setup.ts";
 * const line = formatSetupStep({ name: "store", status: "ok", detail: "gleaner.db: created", ms: 12 });
 * console.assert(line === "ok   store: gleaner.db: created (12 ms)");
 * ```
 */
export function formatSetupStep(step: SetupStep): string {
  const label = step.status === "fail" ? "FAIL" : step.status === "skip" ? "skip" : "ok  ";
  const fix = step.fix && step.status === "fail" ? `; fix: ${step.fix}` : "";
  const time = step.status === "skip" ? "" : ` (${seconds(step.ms)})`;
  return `${label} ${step.name}: ${step.detail}${time}${fix}`;
}
