import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { writeAudit } from '../../platform/audit.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { closedAlertsForCases, type ClosedAlertCase } from '../alerts/index.js';
import { appendCases, datasetNameTaken, deleteCases, findDataset, labelCounts, listCases, listDatasets, touchDataset, type CaseRow, type DatasetRow, type LabelCounts } from './datasets.repo.js';
import { labelOfClosedStatus, parseJsonl } from './evaluations.fns.js';
import { CaseInput, type CaseDto, type CaseInputT, type DatasetCreateT, type DatasetDto, type FromAlertsRequest } from './evaluations.schemas.js';

const MAX_JSONL_CASES = 5000;

function toCaseDto(c: CaseRow): CaseDto {
  return {
    id: c.id,
    alert: c.alert,
    ...(c.alert === null ? { input: c.input } : {}),
    expected: c.expected as CaseDto['expected'],
    tags: c.tags,
    sourceAlertId: c.sourceAlertId,
  };
}

function summaryOf(d: DatasetRow, labels: LabelCounts) {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    caseCount: labels.escalate + labels.false_positive + labels.benign + labels.unlabelled,
    labels,
    createdAt: iso(d.createdAt)!,
    updatedAt: iso(d.updatedAt)!,
  };
}

/** A closed alert as a case: its fields, payload and timeline up to triage; the person's disposition as the label. */
function caseOfAlert(c: ClosedAlertCase): CaseInputT & { sourceAlertId: string; sourceDisplayId: string } {
  const { alert } = c;
  const label = labelOfClosedStatus(alert.status);
  return {
    alert: {
      title: alert.title,
      description: alert.description,
      severity: alert.severity,
      source: { category: alert.source.category, name: alert.source.name },
      payload: alert.payload ?? null,
      timeline: c.timeline.map((e) => ({ kind: e.kind, body: e.body, at: e.createdAt })),
      ...(alert.externalRef ? { externalRef: alert.externalRef } : {}),
      ...(alert.dedupeKey ? { dedupeKey: alert.dedupeKey } : {}),
    },
    expected: label ? { disposition: label } : {},
    tags: ['from-alert', alert.displayId],
    sourceAlertId: alert.id,
    sourceDisplayId: alert.displayId,
  };
}

export function createDatasetsService(deps: { db: Database }) {
  const { db } = deps;

  async function mustFind(q: Queryable, ctx: RequestContext, id: string, forUpdate = false): Promise<DatasetRow> {
    const row = await findDataset(q, ctx.actor.organizationId, id, forUpdate);
    if (!row) throw new NotFoundError('Dataset');
    return row;
  }

  async function checkName(q: Queryable, ctx: RequestContext, name: string, exceptId: string | null): Promise<void> {
    if (await datasetNameTaken(q, ctx.actor.organizationId, name, exceptId)) throw new ConflictError(`A dataset named "${name}" already exists`);
  }

  async function detail(q: Queryable, row: DatasetRow): Promise<DatasetDto> {
    const [labels, cases] = await Promise.all([labelCounts(q, row.id), listCases(q, row.id)]);
    return { ...summaryOf(row, labels), cases: cases.map(toCaseDto) };
  }

  /** Adds cases and answers what was added and skipped, with the dataset's new size. */
  async function addCases(ctx: RequestContext, id: string, cases: Array<CaseInputT & { sourceAlertId?: string; sourceDisplayId?: string }>, skipped: Array<{ ref: string; reason: string }>, action: string) {
    return db.transaction().execute(async (tx) => {
      await mustFind(tx, ctx, id, true);
      const { added, addedAlertIds } = await appendCases(tx, ctx.actor.organizationId, id, cases.map(({ sourceDisplayId: _, ...c }) => c));
      // Each alert already in the dataset by its display id (RMP-42), as a person names it.
      for (const c of cases) {
        if (c.sourceAlertId && !addedAlertIds.has(c.sourceAlertId)) skipped.push({ ref: c.sourceDisplayId ?? c.sourceAlertId, reason: 'already in the dataset' });
      }
      await touchDataset(tx, id);
      await writeAudit(tx, ctx, { action, resourceType: 'evaluationDataset', resourceId: id, metadata: { added } });
      const labels = await labelCounts(tx, id);
      return { added, skipped, caseCount: labels.escalate + labels.false_positive + labels.benign + labels.unlabelled };
    });
  }

  return {
    async list(ctx: RequestContext, limit: number, offset: number) {
      const { rows, total } = await listDatasets(db, ctx.actor.organizationId, limit, offset);
      return { datasets: rows.map((r) => summaryOf(r, r.labels)), totalCount: total };
    },

    async get(ctx: RequestContext, id: string): Promise<DatasetDto> {
      return detail(db, await mustFind(db, ctx, id));
    },

    async create(ctx: RequestContext, input: DatasetCreateT): Promise<DatasetDto> {
      return db.transaction().execute(async (tx) => {
        await checkName(tx, ctx, input.name, null);
        const now = new Date();
        const row = await tx
          .insertInto('evaluationDatasets')
          .values({ id: uuidv7(), organizationId: ctx.actor.organizationId, name: input.name, description: input.description, createdBy: ctx.actor.userId, createdAt: now, updatedAt: now })
          .returningAll()
          .executeTakeFirstOrThrow();
        await appendCases(tx, ctx.actor.organizationId, row.id, input.cases);
        await writeAudit(tx, ctx, { action: 'evaluationDataset.create', resourceType: 'evaluationDataset', resourceId: row.id, metadata: { name: row.name, cases: input.cases.length } });
        return detail(tx, row);
      });
    },

    /** Replaces name, description and every case (evaluations already run keep their copies of the cases). */
    async update(ctx: RequestContext, id: string, input: DatasetCreateT): Promise<DatasetDto> {
      return db.transaction().execute(async (tx) => {
        await mustFind(tx, ctx, id, true);
        await checkName(tx, ctx, input.name, id);
        const row = await tx
          .updateTable('evaluationDatasets')
          .set({ name: input.name, description: input.description, updatedAt: new Date() })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await deleteCases(tx, id);
        await appendCases(tx, ctx.actor.organizationId, id, input.cases);
        await writeAudit(tx, ctx, { action: 'evaluationDataset.update', resourceType: 'evaluationDataset', resourceId: id, metadata: { name: row.name, cases: input.cases.length } });
        return detail(tx, row);
      });
    },

    async remove(ctx: RequestContext, id: string): Promise<{ success: boolean }> {
      await db.transaction().execute(async (tx) => {
        const row = await mustFind(tx, ctx, id, true);
        await tx.deleteFrom('evaluationDatasets').where('id', '=', id).execute();
        await writeAudit(tx, ctx, { action: 'evaluationDataset.delete', resourceType: 'evaluationDataset', resourceId: id, metadata: { name: row.name } });
      });
      return { success: true };
    },

    /** JSONL, one case per line; any invalid line refuses the whole import (400 naming the lines). */
    async importJsonl(ctx: RequestContext, id: string, text: string) {
      await mustFind(db, ctx, id);
      const { values, errors } = parseJsonl(text);
      const issues = errors.map((e) => ({ path: `line ${e.line}`, message: e.message, code: 'invalid_json', location: 'body' as const }));
      const cases: CaseInputT[] = [];
      for (const { line, value } of values) {
        const parsed = CaseInput.safeParse(value);
        if (parsed.success) cases.push(parsed.data);
        else for (const i of parsed.error.issues.slice(0, 5)) issues.push({ path: `line ${line}${i.path.length ? `.${i.path.join('.')}` : ''}`, message: i.message, code: i.code, location: 'body' });
      }
      if (values.length + errors.length > MAX_JSONL_CASES) throw ValidationError.single('body', `at most ${MAX_JSONL_CASES} cases per import`, 'too_big');
      if (values.length === 0 && errors.length === 0) throw ValidationError.single('body', 'no cases: give one JSON case per line', 'too_small');
      if (issues.length) throw new ValidationError(issues.slice(0, 50));
      return addCases(ctx, id, cases, [], 'evaluationDataset.import');
    },

    /** Closed alerts as labelled cases (alert.read needed too, checked by the route). */
    async fromAlerts(ctx: RequestContext, id: string, req: z.infer<typeof FromAlertsRequest>) {
      await mustFind(db, ctx, id);
      const sel = req.alertIds ? { alertIds: req.alertIds } : { filter: req.filter! };
      const { found, skipped } = await closedAlertsForCases(db, ctx.actor.organizationId, sel);
      return addCases(ctx, id, found.map(caseOfAlert), skipped, 'evaluationDataset.fromAlerts');
    },
  };
}

export type DatasetsService = ReturnType<typeof createDatasetsService>;
