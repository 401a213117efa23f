export { registerAuditLogsModule } from './audit-logs.routes.js';
