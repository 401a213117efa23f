import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../platform/db/database.js';
import type { BlocklistEntriesTable } from './blocklists.tables.js';
import { uuidv5 } from '../intel-out/index.js';
import type { BlockableType } from './blocklists.fns.js';
import type { BlocklistEntryDto } from './blocklists.schemas.js';

/** SQL over the module's own tables (blocklists, blocklist_entries, blocklist_allowlist), always scoped by organization. */

export interface BlocklistRow {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  indicatorTypes: string[];
  defaultTtlSeconds: number | null;
  createdAt: Date;
  updatedAt: Date;
  activeEntries: number;
}

const LIST_COLUMNS = ['b.id', 'b.organizationId', 'b.name', 'b.description', 'b.indicatorTypes', 'b.defaultTtlSeconds', 'b.createdAt', 'b.updatedAt'] as const;

/** Entries that have not expired at `now` (the database's clock: one clock for every process). */
const active = sql<boolean>`(e.expires_at IS NULL OR e.expires_at > now())`;

function listsQuery(db: Queryable, orgId: string) {
  return db
    .selectFrom('blocklists as b')
    .select(LIST_COLUMNS)
    .select((eb) =>
      eb.selectFrom('blocklistEntries as e').whereRef('e.blocklistId', '=', 'b.id').where(active).select(sql<string>`count(*)`.as('n')).as('activeEntries'),
    )
    .where('b.organizationId', '=', orgId);
}

const withCount = <T extends { activeEntries: string | null }>(r: T) => ({ ...r, activeEntries: Number(r.activeEntries ?? 0) });

export async function listBlocklists(db: Queryable, orgId: string, limit: number, offset: number): Promise<{ rows: BlocklistRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    listsQuery(db, orgId).orderBy('b.name').limit(limit).offset(offset).execute(),
    db.selectFrom('blocklists').select(sql<string>`count(*)`.as('n')).where('organizationId', '=', orgId).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map(withCount), total: Number(count.n) };
}

export async function findBlocklist(db: Queryable, orgId: string, id: string): Promise<BlocklistRow | undefined> {
  const row = await listsQuery(db, orgId).where('b.id', '=', id).executeTakeFirst();
  return row && withCount(row);
}

export async function findBlocklistByName(db: Queryable, orgId: string, name: string): Promise<BlocklistRow | undefined> {
  const row = await listsQuery(db, orgId).where('b.name', '=', name).executeTakeFirst();
  return row && withCount(row);
}

/** The lists of an organization holding a type (the tools' default list when only one does). */
export async function blocklistsForType(db: Queryable, orgId: string, type: string): Promise<Array<{ id: string; name: string }>> {
  return db.selectFrom('blocklists').select(['id', 'name']).where('organizationId', '=', orgId).where(sql<boolean>`${type} = ANY (indicator_types)`).orderBy('name').execute();
}

export async function insertBlocklist(db: Queryable, row: { organizationId: string; name: string; description: string; indicatorTypes: string[]; defaultTtlSeconds: number | null; createdBy: string | null }): Promise<string> {
  const id = uuidv7();
  await db.insertInto('blocklists').values({ id, ...row }).execute();
  return id;
}

export async function updateBlocklist(db: Queryable, orgId: string, id: string, change: { name?: string; description?: string; indicatorTypes?: string[]; defaultTtlSeconds?: number | null }): Promise<boolean> {
  const r = await db.updateTable('blocklists').set({ ...change, updatedAt: new Date() }).where('organizationId', '=', orgId).where('id', '=', id).executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

export async function deleteBlocklist(db: Queryable, orgId: string, id: string): Promise<boolean> {
  const r = await db.deleteFrom('blocklists').where('organizationId', '=', orgId).where('id', '=', id).executeTakeFirst();
  return r.numDeletedRows > 0n;
}

type EntryRow = Pick<BlocklistEntriesTable, 'type' | 'value' | 'addedByType' | 'addedByUserId' | 'addedByRunId' | 'addedByAgentId' | 'alertId'> & {
  id: string;
  blocklistId: string;
  reason: string;
  expiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

const ENTRY_COLUMNS = ['e.id', 'e.blocklistId', 'e.type', 'e.value', 'e.reason', 'e.expiresAt', 'e.addedByType', 'e.addedByUserId', 'e.addedByRunId', 'e.addedByAgentId', 'e.alertId', 'e.createdAt', 'e.updatedAt'] as const;

/** The entry columns unqualified, for `returning` of an insert (which takes no alias). */
const RETURNED = ENTRY_COLUMNS.map((c) => c.slice(2) as StripE<typeof c>);
type StripE<T extends string> = T extends `e.${infer C}` ? C : never;

export function entryDto(r: EntryRow): BlocklistEntryDto {
  return {
    id: r.id,
    blocklistId: r.blocklistId,
    type: r.type as BlockableType,
    value: r.value,
    reason: r.reason,
    expiresAt: r.expiresAt ? r.expiresAt.toISOString() : null,
    addedBy: r.addedByType === 'run' ? { type: 'run', runId: r.addedByRunId, agentId: r.addedByAgentId, alertId: r.alertId } : { type: 'user', userId: r.addedByUserId },
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export async function listEntries(db: Queryable, orgId: string, blocklistId: string, q: { type?: string | undefined; includeExpired: boolean; limit: number; offset: number }) {
  let base = db.selectFrom('blocklistEntries as e').where('e.organizationId', '=', orgId).where('e.blocklistId', '=', blocklistId);
  if (q.type) base = base.where('e.type', '=', q.type);
  if (!q.includeExpired) base = base.where(active);
  const [rows, count] = await Promise.all([
    base.select(ENTRY_COLUMNS).orderBy('e.createdAt').orderBy('e.id').limit(q.limit).offset(q.offset).execute(),
    base.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return { entries: rows.map(entryDto), totalCount: Number(count.n) };
}

export interface NewEntry {
  organizationId: string;
  blocklistId: string;
  type: string;
  value: string;
  reason: string;
  expiresAt: Date | null;
  addedBy: { type: 'user'; userId: string | null } | { type: 'run'; runId: string; agentId: string; alertId: string | null };
}

/**
 * Adds a value, or adds it again: a value the list holds (expired or not) gets the new reason,
 * expiry and author, so blocking twice extends the block. Answers the entry and whether it was new.
 */
export async function upsertEntry(db: Queryable, e: NewEntry): Promise<{ entry: BlocklistEntryDto; created: boolean }> {
  const by = e.addedBy;
  const row = {
    id: uuidv7(),
    organizationId: e.organizationId,
    blocklistId: e.blocklistId,
    stixUuid: uuidv5(`blocklist|${e.blocklistId}|${e.type}|${e.value}`),
    type: e.type,
    value: e.value,
    reason: e.reason,
    expiresAt: e.expiresAt,
    addedByType: by.type,
    addedByUserId: by.type === 'user' ? by.userId : null,
    addedByRunId: by.type === 'run' ? by.runId : null,
    addedByAgentId: by.type === 'run' ? by.agentId : null,
    alertId: by.type === 'run' ? by.alertId : null,
  };
  const saved = await db
    .insertInto('blocklistEntries')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['blocklistId', 'type', 'value']).doUpdateSet((eb) => ({
        reason: eb.ref('excluded.reason'),
        expiresAt: eb.ref('excluded.expiresAt'),
        addedByType: eb.ref('excluded.addedByType'),
        addedByUserId: eb.ref('excluded.addedByUserId'),
        addedByRunId: eb.ref('excluded.addedByRunId'),
        addedByAgentId: eb.ref('excluded.addedByAgentId'),
        alertId: eb.ref('excluded.alertId'),
        updatedAt: sql`date_trunc('milliseconds', now())`,
      })),
    )
    .returning(RETURNED)
    .executeTakeFirstOrThrow();
  return { entry: entryDto(saved), created: saved.id === row.id };
}

export async function findEntry(db: Queryable, orgId: string, blocklistId: string, entryId: string) {
  const r = await db.selectFrom('blocklistEntries as e').select(ENTRY_COLUMNS).where('e.organizationId', '=', orgId).where('e.blocklistId', '=', blocklistId).where('e.id', '=', entryId).executeTakeFirst();
  return r && entryDto(r);
}

export async function deleteEntry(db: Queryable, orgId: string, blocklistId: string, entryId: string) {
  const r = await db.deleteFrom('blocklistEntries as e').where('e.organizationId', '=', orgId).where('e.blocklistId', '=', blocklistId).where('e.id', '=', entryId).returning(ENTRY_COLUMNS).executeTakeFirst();
  return r && entryDto(r);
}

export async function deleteEntryByValue(db: Queryable, orgId: string, blocklistId: string, type: string, value: string) {
  const r = await db.deleteFrom('blocklistEntries as e').where('e.organizationId', '=', orgId).where('e.blocklistId', '=', blocklistId).where('e.type', '=', type).where('e.value', '=', value).returning(ENTRY_COLUMNS).executeTakeFirst();
  return r && entryDto(r);
}

/** The active values of a list, oldest first, for the external list (read in pages by the caller). */
export async function activeValuesPage(db: Queryable, orgId: string, blocklistId: string, types: readonly string[] | undefined, after: string | null, limit: number) {
  let q = db.selectFrom('blocklistEntries as e').select(['e.seq', 'e.type', 'e.value']).where('e.organizationId', '=', orgId).where('e.blocklistId', '=', blocklistId).where(active);
  if (types) q = q.where('e.type', 'in', [...types]);
  if (after !== null) q = q.where('e.seq', '>', after);
  return q.orderBy('e.seq').limit(limit).execute();
}

/** The cleanup pass: deletes entries that expired more than `graceSeconds` ago (reads already leave them out). */
export async function deleteExpiredEntries(db: Queryable, graceSeconds: number, batch = 5_000): Promise<number> {
  const r = await sql<{ n: string }>`
    WITH gone AS (
      DELETE FROM blocklist_entries WHERE id IN (
        SELECT id FROM blocklist_entries WHERE expires_at < now() - make_interval(secs => ${graceSeconds}) LIMIT ${batch}
      ) RETURNING 1
    ) SELECT count(*) AS n FROM gone`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

export async function listAllowRules(db: Queryable, orgId: string) {
  return db.selectFrom('blocklistAllowlist').select(['id', 'kind', 'value', 'note', 'createdAt']).where('organizationId', '=', orgId).orderBy('kind').orderBy('value').execute();
}

export async function insertAllowRule(db: Queryable, row: { organizationId: string; kind: 'domain' | 'cidr'; value: string; note: string; createdBy: string | null }) {
  return db.insertInto('blocklistAllowlist').values({ id: uuidv7(), ...row }).returning(['id', 'kind', 'value', 'note', 'createdAt']).executeTakeFirstOrThrow();
}

export async function deleteAllowRule(db: Queryable, orgId: string, id: string): Promise<boolean> {
  const r = await db.deleteFrom('blocklistAllowlist').where('organizationId', '=', orgId).where('id', '=', id).executeTakeFirst();
  return r.numDeletedRows > 0n;
}

/** A page of a list's active entries for its TAXII collection, in (updated_at, seq) order. */
export async function taxiiEntriesPage(
  db: Queryable,
  orgId: string,
  blocklistId: string,
  q: { addedAfter?: Date | undefined; after?: { at: string; seq: string } | undefined; stixUuids?: string[] | undefined; versions?: Date[] | undefined; limit: number },
) {
  let base = db.selectFrom('blocklistEntries as e').select([...ENTRY_COLUMNS, 'e.seq', 'e.stixUuid']).where('e.organizationId', '=', orgId).where('e.blocklistId', '=', blocklistId).where(active);
  if (q.addedAfter) base = base.where('e.updatedAt', '>=', q.addedAfter);
  if (q.after) base = base.where(sql<boolean>`(e.updated_at, e.seq) > (${q.after.at}::timestamptz, ${q.after.seq}::bigint)`);
  if (q.stixUuids) base = q.stixUuids.length ? base.where('e.stixUuid', 'in', q.stixUuids) : base.where(sql<boolean>`false`);
  if (q.versions) base = q.versions.length ? base.where('e.updatedAt', 'in', q.versions) : base.where(sql<boolean>`false`);
  return base.orderBy('e.updatedAt').orderBy('e.seq').limit(q.limit).execute();
}

/** The organization's lists, by name, for its TAXII collections. */
export async function listNames(db: Queryable, orgId: string) {
  return db.selectFrom('blocklists').select(['id', 'name', 'description']).where('organizationId', '=', orgId).orderBy('name').execute();
}
