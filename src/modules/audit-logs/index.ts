export { registerAuditLogsModule } from './audit-logs.routes.js';

/** This module owns no table (scripts/table-owners.ts). */
export const ownedTables = [] as const;
