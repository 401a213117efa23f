import type { Permission } from '../../platform/auth/permissions.js';

/**
 * The permissions of intel's commands, declared once: the routes (items.routes.ts) and the agent
 * tools that run the same commands (the tools module's search_intel_items, lookup_indicator,
 * record_indicator_check) both use them.
 */
export const intelCommands = {
  /** Reading items and indicators: list, get, search, look up, statistics, detection context. */
  read: { permissions: ['intel.read'] },
  /** Recording a hunt check of an indicator's value. */
  recordIndicatorCheck: { permissions: ['intel.manage'] },
} as const satisfies Record<string, { permissions: readonly Permission[] }>;
