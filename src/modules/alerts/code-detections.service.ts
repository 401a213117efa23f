import { uuidv7 } from 'uuidv7';
import type { z } from 'zod';
import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import type { CodeDetectionsTable } from '../../platform/db/schema.js';
import type { Selectable } from 'kysely';
import { writeAudit } from '../../platform/audit.js';
import { ConflictError, NotFoundError } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { withTransaction } from '../../platform/cache/transaction.js';
import { assertEditable, managedColumns, type WriteOptions } from '../../platform/managed.js';
import { createAlert, type AlertDeps } from './alerts.create.js';
import type { CodeDetectionDto, CodeDetectionInput, HitBody } from './code-detections.schemas.js';

type Input = z.infer<typeof CodeDetectionInput>;

function toDto(r: Selectable<CodeDetectionsTable>): CodeDetectionDto {
  return {
    id: r.id,
    organizationId: r.organizationId,
    name: r.name,
    ruleId: r.ruleId,
    description: r.description,
    severity: r.severity,
    logTable: r.logSource && r.logStream ? { source: r.logSource, stream: r.logStream } : null,
    query: r.query,
    managedBy: r.managedBy,
    managedSource: r.managedSource,
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
  };
}

/**
 * Code detections: rules that live outside Rampart (a SIEM, a detection-as-code repository).
 * Rampart knows their name, severity and log table, and turns each reported hit into an alert
 * (deduplicated, routed like any alert, `source.category = detection`).
 */
export function createCodeDetectionsService(deps: { db: Database } & AlertDeps) {
  const { db } = deps;
  const find = async (q: Database, orgId: string, id: string) =>
    q.selectFrom('codeDetections').selectAll().where('organizationId', '=', orgId).where('id', '=', id.toLowerCase()).executeTakeFirst();

  type SavedRoute = { name: string; conditions: { type: string; codeDetectionIds?: string[]; source?: string; stream?: string }[] };
  const savedRoutes = async (orgId: string, q: Database = db) =>
    ((await q.selectFrom('alertRouting').select('routes').where('organizationId', '=', orgId).executeTakeFirst())?.routes ?? []) as SavedRoute[];

  /**
   * Log tables offered to routes are those of the detections. Moving or deleting the last
   * detection of a table that saved routes name would leave routes that cannot be saved again
   * (400 unknown_reference on an unchanged re-PUT): refused with a 409 that says which routes.
   */
  async function keepRoutesValid(orgId: string, row: Selectable<CodeDetectionsTable>, next: { source: string; stream: string } | null, q: Database = db): Promise<void> {
    if (!row.logSource || !row.logStream) return;
    if (next && next.source === row.logSource && next.stream === row.logStream) return;
    const other = await q.selectFrom('codeDetections').select('id').where('organizationId', '=', orgId).where('id', '<>', row.id)
      .where('logSource', '=', row.logSource).where('logStream', '=', row.logStream).executeTakeFirst();
    if (other) return;
    const using = (await savedRoutes(orgId, q)).filter((r) => r.conditions.some((c) => c.type === 'logTable' && c.source === row.logSource && c.stream === row.logStream)).map((r) => `"${r.name}"`);
    if (using.length) throw new ConflictError(`Log table ${row.logSource}/${row.logStream} is used by triage route(s) ${using.join(', ')}; change those routes first (no other detection provides it)`);
  }

  return {
    async list(ctx: RequestContext, limit: number, offset: number) {
      const base = db.selectFrom('codeDetections').where('organizationId', '=', ctx.actor.organizationId);
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('createdAt').orderBy('id').limit(limit).offset(offset).execute(),
        base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { codeDetections: rows.map(toDto), totalCount: Number(count.n) };
    },

    async get(ctx: RequestContext, id: string) {
      const row = await find(db, ctx.actor.organizationId, id);
      if (!row) throw new NotFoundError('Code detection');
      return toDto(row);
    },

    /** `opts`: config apply's transaction and "managed by code" marking (platform/managed.ts). */
    async create(ctx: RequestContext, input: Input, opts?: WriteOptions) {
      const id = uuidv7();
      const now = new Date();
      const q = opts?.tx ?? db;
      await withTransaction(q, async (tx) => {
        await tx
          .insertInto('codeDetections')
          .values({
            id,
            organizationId: ctx.actor.organizationId,
            name: input.name,
            ruleId: input.ruleId ?? null,
            description: input.description ?? '',
            severity: input.severity,
            logSource: input.logTable?.source ?? null,
            logStream: input.logTable?.stream ?? null,
            query: input.query ?? null,
            ...managedColumns(opts),
            createdBy: ctx.actor.userId,
            createdAt: now,
            updatedAt: now,
          })
          .execute();
        await writeAudit(tx, ctx, { action: 'codeDetection.create', resourceType: 'codeDetection', resourceId: id, metadata: { name: input.name } });
      });
      return toDto((await find(q, ctx.actor.organizationId, id))!);
    },

    async update(ctx: RequestContext, id: string, input: Input, opts?: WriteOptions) {
      const q = opts?.tx ?? db;
      const row = await find(q, ctx.actor.organizationId, id);
      if (!row) throw new NotFoundError('Code detection');
      assertEditable(row, 'CodeDetection', row.name, opts);
      await keepRoutesValid(ctx.actor.organizationId, row, input.logTable ?? null, q);
      await withTransaction(q, async (tx) => {
        await tx
          .updateTable('codeDetections')
          .set({
            name: input.name,
            ruleId: input.ruleId ?? null,
            description: input.description ?? '',
            severity: input.severity,
            logSource: input.logTable?.source ?? null,
            logStream: input.logTable?.stream ?? null,
            query: input.query ?? null,
            ...managedColumns(opts),
            updatedAt: new Date(),
          })
          .where('id', '=', row.id)
          .execute();
        await writeAudit(tx, ctx, { action: 'codeDetection.update', resourceType: 'codeDetection', resourceId: row.id });
      });
      return toDto((await find(q, ctx.actor.organizationId, row.id))!);
    },

    /** Refused (409) while a triage route names the detection: the route would silently stop matching. */
    async remove(ctx: RequestContext, id: string, opts?: WriteOptions) {
      const orgId = ctx.actor.organizationId;
      const q = opts?.tx ?? db;
      const row = await find(q, orgId, id);
      if (!row) throw new NotFoundError('Code detection');
      assertEditable(row, 'CodeDetection', row.name, opts);
      const using = (await savedRoutes(orgId, q))
        .filter((r) => r.conditions.some((c) => c.type === 'codeDetection' && c.codeDetectionIds?.includes(row.id)))
        .map((r) => `"${r.name}"`);
      if (using.length) throw new ConflictError(`Code detection is used by triage route(s) ${using.join(', ')}; remove it from them first`);
      await keepRoutesValid(orgId, row, null, q);
      await withTransaction(q, async (tx) => {
        await tx.deleteFrom('codeDetections').where('id', '=', row.id).execute();
        await writeAudit(tx, ctx, { action: 'codeDetection.delete', resourceType: 'codeDetection', resourceId: row.id });
      });
      return { success: true };
    },

    /** A hit reported by a SIEM or pipeline → a new alert, or a duplicate of the open one. */
    async hit(ctx: RequestContext, id: string, body: z.infer<typeof HitBody>) {
      const orgId = ctx.actor.organizationId;
      return db.transaction().execute(async (tx) => {
        const row = await find(tx, orgId, id);
        if (!row) throw new NotFoundError('Code detection');
        const hitId = uuidv7();
        const result = await createAlert(
          tx,
          {
            organizationId: orgId,
            title: body.title ?? row.name,
            description: row.description,
            severity: body.severity ?? row.severity,
            source: { category: 'detection', name: row.name },
            createdBy: 'detection',
            createdByUserId: ctx.actor.userId,
            dedupeKey: body.dedupeKey ? `detection:${row.id}:${body.dedupeKey}` : null,
            payload: body.payload ?? null,
            codeDetectionId: row.id,
            originCodeDetectionHitId: hitId,
            logTable: row.logSource && row.logStream ? { source: row.logSource, stream: row.logStream } : null,
            triage: { kind: 'route', actorUserId: ctx.actor.userId },
          },
          deps,
        );
        await writeAudit(tx, ctx, { action: 'codeDetection.hit', resourceType: 'alert', resourceId: result.alert.id, metadata: { codeDetectionId: row.id, created: result.created } });
        return result;
      });
    },
  };
}

export type CodeDetectionsService = ReturnType<typeof createCodeDetectionsService>;
