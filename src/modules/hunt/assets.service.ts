import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { writeAudit } from '../../platform/audit.js';
import { AppError, NotFoundError, ConflictError, ValidationError } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { normalizeIndicator, recordSightedIndicators, refang } from '../intel/index.js';
import { deleteAssetRow, findAssetRow, listAssetRows, softwareOf, upsertAssets, type AssetRow } from './assets.repo.js';
import { NotTheFormat, overLimit, parseCycloneDx, parseInventoryCsv, parseOsquery, type Parsed } from './importers.fns.js';
import { enqueueReassess } from './hunt.jobs.js';
import type { z } from 'zod';
import type { AssetInputT, ImportInput, SightingsInput } from './hunt.schemas.js';

/** Inventory (assets and their software) and sightings. Every change enqueues a reassessment. */
export function createAssetsService(deps: { db: Database }) {
  const { db } = deps;

  async function dtos(rows: AssetRow[]) {
    const sw = await softwareOf(db, rows.map((r) => r.id));
    return rows.map((r) => ({
      id: r.id, organizationId: r.organizationId, identifier: r.identifier, kind: r.kind, platform: r.platform, internetFacing: r.internetFacing,
      criticality: r.criticality, source: r.source, createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt),
      software: (sw.get(r.id) ?? []).map((s) => ({ vendor: s.vendor, product: s.product, version: s.version, cpe: s.cpe, purl: s.purl })),
    }));
  }

  async function get(organizationId: string, id: string) {
    const row = await findAssetRow(db, organizationId, id);
    if (!row) throw new NotFoundError('Asset');
    return (await dtos([row]))[0]!;
  }

  return {
    async list(ctx: RequestContext, q: { limit: number; offset: number; search?: string }) {
      const { rows, totalCount } = await listAssetRows(db, ctx.actor.organizationId, q);
      return { assets: await dtos(rows), totalCount };
    },
    get: (ctx: RequestContext, id: string) => get(ctx.actor.organizationId, id),

    async create(ctx: RequestContext, input: AssetInputT) {
      const org = ctx.actor.organizationId;
      const id = await db.transaction().execute(async (tx) => {
        const exists = await tx.selectFrom('huntAssets').select('id').where('organizationId', '=', org).where('identifier', '=', input.identifier).executeTakeFirst();
        if (exists) throw new ConflictError(`An asset with identifier ${JSON.stringify(input.identifier)} already exists`);
        const { ids } = await upsertAssets(tx, org, [input], 'api');
        await enqueueReassess(tx, { organizationId: org, trigger: 'inventory_change' });
        await writeAudit(tx, ctx, { action: 'asset.create', resourceType: 'asset', resourceId: ids[0]!, metadata: { identifier: input.identifier } });
        return ids[0]!;
      });
      return get(org, id);
    },

    async update(ctx: RequestContext, id: string, input: AssetInputT) {
      const org = ctx.actor.organizationId;
      await db.transaction().execute(async (tx) => {
        const existing = await findAssetRow(tx, org, id);
        if (!existing) throw new NotFoundError('Asset');
        if (existing.identifier !== input.identifier) {
          const clash = await tx.selectFrom('huntAssets').select('id').where('organizationId', '=', org).where('identifier', '=', input.identifier).executeTakeFirst();
          if (clash) throw new ConflictError(`An asset with identifier ${JSON.stringify(input.identifier)} already exists`);
          await tx.updateTable('huntAssets').set({ identifier: input.identifier }).where('id', '=', id).execute();
        }
        await upsertAssets(tx, org, [input], 'api');
        await enqueueReassess(tx, { organizationId: org, trigger: 'inventory_change' });
        await writeAudit(tx, ctx, { action: 'asset.update', resourceType: 'asset', resourceId: id, metadata: { identifier: input.identifier } });
      });
      return get(org, id);
    },

    async remove(ctx: RequestContext, id: string) {
      const org = ctx.actor.organizationId;
      await db.transaction().execute(async (tx) => {
        if (!(await deleteAssetRow(tx, org, id))) throw new NotFoundError('Asset');
        await enqueueReassess(tx, { organizationId: org, trigger: 'inventory_change' });
        await writeAudit(tx, ctx, { action: 'asset.delete', resourceType: 'asset', resourceId: id });
      });
      return { success: true };
    },

    async import(ctx: RequestContext, input: z.infer<typeof ImportInput>) {
      const org = ctx.actor.organizationId;
      const parsed = parseImport(input);
      const tooMuch = overLimit(parsed);
      if (tooMuch) throw new AppError(413, tooMuch);
      if (parsed.assets.length === 0) return { created: 0, updated: 0, errors: parsed.errors };
      const result = await db.transaction().execute(async (tx) => {
        const r = await upsertAssets(tx, org, parsed.assets, input.format);
        await enqueueReassess(tx, { organizationId: org, trigger: 'inventory_change' });
        await writeAudit(tx, ctx, { action: 'asset.import', resourceType: 'asset', resourceId: null, metadata: { format: input.format, created: r.created.length, updated: r.updated.length, errors: parsed.errors.length } });
        return r;
      });
      return { created: result.created.length, updated: result.updated.length, errors: parsed.errors };
    },

    /**
     * Bulk sightings from a log pipeline. Values are refanged and normalized like intel
     * indicators; threats whose indicators match are reassessed (trigger `sighting`) by a job
     * enqueued in the same transaction.
     */
    async sightings(ctx: RequestContext, input: z.infer<typeof SightingsInput>) {
      const org = ctx.actor.organizationId;
      const now = new Date();
      const rows = input.sightings.map((s) => {
        const value = refang(s.value.trim());
        const type: SightingType = s.type ?? guessType(value);
        return { id: uuidv7(), organizationId: org, type, value, normalizedValue: normalizeIndicator(type, value), source: s.source, assetIdentifier: s.assetIdentifier ?? null, observedAt: s.observedAt ? new Date(s.observedAt) : now, createdAt: now };
      });
      return db.transaction().execute(async (tx) => {
        for (let i = 0; i < rows.length; i += 1000) await tx.insertInto('huntSightings').values(rows.slice(i, i + 1000)).execute();
        const values = [...new Set(rows.map((r) => r.normalizedValue))];
        const { rows: hits } = await sql<{ threatId: string; matched: number }>`
          SELECT DISTINCT l.threat_id AS "threatId" FROM intel_indicators i JOIN hunt_threat_items l ON l.item_id = i.item_id
          WHERE i.organization_id = ${org} AND i.normalized_value = ANY(${values}::text[])`.execute(tx);
        const { rows: m } = await sql<{ v: string }>`SELECT DISTINCT normalized_value AS v FROM intel_indicators WHERE organization_id = ${org} AND normalized_value = ANY(${values}::text[])`.execute(tx);
        const matched = new Set(m.map((r) => r.v));
        const matchedSightings = rows.filter((r) => matched.has(r.normalizedValue)).length;
        // A sighted indicator was seen: it is `found` on /iocs, not `unchecked`.
        if (matched.size) await recordSightedIndicators(tx, org, rows.filter((r) => matched.has(r.normalizedValue)), ctx.actor.userId);
        const threatIds = hits.map((h) => h.threatId);
        for (let i = 0; i < threatIds.length; i += 5000) await enqueueReassess(tx, { organizationId: org, trigger: 'sighting', threatIds: threatIds.slice(i, i + 5000) });
        await writeAudit(tx, ctx, { action: 'sighting.report', resourceType: 'sighting', resourceId: null, metadata: { count: rows.length, matched: matchedSightings, threats: threatIds.length } });
        return { accepted: rows.length, matchedIndicators: matchedSightings, reassessedThreats: threatIds.length };
      });
    },
  };
}

/** The import's assets and row errors; content that is not the format at all is a 400 naming where. */
function parseImport(input: z.infer<typeof ImportInput>): Parsed {
  try {
    if (input.format === 'csv') return parseInventoryCsv(input.content);
    if (input.format === 'cyclonedx') return parseCycloneDx(input.content, input.assetIdentifier);
    return parseOsquery(input.content, input.assetIdentifier);
  } catch (err) {
    if (err instanceof NotTheFormat) throw ValidationError.single(err.path, err.message, 'invalid_import');
    throw err;
  }
}

type SightingType = NonNullable<z.infer<typeof SightingsInput>['sightings'][number]['type']>;

/** The type of a sighting sent without one, from the value's shape. */
export function guessType(v: string): SightingType {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(v)) return 'ipv4';
  if (/^[0-9a-f:]+$/i.test(v) && v.includes(':')) return 'ipv6';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return 'url';
  if (/^[0-9a-f]{32}$/i.test(v)) return 'md5';
  if (/^[0-9a-f]{40}$/i.test(v)) return 'sha1';
  if (/^[0-9a-f]{64}$/i.test(v)) return 'sha256';
  if (/^[0-9a-f]{128}$/i.test(v)) return 'sha512';
  if (/^[^@\s]+@[^@\s]+$/.test(v)) return 'email';
  if (/^([a-z0-9-]+\.)+[a-z]{2,}$/i.test(v)) return 'domain';
  return 'filename';
}
