import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import { containsPattern } from '../../platform/db/like.js';
import { softwareKey, type AssetInput } from './inventory.fns.js';

export interface AssetRow {
  id: string;
  organizationId: string;
  identifier: string;
  kind: string;
  platform: string | null;
  internetFacing: boolean;
  criticality: string;
  source: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface SoftwareRow {
  assetId: string;
  vendor: string;
  product: string;
  version: string | null;
  cpe: string | null;
  purl: string | null;
}

export async function listAssetRows(db: Queryable, organizationId: string, opts: { limit: number; offset: number; search?: string }) {
  let q = db.selectFrom('huntAssets').where('organizationId', '=', organizationId);
  if (opts.search) {
    const like = containsPattern(opts.search);
    q = q.where(sql<boolean>`(identifier ILIKE ${like} OR EXISTS (SELECT 1 FROM hunt_asset_software s WHERE s.asset_id = hunt_assets.id AND s.product ILIKE ${like}))`);
  }
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('identifier').limit(opts.limit).offset(opts.offset).execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as AssetRow[], totalCount: Number(count.n) };
}

export async function findAssetRow(db: Queryable, organizationId: string, id: string): Promise<AssetRow | undefined> {
  return (await db.selectFrom('huntAssets').selectAll().where('organizationId', '=', organizationId).where('id', '=', id).executeTakeFirst()) as AssetRow | undefined;
}

export async function softwareOf(db: Queryable, assetIds: string[]): Promise<Map<string, SoftwareRow[]>> {
  const out = new Map<string, SoftwareRow[]>();
  if (assetIds.length === 0) return out;
  const rows = await db.selectFrom('huntAssetSoftware').select(['assetId', 'vendor', 'product', 'version', 'cpe', 'purl']).where('assetId', 'in', assetIds).orderBy('assetId').orderBy('position').execute();
  for (const r of rows) {
    const list = out.get(r.assetId) ?? [];
    list.push(r);
    out.set(r.assetId, list);
  }
  return out;
}

/**
 * Creates or replaces assets by identifier (imports are idempotent: the same file twice gives
 * the same inventory). Given fields overwrite; the software list is replaced. Returns which
 * identifiers were created and which updated, and the ids.
 */
export async function upsertAssets(tx: Queryable, organizationId: string, assets: AssetInput[], source: string) {
  const now = new Date();
  const created: string[] = [];
  const updated: string[] = [];
  const ids: string[] = [];
  for (const a of assets) {
    const existing = await tx.selectFrom('huntAssets').selectAll().where('organizationId', '=', organizationId).where('identifier', '=', a.identifier).forUpdate().executeTakeFirst();
    const id = existing?.id ?? uuidv7();
    if (existing) {
      await tx.updateTable('huntAssets').set({
        kind: a.kind ?? existing.kind,
        platform: a.platform === undefined ? existing.platform : a.platform,
        internetFacing: a.internetFacing ?? existing.internetFacing,
        criticality: a.criticality ?? existing.criticality,
        source,
        updatedAt: now,
      }).where('id', '=', id).execute();
      await tx.deleteFrom('huntAssetSoftware').where('assetId', '=', id).execute();
      updated.push(a.identifier);
    } else {
      await tx.insertInto('huntAssets').values({ id, organizationId, identifier: a.identifier, kind: a.kind ?? 'other', platform: a.platform ?? null, internetFacing: a.internetFacing ?? false, criticality: a.criticality ?? 'medium', source, createdAt: now, updatedAt: now }).execute();
      created.push(a.identifier);
    }
    ids.push(id);
    await insertSoftware(tx, organizationId, id, a);
  }
  return { created, updated, ids };
}

export async function insertSoftware(tx: Queryable, organizationId: string, assetId: string, a: AssetInput): Promise<void> {
  const rows = a.software.map((s, position) => ({
    id: uuidv7(),
    organizationId,
    assetId,
    position,
    vendor: s.vendor ?? '',
    product: s.product,
    version: s.version ?? null,
    cpe: s.cpe ?? null,
    purl: s.purl ?? null,
    productKey: softwareKey(s),
  }));
  // Chunks keep each statement under PostgreSQL's bind-parameter limit for big SBOMs.
  for (let i = 0; i < rows.length; i += 2000) await tx.insertInto('huntAssetSoftware').values(rows.slice(i, i + 2000)).execute();
}

export async function deleteAssetRow(tx: Queryable, organizationId: string, id: string): Promise<boolean> {
  const r = await tx.deleteFrom('huntAssets').where('organizationId', '=', organizationId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
