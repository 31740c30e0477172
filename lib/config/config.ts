/**
 * One schema for every setting Gleaner has. Precedence, highest first:
 * CLI flags > environment `GLEANER_*` > config file > embedded defaults.
 *
 * Environment names are `GLEANER_<SECTION>_<KEY>` in upper case (for example
 * `GLEANER_NETWORK_ALLOW_PRIVATE`), plus the short aliases in {@link ENV_ALIASES}.
 * The config file is `$GLEANER_CONFIG`, else `$XDG_CONFIG_HOME/gleaner/config.json`.
 *
 * This module gathers the public names of the files that hold them:
 * `schema/<section>.ts` (one section schema each), `schema.ts` (the whole
 * schema and its types), `parse.ts` (validation), `env_settings.ts` (the
 * `GLEANER_*` names), `load.ts` (file, environment and flags), `suggest.ts`
 * (nearest setting to a typo), `redact.ts` and `redact_config.ts` (URLs and the
 * configuration safe to show), `setting.ts` (what each setting declares on its
 * field: tenancy scope, writable, secret, environment names) and
 * `setting_index.ts` (the lists derived from those declarations).
 *
 * Permissions: env access to {@link envNames} (through `readEnv`); read access to the config file.
 *
 * @module
 */
export { redactConfig, SECRET_KEYS } from "./redact_config.ts";
export { ServerSchema } from "./schema/server.ts";
export { NetworkSchema, privateAllowed } from "./schema/network.ts";
export { DomainProfileSchema, ProviderSettingsSchema, SearchSchema } from "./schema/search.ts";
export { LlmSchema } from "./schema/llm.ts";
export { DEFAULT_LLMS_TXT_DOMAINS, ReadSchema } from "./schema/read.ts";
export { CrawlSchema } from "./schema/crawl.ts";
export { RankSchema } from "./schema/rank.ts";
export { EmbedSchema } from "./schema/embed.ts";
export { StoreSchema } from "./schema/store.ts";
export { MemorySchema } from "./schema/memory.ts";
export { EventsSchema } from "./schema/events.ts";
export { LogSchema } from "./schema/log.ts";
export { type Config, type ConfigInput, ConfigSchema } from "./schema.ts";
export { parseConfig } from "./parse.ts";
export {
  coerceSetting,
  configFromEnv,
  ENV_ALIASES,
  envNames,
  settingPaths,
} from "./env_settings.ts";
export {
  configFilePath,
  ENV_ONLY_KEYS,
  loadConfig,
  loadedConfigFile,
  mergeConfig,
  proxyFromEnv,
} from "./load.ts";
export { nearestSetting, NON_SETTING_ENV, unknownEnvWarnings } from "./suggest.ts";
export { providerApiKey } from "./provider_keys.ts";
export { TENANCY_SCOPES, type TenancyScope } from "./tenancy.ts";
export {
  operatorOnly,
  setting,
  type SettingMeta,
  type SettingOptions,
  SETTINGS,
  shared,
} from "./setting.ts";
export {
  LIVE_SETTINGS,
  settingMeta,
  settingSchema,
  settingsOfScope,
  settingsWhere,
  WRITABLE_SETTINGS,
} from "./setting_index.ts";
