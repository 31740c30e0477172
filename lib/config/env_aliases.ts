/**
 * The short environment names Gleaner accepts besides `GLEANER_<SECTION>_<KEY>`: a
 * table without the schema, so that the launcher (`lib/config/path_settings.ts`) reads
 * the same names as `loadConfig` without loading the validation library.
 *
 * @module
 */

/** Short environment names accepted besides `GLEANER_<SECTION>_<KEY>`. */
export const ENV_ALIASES: Readonly<Record<string, string>> = {
  GLEANER_HOST: "server.host",
  GLEANER_PORT: "server.port",
  GLEANER_API_KEY: "server.api_key",
  GLEANER_ALLOW_CONFIG_WRITE: "server.allow_config_write",
  GLEANER_ALLOW_PRIVATE_NETWORK: "network.allow_private",
  GLEANER_CHROME_PATH: "read.chrome_path",
  GLEANER_SEARXNG_URL: "search.searxng_url",
  GLEANER_LOG_LEVEL: "log.level",
  GLEANER_DB: "store.path",
  GITHUB_TOKEN: "read.github_token",
  // A second name for the Brave key; listed before BRAVE_API_KEY so that BRAVE_API_KEY wins
  // when both are set (later aliases overwrite earlier ones).
  BRAVE_SEARCH_API_KEY: "search.brave_api_key",
  BRAVE_API_KEY: "search.brave_api_key",
  EXA_API_KEY: "search.exa_api_key",
  TAVILY_API_KEY: "search.tavily_api_key",
  JINA_API_KEY: "search.jina_api_key",
  KEENABLE_API_KEY: "search.keenable_api_key",
  PARALLEL_API_KEY: "search.parallel_api_key",
  GEMINI_API_KEY: "search.gemini_api_key",
  TINYFISH_API_KEY: "search.tinyfish_api_key",
  QUERIT_API_KEY: "search.querit_api_key",
  SELTZ_API_KEY: "search.seltz_api_key",
  FIRECRAWL_API_KEY: "read.firecrawl_api_key",
  CRAWL4AI_API_TOKEN: "read.crawl4ai_token",
};
