export { createInvalidationBus, type InvalidationBus, type InvalidationHandler } from './invalidation-bus.js';
export { createInvalidatedCache, type InvalidatedCache, type InvalidatedCacheOptions } from './invalidated-cache.js';
export { onTransactionEnd, withTransaction } from './transaction.js';
