import type { ToolCatalog } from './tool-context.js';
import { intelCommands } from '../intel/index.js';
import { searchIntelItemsTool } from './builtin/search-intel-items.tool.js';
import { lookupIndicatorTool } from './builtin/lookup-indicator.tool.js';
import { recordIndicatorCheckTool } from './builtin/record-indicator-check.tool.js';
import { sendToDestinationTool } from './builtin/send-to-destination.tool.js';
import { httpRequestTool } from './builtin/http-request.tool.js';

/** The tools module's own built-in tools, with the permissions the run's user needs for each (intel's commands' own, shared with intel's routes). */
export const BUILTIN_TOOLS = {
  search_intel_items: { ...intelCommands.read, factory: searchIntelItemsTool },
  lookup_indicator: { ...intelCommands.read, factory: lookupIndicatorTool },
  record_indicator_check: { ...intelCommands.recordIndicatorCheck, factory: recordIndicatorCheckTool },
  send_to_destination: { permissions: ['destination.read'], factory: sendToDestinationTool },
  http_request: { permissions: ['tool.use'], factory: httpRequestTool },
} as const satisfies ToolCatalog;
