export { registerOperationsRoutes } from './operations.routes.js';

/** This module owns no table (scripts/table-owners.ts). */
export const ownedTables = [] as const;
