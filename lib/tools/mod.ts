/**
 * Every Gleaner tool, defined once; MCP, HTTP and the library are built from this list.
 *
 * @module
 */
import { clearCacheTool } from "./clear_cache.ts";
import { crawlSiteTool } from "./crawl_site.ts";
import { currentDatetimeTool } from "./current_datetime.ts";
import { deleteMemoryTool } from "./delete_memory.ts";
import { getMemoryTool } from "./get_memory.ts";
import { listMemoriesTool } from "./list_memories.ts";
import { recallMemoriesTool } from "./recall_memories.ts";
import { saveMemoriesTool } from "./save_memories.ts";
import { updateMemoryTool } from "./update_memory.ts";
import { domainStatsTool } from "./domain_stats.ts";
import { researchTool } from "./research.ts";
import { scrapeUrlsTool } from "./scrape_urls.ts";
import { searchTool } from "./search.ts";
import type { AnyToolSpec } from "./spec.ts";
import { listedByName } from "./listing_key.ts";

export {
  clearCacheTool,
  crawlSiteTool,
  currentDatetimeTool,
  deleteMemoryTool,
  domainStatsTool,
  getMemoryTool,
  listMemoriesTool,
  recallMemoriesTool,
  researchTool,
  saveMemoriesTool,
  scrapeUrlsTool,
  searchTool,
  updateMemoryTool,
};
export {
  type AnyToolSpec,
  defineTool,
  type LazyHandler,
  lazyHandler,
  preloadHandler,
  type Progress,
  type ToolContext,
  type ToolSpec,
} from "./spec.ts";

// The schemas the tool types name, public so that they are documented.
export { CrawlOutput } from "./crawl_site.ts";
export { CurrentDatetimeOutput } from "./current_datetime.ts";
export { DomainStatsOutput } from "./domain_stats.ts";
export { ResearchInput, ResearchOutput } from "./research.ts";
export { ScrapeInput, ScrapeOutput } from "./scrape_urls.ts";
export {
  FetchedPageSchema,
  SearchInput,
  type SearchItemShape,
  SearchOutput,
  searchToolFor,
} from "./search.ts";
export type { ResearchShape } from "./research_schemas.ts";
export { researchToolFor } from "./research.ts";
export {
  SearchAndSummarizeInput,
  SearchAndSummarizeOutput,
  searchAndSummarizeTool,
} from "./search_and_summarize.ts";
export type { SearchAndSummarizeShape } from "./search_and_summarize_schemas.ts";
export { type QualityShape, SummarySchema } from "./quality_schemas.ts";

/** The memory tools (listed only when `memory.enabled`). */
export const MEMORY_TOOLS: readonly AnyToolSpec[] = [
  saveMemoriesTool,
  recallMemoriesTool,
  listMemoriesTool,
  getMemoryTool,
  updateMemoryTool,
  deleteMemoryTool,
];

/** All tools, in the order clients list them. */
export const TOOLS: readonly AnyToolSpec[] = listedByName([
  searchTool,
  scrapeUrlsTool,
  researchTool,
  crawlSiteTool,
  domainStatsTool,
  clearCacheTool,
  currentDatetimeTool,
  ...MEMORY_TOOLS,
]);

export { DeleteMemoryOutput } from "./delete_memory.ts";
export { GetMemoryOutput } from "./get_memory.ts";
export { MemoryKeyInput } from "./memory_schemas.ts";
export {
  ListMemoriesInput as ListMemoriesInputSchema,
  ListMemoriesOutput,
} from "./list_memories.ts";
export {
  RecallMemoriesInput as RecallMemoriesInputSchema,
  RecallMemoriesOutput,
} from "./recall_memories.ts";
export {
  SaveMemoriesInput as SaveMemoriesInputSchema,
  SaveMemoriesOutput,
} from "./save_memories.ts";
export {
  UpdateMemoryInput as UpdateMemoryInputSchema,
  UpdateMemoryOutput,
} from "./update_memory.ts";
export { EvidenceSchema, RankingSchema } from "./schemas.ts";
export { AttemptSchema, SearchItemInput, SearchResultSchema } from "./search.ts";
export { FallbackSchema } from "./role_schemas.ts";
export { MemoryNoticeSchema, MemorySchema } from "./memory_schemas.ts";
export { OriginStats } from "./domain_stats.ts";
