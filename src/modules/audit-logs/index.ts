import { defineModule } from '../../platform/module.js';
import { registerAuditLogsModule } from './audit-logs.routes.js';

/** This module owns no table (scripts/table-owners.ts). */
export const ownedTables = [] as const;

export const auditLogsModule = defineModule({ name: 'audit-logs', owns: ownedTables, routes: registerAuditLogsModule });
