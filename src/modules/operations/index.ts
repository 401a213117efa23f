export { registerOperationsRoutes } from './operations.routes.js';
