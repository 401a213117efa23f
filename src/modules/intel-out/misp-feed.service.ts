import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Database } from '../../platform/db/database.js';
import { NotFoundError } from '../../platform/http/errors.js';
import { csvRow } from '../../platform/csv.js';
import { refreshObjects } from './objects.store.js';
import { walkItemGroups, type GroupScope, type ItemGroup } from './item-groups.store.js';
import { MISP_EVENT_SUFFIX, mispAttribute, mispEventHead, mispEventPrefix } from './misp.fns.js';
import type { TaxiiService } from './taxii.service.js';
import { allCollectionId } from './stix.fns.js';
import { primedStream } from './streams.js';
import { organizationName } from '../organizations/index.js';

/**
 * A MISP feed per TAXII collection: one event per intel item (its uuid is the item's id), its
 * served indicators as `to_ids` attributes. The manifest and hashes.csv are streamed.
 */
export function createMispFeedService(deps: { db: Database; taxii: TaxiiService }) {
  const { db } = deps;

  async function scopeOf(orgId: string, collectionId: string): Promise<GroupScope> {
    const c = await deps.taxii.collection(orgId, collectionId);
    await refreshObjects(db, orgId);
    return c.id === allCollectionId(orgId) ? {} : { sourceId: c.id };
  }

  async function orgOf(orgId: string) {
    return { name: await organizationName(db, orgId) };
  }

  function head(g: ItemGroup, orgId: string, orgName: string) {
    const timestamp = g.indicators.reduce((m, i) => (i.modified > m ? i.modified : m), g.changedAt);
    return mispEventHead({ uuid: g.itemId, info: g.title, date: g.publishedAt ?? g.createdAt, timestamp, severity: g.severity, orgName, orgUuid: orgId });
  }

  return {
    async manifest(orgId: string, collectionId: string): Promise<Readable> {
      const scope = await scopeOf(orgId, collectionId);
      const { name } = await orgOf(orgId);
      async function* write() {
        yield '{';
        let first = true;
        for await (const g of walkItemGroups(db, orgId, scope)) {
          yield `${first ? '' : ','}${JSON.stringify(g.itemId)}:${JSON.stringify(head(g, orgId, name))}`;
          first = false;
        }
        yield '}';
      }
      return primedStream(write());
    },

    /** `md5(value),event uuid` per attribute: what MISP correlates a feed by before fetching it. */
    async hashes(orgId: string, collectionId: string): Promise<Readable> {
      const scope = await scopeOf(orgId, collectionId);
      async function* write() {
        for await (const g of walkItemGroups(db, orgId, scope)) {
          yield g.indicators.map((i) => csvRow([createHash('md5').update(i.value, 'utf8').digest('hex'), g.itemId], '\n')).join('');
        }
      }
      return primedStream(write());
    },

    async event(orgId: string, collectionId: string, eventId: string): Promise<string> {
      const scope = await scopeOf(orgId, collectionId);
      const { name } = await orgOf(orgId);
      for await (const g of walkItemGroups(db, orgId, { ...scope, itemId: eventId })) {
        const attributes = g.indicators.flatMap((i) => mispAttribute(g.itemId, { type: i.type, value: i.value, timestamp: i.modified }) ?? []);
        return mispEventPrefix(head(g, orgId, name)) + attributes.map((a) => JSON.stringify(a)).join(',') + MISP_EVENT_SUFFIX;
      }
      throw new NotFoundError('Event');
    },
  };
}

export type MispFeedService = ReturnType<typeof createMispFeedService>;
