import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';

export interface DestinationRow {
  id: string;
  organizationId: string;
  name: string;
  type: string;
  config: Record<string, unknown>;
  tokenCiphertext: string | null;
  eventSubscriptions: string[];
  managedBy: 'code' | null;
  managedSource: string | null;
  /** Webhooks: the signing secret (`whsec_…`; a migrated destination's token), and the one before the last rotation until it expires. */
  signingSecretCiphertext: string | null;
  previousSigningSecretCiphertext: string | null;
  previousSigningSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = ['id', 'organizationId', 'name', 'type', 'config', 'tokenCiphertext', 'eventSubscriptions', 'managedBy', 'managedSource', 'signingSecretCiphertext', 'previousSigningSecretCiphertext', 'previousSigningSecretExpiresAt', 'createdAt', 'updatedAt'] as const;

export function listDestinationRows(db: Queryable, organizationId: string): Promise<DestinationRow[]> {
  return db.selectFrom('outputDestinations').select(COLUMNS).where('organizationId', '=', organizationId).orderBy('createdAt').orderBy('id').execute();
}

export async function findDestinationRow(db: Queryable, organizationId: string, id: string, forUpdate = false): Promise<DestinationRow | null> {
  let q = db.selectFrom('outputDestinations').select(COLUMNS).where('organizationId', '=', organizationId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return (await q.executeTakeFirst()) ?? null;
}

export async function insertDestinationRow(db: Queryable, row: DestinationRow): Promise<void> {
  await db.insertInto('outputDestinations').values({ ...row, config: JSON.stringify(row.config) }).execute();
}

export async function updateDestinationRow(db: Queryable, row: Omit<DestinationRow, 'createdAt'>): Promise<void> {
  await db
    .updateTable('outputDestinations')
    .set({
      name: row.name,
      type: row.type,
      config: JSON.stringify(row.config),
      tokenCiphertext: row.tokenCiphertext,
      eventSubscriptions: row.eventSubscriptions,
      managedBy: row.managedBy,
      managedSource: row.managedSource,
      signingSecretCiphertext: row.signingSecretCiphertext,
      previousSigningSecretCiphertext: row.previousSigningSecretCiphertext,
      previousSigningSecretExpiresAt: row.previousSigningSecretExpiresAt,
      updatedAt: row.updatedAt,
    })
    .where('id', '=', row.id)
    .where('organizationId', '=', row.organizationId)
    .execute();
}

export async function deleteDestinationRow(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const res = await db.deleteFrom('outputDestinations').where('organizationId', '=', organizationId).where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Names of the agents whose `outputDestinationIds` include the destination. */
export async function agentsUsingDestination(db: Queryable, organizationId: string, destinationId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('agents')
    .select('name')
    .where('organizationId', '=', organizationId)
    .where(sql<boolean>`${destinationId}::uuid = ANY(output_destination_ids)`)
    .orderBy('name')
    .execute();
  return rows.map((r) => r.name);
}

/** The organization's destinations subscribed to an event type. */
export function destinationsSubscribedTo(db: Queryable, organizationId: string, eventType: string): Promise<DestinationRow[]> {
  return db
    .selectFrom('outputDestinations')
    .select(COLUMNS)
    .where('organizationId', '=', organizationId)
    .where(sql<boolean>`${eventType} = ANY(event_subscriptions)`)
    .orderBy('id')
    .execute();
}

/** Ids among `ids` that are not destinations of the organization. */
export async function unknownDestinationIds(db: Queryable, organizationId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  // FOR KEY SHARE: a destination being deleted (locked FOR UPDATE) makes this wait for that
  // delete, and one saved here cannot be deleted until the agent's transaction ends, so no agent
  // is left pointing at a destination that is gone (the delete's 409 sees the agent).
  const found = await db.selectFrom('outputDestinations').select('id').where('organizationId', '=', organizationId).where('id', 'in', ids).forKeyShare().execute();
  const known = new Set(found.map((r) => r.id));
  return ids.filter((id) => !known.has(id));
}
