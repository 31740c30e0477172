/**
 * Search providers: one module each, the registry of default orders, and the
 * failure classification every provider call goes through.
 *
 * @example
 * ```ts
 * import { parseConfig } from "../../config/config.ts";
 * import { usableProviders } from "./mod.ts";
 * const config = parseConfig({ search: { tavily_api_key: "tvly-x" } });
 * console.assert(usableProviders(config, "answer").map((p) => p.name).join() === "tavily");
 * ```
 *
 * @module
 */
export * from "./types.ts";
export {
  CLASS_CODES,
  type Classification,
  classifyFailure,
  type FailureClass,
  type FailureEvidence,
  FALLBACK_CODES,
  parseRetryAfter,
  providerFailure,
} from "../../net/classify.ts";
export {
  configuredProviders,
  DEFAULT_ORDER,
  providerByName,
  PROVIDERS,
  roleOrder,
  usableProviders,
} from "./registry.ts";
export { BRAVE, braveProvider } from "./brave.ts";
export { EXA, exaProvider } from "./exa.ts";
export { TAVILY, tavilyProvider } from "./tavily.ts";
export { PARALLEL, parallelProvider } from "./parallel.ts";
export { SELTZ, seltzProvider } from "./seltz.ts";
export { QUERIT, queritProvider } from "./querit.ts";
export { GEMINI, geminiProvider } from "./gemini.ts";
export { JINA, jinaProvider } from "./jina.ts";
export { KEENABLE, keenableProvider } from "./keenable.ts";
export { TINYFISH, tinyfishProvider } from "./tinyfish.ts";
export { duckduckgoProvider } from "./duckduckgo.ts";
export { searxngProvider } from "./searxng.ts";
export { createReaderProvider, GLEANER_READER, type ReadPage } from "./reader.ts";
