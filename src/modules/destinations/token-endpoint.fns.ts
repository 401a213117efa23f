import type { DestinationType } from './destinations.schemas.js';

/**
 * Where a destination's token is sent, so that a change of it can be held to the origin rule
 * (platform/outbound/secret-origin.ts): the URL the delivery adapter posts to with the token —
 * the webhook's `config.url`, else `config.apiBaseUrl` or the product's public API (the same
 * defaults as delivery/adapters: slack.ts, pagerduty.ts, linear.ts), Tines' tenant. Teams
 * carries no token. `field` names what the user changes to move it.
 */
const PUBLIC_API: Partial<Record<DestinationType, string>> = {
  slack: 'https://slack.com/api',
  pagerduty: 'https://events.pagerduty.com',
  linear: 'https://api.linear.app',
};

export function tokenEndpoint(type: DestinationType, config: Record<string, unknown>): { url: string | null; field: string } {
  const text = (k: string) => (typeof config[k] === 'string' && config[k] ? (config[k] as string) : null);
  if (type === 'webhook') return { url: text('url'), field: 'config.url' };
  if (type === 'teams') return { url: null, field: 'config.url' };
  if (type === 'tines') return text('apiBaseUrl') ? { url: text('apiBaseUrl'), field: 'config.apiBaseUrl' } : { url: text('tenantUrl'), field: 'config.tenantUrl' };
  return { url: text('apiBaseUrl') ?? PUBLIC_API[type] ?? null, field: 'config.apiBaseUrl' };
}
