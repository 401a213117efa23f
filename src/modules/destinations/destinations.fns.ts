import { ConflictError } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { hasUrlSecrets, redactUrlSecrets } from '../../platform/outbound/url-secrets.js';
import type { DestinationRow } from './destinations.repo.js';
import type { DestinationDto, DestinationInputT } from './destinations.schemas.js';

/** Every URL a destination's config can hold (the routes' `outboundUrls`). */
const CONFIG_URLS = ['url', 'apiBaseUrl', 'tenantUrl'] as const;

/** When the previous secret stops signing, while it still does. */
export function overlapEnd(row: Pick<DestinationRow, 'previousSigningSecretCiphertext' | 'previousSigningSecretExpiresAt'>, now = new Date()): string | null {
  return row.previousSigningSecretCiphertext && row.previousSigningSecretExpiresAt && row.previousSigningSecretExpiresAt > now ? iso(row.previousSigningSecretExpiresAt) : null;
}

/** The config with credentials inside its URLs redacted; the same object when it has none (the cache keeps one copy). */
export function redactedConfig(config: Record<string, unknown>): Record<string, unknown> {
  const secretUrls = CONFIG_URLS.filter((k) => typeof config[k] === 'string' && hasUrlSecrets(config[k] as string));
  if (!secretUrls.length) return config;
  return { ...config, ...Object.fromEntries(secretUrls.map((k) => [k, redactUrlSecrets(config[k] as string)])) };
}

/** undefined: not given (keep on update); null: clear; string: set. */
export function tokenOf(input: DestinationInputT): string | null | undefined {
  return (input as { token?: string | null }).token;
}

/**
 * A destination as the API answers it. The token (decrypted by `decrypt`) and the URLs as stored
 * are revealed only to callers who could change them anyway.
 */
export function destinationDto(row: DestinationRow, revealToken: boolean, decrypt: (ciphertext: string) => string): DestinationDto {
  const dto = {
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    type: row.type,
    // A Teams workflow URL's `sig=` is its credential: whole only for those who could change it.
    config: revealToken ? row.config : redactedConfig(row.config),
    hasToken: row.tokenCiphertext !== null,
    ...(row.type === 'webhook' ? { hasSigningSecret: row.signingSecretCiphertext !== null, previousSigningSecretExpiresAt: overlapEnd(row) } : {}),
    eventSubscriptions: row.eventSubscriptions,
    managedBy: row.managedBy,
    managedSource: row.managedSource,
  } as DestinationDto;
  if (revealToken && row.tokenCiphertext) dto.token = decrypt(row.tokenCiphertext);
  return dto;
}

/** 409: agents still deliver to the destination (as for MCP servers). */
export function destinationInUse(name: string, agents: string[]): ConflictError {
  return new ConflictError(
    `Output destination "${name}" is used by agent${agents.length > 1 ? 's' : ''} ${agents.map((a) => `"${a}"`).join(', ')}; remove it from their outputDestinationIds before deleting it`,
  );
}
