import { defineModule } from '../../platform/module.js';
import { registerOperationsRoutes } from './operations.routes.js';

/** This module owns no table (scripts/table-owners.ts). */
export const ownedTables = [] as const;

export const operationsModule = defineModule({ name: 'operations', owns: ownedTables, routes: registerOperationsRoutes });
