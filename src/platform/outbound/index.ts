export { createGuardedClient, type GuardedClient, type GuardedClientOptions, type OutboundRequestInit, type OutboundResponse } from './guarded-client.js';
export { isForbiddenAddress, literalAddressRefusal } from './address-policy.js';
export { OutboundError, type OutboundErrorCode } from './errors.js';
export { guardedFetch, type GuardedFetchOptions } from './fetch-adapter.js';
export { delayFor, parseRetryAfter, DEFAULT_RETRY_STATUSES } from './retry.js';
export type { AddressPolicy, LookupAll } from './vetting-lookup.js';
