import { uuidv7 } from 'uuidv7';
import type { z } from 'zod';
import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import type { CodeDetectionsTable } from './alerts.tables.js';
import { sql, type Selectable } from 'kysely';
import { writeAudit } from '../../platform/audit.js';
import { ConflictError, NotFoundError, ValidationError, type ValidationIssue } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { withTransaction } from '../../platform/cache/transaction.js';
import { assertEditable, managedColumns, type WriteOptions } from '../../platform/managed.js';
import { loadAttackCatalog, SHIPPED_ATTACK_VERSION, TACTICS, type AttackCatalog } from '../intel/index.js';
import { sigmaTechniqueTags } from './sigma-attack-tags.fns.js';
import { createAlert, type AlertDeps } from './alerts.create.js';
import { detectionAlertOrigin } from './code-detections.events.js';
import type { CodeDetectionDto, CodeDetectionInput, HitBody, ImportBody, ImportResult } from './code-detections.schemas.js';
import { parseSigmaRules, type Vocabulary } from './sigma-import.fns.js';
import { compileSigma, type CompiledUnit } from './sigma/sigma-compile.fns.js';
import { ConversionError, type Target } from './sigma/sigma-convert.fns.js';
import { convertUnit } from './sigma/sigma-convert-correlation.fns.js';
import { formatNames, pipelineNames } from './sigma/sigma-pipelines.fns.js';
import { UnprocessableError } from '../../platform/http/errors.js';
import { runSavedTests } from './code-detection-tests.fns.js';

type Input = z.infer<typeof CodeDetectionInput>;
type Stored = Omit<Input, 'severity' | 'status'> & Pick<Selectable<CodeDetectionsTable>, 'severity' | 'status'>;

/** The ATT&CK vocabulary detections are checked against: the catalog's techniques, and its tactics with ATT&CK's own. */
function vocabularyOf(catalog: AttackCatalog): Vocabulary {
  const tactics = new Set<string>(TACTICS.map((t) => t.shortname));
  for (const t of catalog.techniques.values()) for (const tactic of t.tactics) tactics.add(tactic);
  return { isTechnique: (id) => catalog.techniques.has(id), isTactic: (s) => tactics.has(s), catalogVersion: SHIPPED_ATTACK_VERSION };
}

/** An id the catalog does not know passes when the detection's own Sigma rule names it (newer than the catalog: sigma-attack-tags.fns.ts). */
function vocabularyIssues(input: Pick<Input, 'attackTechniques' | 'attackTactics' | 'query'>, vocab: Vocabulary): ValidationIssue[] {
  const named = sigmaTechniqueTags(input.query);
  return [
    ...input.attackTechniques.flatMap((id, i) => (vocab.isTechnique(id) || named.has(id) ? [] : [{ path: `attackTechniques.${i}`, message: `${id} is not an ATT&CK technique of the catalog`, code: 'unknown_reference', location: 'body' as const }])),
    ...input.attackTactics.flatMap((t, i) => (vocab.isTactic(t) ? [] : [{ path: `attackTactics.${i}`, message: `${t} is not an ATT&CK tactic shortname (e.g. execution, defense-evasion)`, code: 'unknown_reference', location: 'body' as const }])),
  ];
}

/** The stored columns of a detection (create and replace write the same). */
function columns(input: Stored) {
  return {
    name: input.name,
    ruleId: input.ruleId ?? null,
    description: input.description ?? '',
    severity: input.severity,
    logSource: input.logTable?.source ?? null,
    logStream: input.logTable?.stream ?? null,
    query: input.query ?? null,
    attackTechniques: [...new Set(input.attackTechniques)].sort(),
    attackTactics: [...new Set(input.attackTactics)],
    status: input.status,
    tags: [...new Set(input.tags)],
  };
}

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
    attackTechniques: r.attackTechniques,
    attackTactics: r.attackTactics,
    status: r.status,
    tags: r.tags,
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

  async function checkVocabulary(input: Input): Promise<void> {
    if (input.attackTechniques.length === 0 && input.attackTactics.length === 0) return;
    const issues = vocabularyIssues(input, vocabularyOf(await loadAttackCatalog(db)));
    if (issues.length) throw new ValidationError(issues);
  }

  /** The detection's Sigma rule compiled; 422 when it has none or the engine refuses it. */
  async function sigmaOf(ctx: RequestContext, id: string, forConversion = false): Promise<CompiledUnit> {
    const row = await find(db, ctx.actor.organizationId, id);
    if (!row) throw new NotFoundError('Code detection');
    if (!row.query || !/^\s*detection\s*:/m.test(row.query)) throw new UnprocessableError('This code detection has no Sigma rule (its query is not Sigma YAML)');
    const unit = compileSigma(row.query, { forConversion });
    const refused = unit.refusals[0];
    if (refused) throw new UnprocessableError(`The Sigma rule is refused: ${refused.construct} (line ${refused.line ?? '?'}): ${refused.message}`, { construct: refused.construct, line: refused.line });
    if (unit.rules.length === 0) throw new UnprocessableError('The Sigma text holds no detection rule');
    return unit;
  }

  return {
    /** GET /api/code-detections/{id}/query: the rule in a SIEM's language. */
    async query(ctx: RequestContext, id: string, target: Target, pipeline: string | undefined, format?: string) {
      const valid = pipelineNames(target);
      if (pipeline && !valid.includes(pipeline)) {
        throw new UnprocessableError(`Unknown pipeline ${pipeline} for ${target}: valid pipelines are ${valid.length ? valid.join(', ') : 'none'}`, { construct: `pipeline ${pipeline}`, pipelines: valid });
      }
      if (format && format !== 'default' && !formatNames(target, pipeline).includes(format)) {
        throw new UnprocessableError(`Format ${format} needs a pipeline that writes it (splunk_cim_data_model for data_model)`, { construct: `format ${format}` });
      }
      const unit = await sigmaOf(ctx, id, true);
      try {
        return { target, pipeline: pipeline ?? null, queries: convertUnit(unit, target, pipeline, format) };
      } catch (err) {
        if (err instanceof ConversionError) throw new UnprocessableError(`${target} cannot express ${err.construct}: ${err.message}`, { construct: err.construct });
        throw err;
      }
    },

    /** POST /api/code-detections/{id}/test: events run through the rule, nothing stored. */
    async test(ctx: RequestContext, id: string, events: Array<Record<string, unknown>>) {
      const unit = await sigmaOf(ctx, id);
      return {
        results: events.map((event, index) => {
          const explained = unit.rules.map((r) => r.explain(event));
          return { index, matched: explained.some((e) => e.matched), matchedSelections: [...new Set(explained.flatMap((e) => e.matchedSelections))] };
        }),
      };
    },

    /** GET /api/code-detections/{id}/tests: the tests its Sigma text carries, run against the stored rule. */
    async savedTests(ctx: RequestContext, id: string) {
      const unit = await sigmaOf(ctx, id);
      const row = await find(db, ctx.actor.organizationId, id);
      return runSavedTests(unit, row?.query ?? '');
    },

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
      await checkVocabulary(input);
      const id = uuidv7();
      const now = new Date();
      const q = opts?.tx ?? db;
      await withTransaction(q, async (tx) => {
        await tx
          .insertInto('codeDetections')
          .values({ id, organizationId: ctx.actor.organizationId, ...columns(input), ...managedColumns(opts), createdBy: ctx.actor.userId, createdAt: now, updatedAt: now })
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
      await checkVocabulary(input);
      await keepRoutesValid(ctx.actor.organizationId, row, input.logTable ?? null, q);
      await withTransaction(q, async (tx) => {
        await tx.updateTable('codeDetections').set({ ...columns(input), ...managedColumns(opts), updatedAt: new Date() }).where('id', '=', row.id).execute();
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

    /**
     * Sigma rules in (one, a multi-document YAML, or a JSON array): each valid rule creates a
     * detection or replaces the one with its id (without an id: with its title and no rule id).
     * Invalid rules are answered one error each and do not stop the others. One import at a time
     * per organization (advisory lock), so two imports of the same rule cannot both create it.
     */
    async importRules(ctx: RequestContext, body: z.infer<typeof ImportBody>): Promise<z.infer<typeof ImportResult>> {
      const orgId = ctx.actor.organizationId;
      const parsed = parseSigmaRules(body.content, vocabularyOf(await loadAttackCatalog(db)));
      if (parsed.length === 0) throw ValidationError.single('content', 'No Sigma rule in content');
      const result: z.infer<typeof ImportResult> = { created: [], updated: [], errors: [], warnings: [] };
      const seen = new Set<string>();
      await db.transaction().execute(async (tx) => {
        await sql`SELECT pg_advisory_xact_lock(hashtext(${`code-detections-import:${orgId}`}))`.execute(tx);
        for (const rule of parsed) {
          const ref = { index: rule.index, ruleId: rule.ruleId, title: rule.title };
          const d = rule.detection;
          if (!d) {
            result.errors.push({ ...ref, message: rule.error ?? 'Not a valid Sigma rule' });
            continue;
          }
          const key = d.ruleId ?? `title:${d.name}`;
          if (seen.has(key)) {
            result.errors.push({ ...ref, message: d.ruleId ? `Rule id ${d.ruleId} appears twice in this import` : `Title "${d.name}" appears twice in this import (rules without an id are matched by title)` });
            continue;
          }
          seen.add(key);
          let existing = tx.selectFrom('codeDetections').selectAll().where('organizationId', '=', orgId);
          existing = d.ruleId ? existing.where('ruleId', '=', d.ruleId) : existing.where('ruleId', 'is', null).where('name', '=', d.name);
          const row = await existing.orderBy('createdAt').orderBy('id').limit(1).executeTakeFirst();
          if (row) {
            // A detection managed by code changes through its file (409 through the API, an error here).
            if (row.managedBy === 'code') {
              result.errors.push({ ...ref, message: `Code detection "${row.name}" is managed by code (document CodeDetection/${row.name}${row.managedSource ? ` from source ${row.managedSource}` : ''}): change its file and apply it` });
              continue;
            }
            try {
              await keepRoutesValid(orgId, row, d.logTable);
            } catch (err) {
              if (!(err instanceof ConflictError)) throw err;
              result.errors.push({ ...ref, message: err.message });
              continue;
            }
            await tx.updateTable('codeDetections').set({ ...columns(d), updatedAt: new Date() }).where('id', '=', row.id).execute();
            await writeAudit(tx, ctx, { action: 'codeDetection.update', resourceType: 'codeDetection', resourceId: row.id, metadata: { import: 'sigma' } });
            result.updated.push({ index: rule.index, id: row.id, ruleId: d.ruleId, name: d.name });
          } else {
            const id = uuidv7();
            const now = new Date();
            await tx.insertInto('codeDetections').values({ id, organizationId: orgId, ...columns(d), createdBy: ctx.actor.userId, createdAt: now, updatedAt: now }).execute();
            await writeAudit(tx, ctx, { action: 'codeDetection.create', resourceType: 'codeDetection', resourceId: id, metadata: { name: d.name, import: 'sigma' } });
            result.created.push({ index: rule.index, id, ruleId: d.ruleId, name: d.name });
          }
          if (rule.warning) result.warnings.push({ ...ref, message: rule.warning });
        }
      });
      return result;
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
            ...detectionAlertOrigin(row),
            createdByUserId: ctx.actor.userId,
            dedupeKey: body.dedupeKey ? `detection:${row.id}:${body.dedupeKey}` : null,
            payload: body.payload ?? null,
            originCodeDetectionHitId: hitId,
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
