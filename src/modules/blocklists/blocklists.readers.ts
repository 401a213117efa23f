import type { Database } from '../../platform/db/database.js';
import type { ExtraCollection, ExtraObjectRow, ExtraObjectsQuery } from '../intel-out/index.js';
import { listNames, taxiiEntriesPage } from './blocklists.repo.js';

/**
 * The answers to intel out's TAXII questions (ModuleReaders `taxiiExtraCollections`,
 * `taxiiExtraObjects`): each block list is a collection (its id), each active entry a STIX
 * indicator valid until the entry expires. Expired entries leave the collection as they leave
 * the external list.
 */
export async function blocklistCollections(db: Database, orgId: string): Promise<ExtraCollection[]> {
  const lists = await listNames(db, orgId);
  return lists.map((l) => ({ id: l.id, title: `Block list ${l.name}`, description: l.description || `The active entries of the block list "${l.name}"`, permission: 'blocklist.read' as const }));
}

export async function blocklistObjects(db: Database, orgId: string, collectionId: string, q: ExtraObjectsQuery): Promise<ExtraObjectRow[]> {
  const rows = await taxiiEntriesPage(db, orgId, collectionId, q);
  return rows.map((r) => ({
    at: r.updatedAt.toISOString(),
    seq: r.seq,
    type: r.type,
    normalizedValue: r.value,
    created: r.createdAt,
    modified: r.updatedAt,
    dateAdded: r.updatedAt,
    validFrom: r.updatedAt,
    validUntil: r.expiresAt,
    confidence: 100,
    labels: ['blocklist'],
    revoked: false,
    stixUuid: r.stixUuid,
    description: r.reason,
  }));
}
