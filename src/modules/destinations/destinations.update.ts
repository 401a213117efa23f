import type { RequestContext } from '../../platform/context.js';
import { updatedSecret } from '../../platform/secrets.js';
import { writeAudit } from '../../platform/audit.js';
import { BadRequestError, NotFoundError } from '../../platform/http/errors.js';
import { assertSecretStaysWithOrigin } from '../../platform/outbound/secret-origin.js';
import { withTransaction } from '../../platform/cache/transaction.js';
import { assertEditable, managedColumns, type WriteOptions } from '../../platform/managed.js';
import { tokenEndpoint } from './token-endpoint.fns.js';
import { findDestinationRow, updateDestinationRow, type DestinationRow } from './destinations.repo.js';
import type { DestinationDto, DestinationInputT } from './destinations.schemas.js';
import { destinationDto, overlapEnd, tokenOf } from './destinations.fns.js';
import { newSigningSecret, type DestinationCommandDeps } from './destinations.create.js';

/**
 * Replaces name, type and config. An omitted token keeps the stored one (null clears it)
 * unless the change sends it to another origin: then it must be given again (400).
 */
export async function updateDestination(deps: DestinationCommandDeps, ctx: RequestContext, id: string, input: DestinationInputT, opts?: WriteOptions): Promise<DestinationDto> {
  return withTransaction(opts?.tx ?? deps.db, async (tx) => {
    const existing = await findDestinationRow(tx, ctx.actor.organizationId, id, true);
    if (!existing) throw new NotFoundError('Output destination');
    assertEditable(existing, 'OutputDestination', existing.name, opts);
    const before = tokenEndpoint(existing.type as DestinationInputT['type'], existing.config);
    const after = tokenEndpoint(input.type, input.config as Record<string, unknown>);
    assertSecretStaysWithOrigin({
      secretField: 'token',
      urlField: existing.type === input.type ? after.field : 'type',
      before: before.url,
      after: after.url,
      stored: existing.tokenCiphertext !== null,
      // Teams has no token: the stored one is dropped, not moved.
      given: tokenOf(input) !== undefined || input.type === 'teams',
    });
    await deps.cache.invalidate(tx, ctx.actor.organizationId);
    const token = updatedSecret(deps.secrets, tokenOf(input), existing.tokenCiphertext);
    const tokenCiphertext = input.type === 'teams' ? null : token.ciphertext;
    // Omitted keeps the subscriptions (as for the token): a client unaware of them cannot drop them.
    const eventSubscriptions = input.eventSubscriptions === undefined ? existing.eventSubscriptions : [...new Set(input.eventSubscriptions)];
    // The signing secret is the destination's own: a token change leaves it; a destination
    // becoming a webhook gets one (shown in this answer), one ceasing to be a webhook loses it.
    const signingSecret = input.type === 'webhook' && !existing.signingSecretCiphertext ? newSigningSecret() : null;
    const signing =
      input.type !== 'webhook'
        ? { signingSecretCiphertext: null, previousSigningSecretCiphertext: null, previousSigningSecretExpiresAt: null }
        : signingSecret
          ? { signingSecretCiphertext: deps.secrets.encrypt(signingSecret) }
          : {};
    const row: DestinationRow = { ...existing, name: input.name, type: input.type, config: input.config as Record<string, unknown>, tokenCiphertext, eventSubscriptions, ...signing, ...managedColumns(opts), updatedAt: new Date() };
    await updateDestinationRow(tx, row);
    await writeAudit(tx, ctx, {
      action: 'destination.update',
      resourceType: 'destination',
      resourceId: id,
      metadata: { name: row.name, type: row.type, token: token.change, ...(signingSecret ? { signingSecret: 'generated' } : {}) },
    });
    return { ...destinationDto(row, true, (c) => deps.secrets.decrypt(c)), ...(signingSecret ? { signingSecret } : {}) };
  });
}

/**
 * A new signing secret for a webhook destination, answered once. The one it replaces keeps
 * signing beside it for `overlapSeconds` (deliveries carry both `v1,` signatures), so the
 * receiver can be switched to the new secret without refusing a delivery.
 */
export async function rotateSigningSecret(deps: DestinationCommandDeps, ctx: RequestContext, id: string, overlapSeconds: number): Promise<{ signingSecret: string; previousSigningSecretExpiresAt: string | null }> {
  return withTransaction(deps.db, async (tx) => {
    const existing = await findDestinationRow(tx, ctx.actor.organizationId, id, true);
    if (!existing) throw new NotFoundError('Output destination');
    if (existing.type !== 'webhook') throw new BadRequestError(`Only webhook destinations sign their deliveries; "${existing.name}" is a ${existing.type} destination`);
    await deps.cache.invalidate(tx, ctx.actor.organizationId);
    const signingSecret = newSigningSecret();
    const now = new Date();
    const overlap = overlapSeconds > 0 && existing.signingSecretCiphertext !== null;
    const row: DestinationRow = {
      ...existing,
      signingSecretCiphertext: deps.secrets.encrypt(signingSecret),
      previousSigningSecretCiphertext: overlap ? existing.signingSecretCiphertext : null,
      previousSigningSecretExpiresAt: overlap ? new Date(now.getTime() + overlapSeconds * 1000) : null,
      updatedAt: now,
    };
    await updateDestinationRow(tx, row);
    await writeAudit(tx, ctx, { action: 'destination.rotate_signing_secret', resourceType: 'destination', resourceId: id, metadata: { name: existing.name, overlapSeconds: overlap ? overlapSeconds : 0 } });
    return { signingSecret, previousSigningSecretExpiresAt: overlapEnd(row) };
  });
}
