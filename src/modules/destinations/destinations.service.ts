import type { Queryable } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { writeAudit } from '../../platform/audit.js';
import { NotFoundError } from '../../platform/http/errors.js';
import { sql } from 'kysely';
import { iso } from '../../platform/time.js';
import { withTransaction } from '../../platform/cache/transaction.js';
import { assertEditable, type WriteOptions } from '../../platform/managed.js';
import { agentsUsingDestination, deleteDestinationRow, findDestinationRow } from './destinations.repo.js';
import type { DestinationDto, DestinationInputT } from './destinations.schemas.js';
import { destinationInUse } from './destinations.fns.js';
import { createDestinationReads, DESTINATIONS_CHANNEL, type DestinationReadsDeps } from './destinations.cache.js';
import { createDestination, type DestinationCommandDeps } from './destinations.create.js';
import { rotateSigningSecret, updateDestination } from './destinations.update.js';

/** A destination's delivery health: the delivery module answers it (`ModuleReaders.destinationHealth`, below). */
export interface DestinationHealth {
  lastDeliveryStatus: 'succeeded' | 'retrying' | 'failed' | 'skipped' | null;
  /** When the latest attempt started. */
  lastDeliveryAt: string | null;
  lastError: string | null;
  consecutiveFailures: number;
}

declare module '../../platform/wiring.js' {
  interface ModuleReaders {
    /**
     * A destination's delivery health, asked on GET of one destination. Delivery answers it (its
     * manifest's `readers`): the attempts are delivery's rows, and delivery builds on destinations,
     * so destinations cannot import it.
     */
    destinationHealth: (q: Queryable, organizationId: string, destinationId: string) => Promise<DestinationHealth>;
  }
}

/**
 * Marks Slack channels blocked (reported archived or not found) in the destination's config,
 * from the delivery worker. Not a user update: `updatedAt` stays. The NOTIFY drops every
 * process's cached copy of the organization's destinations at commit.
 */
export async function blockSlackChannels(tx: Queryable, organizationId: string, destinationId: string, channels: readonly string[], at: Date): Promise<void> {
  if (channels.length === 0) return;
  const row = await findDestinationRow(tx, organizationId, destinationId, true);
  if (!row || row.type !== 'slack') return;
  const blocked = { ...((row.config.blockedChannels as Record<string, unknown> | undefined) ?? {}) };
  for (const c of channels) blocked[c] ??= { reason: 'archived', blockedAt: iso(at) };
  await tx
    .updateTable('outputDestinations')
    .set({ config: JSON.stringify({ ...row.config, blockedChannels: blocked }) })
    .where('organizationId', '=', organizationId)
    .where('id', '=', destinationId)
    .execute();
  await sql`SELECT pg_notify(${DESTINATIONS_CHANNEL}, ${organizationId})`.execute(tx);
}

/**
 * Destinations' commands over the process's cache of each organization's destinations: the reads
 * (destinations.cache.ts), create (destinations.create.ts), update and signing-secret rotation
 * (destinations.update.ts), and here the removal.
 */
export function createDestinationsService(deps: DestinationCommandDeps & DestinationReadsDeps) {
  const reads = createDestinationReads(deps);
  return {
    hasSubscribers: reads.hasSubscribers,
    listJson: reads.listJson,
    get: reads.get,

    /** `opts`: config apply's transaction and "managed by code" marking (platform/managed.ts). */
    create: (ctx: RequestContext, input: DestinationInputT, opts?: WriteOptions): Promise<DestinationDto> => createDestination(deps, ctx, input, opts),

    update: (ctx: RequestContext, id: string, input: DestinationInputT, opts?: WriteOptions): Promise<DestinationDto> => updateDestination(deps, ctx, id, input, opts),

    rotateSigningSecret: (ctx: RequestContext, id: string, overlapSeconds: number) => rotateSigningSecret(deps, ctx, id, overlapSeconds),

    /** 409 while agents deliver to it (as for MCP servers); its delivery log stays readable. */
    async remove(ctx: RequestContext, id: string, opts?: WriteOptions): Promise<{ success: boolean }> {
      await withTransaction(opts?.tx ?? deps.db, async (tx) => {
        const existing = await findDestinationRow(tx, ctx.actor.organizationId, id, true);
        if (!existing) throw new NotFoundError('Output destination');
        assertEditable(existing, 'OutputDestination', existing.name, opts);
        const agents = await agentsUsingDestination(tx, ctx.actor.organizationId, id);
        if (agents.length) throw destinationInUse(existing.name, agents);
        await deleteDestinationRow(tx, ctx.actor.organizationId, id);
        await deps.cache.invalidate(tx, ctx.actor.organizationId);
        await writeAudit(tx, ctx, { action: 'destination.delete', resourceType: 'destination', resourceId: id, metadata: { name: existing.name, type: existing.type } });
      });
      return { success: true };
    },
  };
}

export type DestinationsService = ReturnType<typeof createDestinationsService>;
