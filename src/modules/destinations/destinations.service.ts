import { uuidv7 } from 'uuidv7';
import type { Database } from '../../platform/db/database.js';
import { hasPermission } from '../../platform/auth/actor.js';
import type { RequestContext } from '../../platform/context.js';
import type { SecretBox } from '../../platform/secrets.js';
import { writeAudit } from '../../platform/audit.js';
import { NotFoundError } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import {
  deleteDestinationRow,
  findDestinationRow,
  insertDestinationRow,
  listDeliveries,
  listDestinationRows,
  updateDestinationRow,
  type DestinationRow,
} from './destinations.repo.js';
import type { DestinationDto, DestinationInputT } from './destinations.schemas.js';

export function createDestinationsService(deps: { db: Database; secrets: SecretBox }) {
  const { db, secrets } = deps;

  /** The token is revealed only to callers who could change it anyway. */
  function toDto(row: DestinationRow, revealToken: boolean): DestinationDto {
    const dto = {
      id: row.id,
      organizationId: row.organizationId,
      name: row.name,
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
      type: row.type,
      config: row.config,
      hasToken: row.tokenCiphertext !== null,
    } as DestinationDto;
    if (revealToken && row.tokenCiphertext) dto.token = secrets.decrypt(row.tokenCiphertext);
    return dto;
  }

  /** undefined: not given (keep on update); null: clear; string: set. */
  function tokenOf(input: DestinationInputT): string | null | undefined {
    return (input as { token?: string | null }).token;
  }

  return {
    async list(ctx: RequestContext): Promise<DestinationDto[]> {
      const reveal = hasPermission(ctx.actor, 'destination.manage');
      const rows = await listDestinationRows(db, ctx.actor.organizationId);
      return rows.map((r) => toDto(r, reveal));
    },

    async get(ctx: RequestContext, id: string): Promise<DestinationDto> {
      const row = await findDestinationRow(db, ctx.actor.organizationId, id);
      if (!row) throw new NotFoundError('Output destination');
      return toDto(row, hasPermission(ctx.actor, 'destination.manage'));
    },

    async create(ctx: RequestContext, input: DestinationInputT): Promise<DestinationDto> {
      const now = new Date();
      const token = tokenOf(input);
      const row: DestinationRow = {
        id: uuidv7(),
        organizationId: ctx.actor.organizationId,
        name: input.name,
        type: input.type,
        config: input.config as Record<string, unknown>,
        tokenCiphertext: token ? secrets.encrypt(token) : null,
        createdAt: now,
        updatedAt: now,
      };
      await db.transaction().execute(async (tx) => {
        await insertDestinationRow(tx, row);
        await writeAudit(tx, ctx, { action: 'destination.create', resourceType: 'destination', resourceId: row.id, metadata: { name: row.name, type: row.type, hasToken: !!token } });
      });
      return toDto(row, true);
    },

    /** Replaces name, type and config. An omitted token keeps the stored one; null clears it. */
    async update(ctx: RequestContext, id: string, input: DestinationInputT): Promise<DestinationDto> {
      return db.transaction().execute(async (tx) => {
        const existing = await findDestinationRow(tx, ctx.actor.organizationId, id, true);
        if (!existing) throw new NotFoundError('Output destination');
        const token = tokenOf(input);
        const tokenCiphertext =
          input.type === 'teams' ? null : token === undefined ? existing.tokenCiphertext : token === null ? null : secrets.encrypt(token);
        const row: DestinationRow = { ...existing, name: input.name, type: input.type, config: input.config as Record<string, unknown>, tokenCiphertext, updatedAt: new Date() };
        await updateDestinationRow(tx, row);
        await writeAudit(tx, ctx, {
          action: 'destination.update',
          resourceType: 'destination',
          resourceId: id,
          metadata: { name: row.name, type: row.type, token: token === undefined ? 'kept' : token === null ? 'cleared' : 'replaced' },
        });
        return toDto(row, true);
      });
    },

    async remove(ctx: RequestContext, id: string): Promise<{ success: boolean }> {
      await db.transaction().execute(async (tx) => {
        if (!(await deleteDestinationRow(tx, ctx.actor.organizationId, id))) throw new NotFoundError('Output destination');
        await writeAudit(tx, ctx, { action: 'destination.delete', resourceType: 'destination', resourceId: id });
      });
      return { success: true };
    },

    async deliveries(ctx: RequestContext, id: string, limit: number, offset: number) {
      if (!(await findDestinationRow(db, ctx.actor.organizationId, id))) throw new NotFoundError('Output destination');
      const { rows, totalCount } = await listDeliveries(db, ctx.actor.organizationId, id, limit, offset);
      return {
        deliveries: rows.map((r) => ({ ...r, status: r.status as 'pending' | 'delivered' | 'failed' | 'skipped', createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt) })),
        totalCount,
      };
    },
  };
}

export type DestinationsService = ReturnType<typeof createDestinationsService>;
