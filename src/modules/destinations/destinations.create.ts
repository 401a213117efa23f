import { randomBytes } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import type { SecretBox } from '../../platform/secrets.js';
import { writeAudit } from '../../platform/audit.js';
import type { InvalidatedCache } from '../../platform/cache/invalidated-cache.js';
import { withTransaction } from '../../platform/cache/transaction.js';
import { managedColumns, type WriteOptions } from '../../platform/managed.js';
import { insertDestinationRow, type DestinationRow } from './destinations.repo.js';
import type { DestinationDto, DestinationInputT } from './destinations.schemas.js';
import { destinationDto, tokenOf } from './destinations.fns.js';
import type { OrganizationDestinations } from './destinations.cache.js';

/**
 * What destinations' commands are built from (create here, update and rotation in
 * destinations.update.ts; createDestinationsService assembles them). Every write invalidates its
 * organization's cached destinations inside its transaction.
 */
export interface DestinationCommandDeps {
  db: Database;
  secrets: SecretBox;
  cache: InvalidatedCache<OrganizationDestinations>;
}

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes (the spec asks 24 to 64). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** `opts`: config apply's transaction and "managed by code" marking (platform/managed.ts). */
export async function createDestination(deps: DestinationCommandDeps, ctx: RequestContext, input: DestinationInputT, opts?: WriteOptions): Promise<DestinationDto> {
  const now = new Date();
  const token = tokenOf(input);
  const signingSecret = input.type === 'webhook' ? newSigningSecret() : null;
  const row: DestinationRow = {
    id: uuidv7(),
    organizationId: ctx.actor.organizationId,
    name: input.name,
    type: input.type,
    config: input.config as Record<string, unknown>,
    tokenCiphertext: token ? deps.secrets.encrypt(token) : null,
    eventSubscriptions: [...new Set(input.eventSubscriptions ?? [])],
    managedBy: null,
    managedSource: null,
    signingSecretCiphertext: signingSecret ? deps.secrets.encrypt(signingSecret) : null,
    previousSigningSecretCiphertext: null,
    previousSigningSecretExpiresAt: null,
    ...managedColumns(opts),
    createdAt: now,
    updatedAt: now,
  };
  await withTransaction(opts?.tx ?? deps.db, async (tx) => {
    await deps.cache.invalidate(tx, row.organizationId);
    await insertDestinationRow(tx, row);
    await writeAudit(tx, ctx, { action: 'destination.create', resourceType: 'destination', resourceId: row.id, metadata: { name: row.name, type: row.type, hasToken: !!token, signed: !!signingSecret } });
  });
  return { ...destinationDto(row, true, (c) => deps.secrets.decrypt(c)), ...(signingSecret ? { signingSecret } : {}) };
}
