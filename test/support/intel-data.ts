import { randomUUID } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import type { Database } from '../../src/platform/db/database.js';

/** Inserts a custom source, items and indicators directly: API tests independent of the pipeline. */
export async function seedIntel(db: Database, organizationId: string, opts: { items?: number; sourceName?: string } = {}) {
  const sourceId = uuidv7();
  const now = new Date();
  await db
    .insertInto('intelSources')
    .values({ id: sourceId, organizationId, builtinKey: null, name: opts.sourceName ?? 'seeded', displayName: opts.sourceName ?? 'Seeded source', kind: 'rss', apiType: null, feedUrl: 'https://seed.example/feed', serverUrl: null, collectionId: null, authType: null, username: null, apiKeyCiphertext: null, scheduleCron: '0 * * * *', maxEntries: 100, createdBy: null, createdAt: now, updatedAt: now })
    .execute();
  const severities = ['critical', 'high', 'medium', 'low', 'none'] as const;
  const itemIds: string[] = [];
  const indicatorIds: string[] = [];
  for (let i = 0; i < (opts.items ?? 5); i++) {
    const id = uuidv7();
    itemIds.push(id);
    const ip = `203.0.113.${i + 1}`;
    const domain = `c2-${i}.evil-example.net`;
    const iocs = {
      ipv4: [{ value: ip, type: 'ipv4', normalizedValue: ip, firstSeen: '2026-11-01T00:00:00.000Z', lastSeen: '2026-11-02T00:00:00.000Z', ttlDays: 30, confidence: 0.8 }],
      domains: [{ value: domain.replace('.', '[.]'), type: 'domain', normalizedValue: domain, firstSeen: '2026-11-01T00:00:00.000Z', lastSeen: '2026-11-01T00:00:00.000Z', ttlDays: 30, confidence: 0.7 }],
      hashes: [{ value: `${'ab'.repeat(31)}${String(i).padStart(2, '0')}`, type: 'sha256', normalizedValue: `${'ab'.repeat(31)}${String(i).padStart(2, '0')}`, firstSeen: '2026-11-01T00:00:00.000Z', lastSeen: '2026-11-01T00:00:00.000Z', ttlDays: 365, confidence: 0.9 }],
    };
    await db
      .insertInto('intelItems')
      .values({
        id,
        organizationId,
        sourceId,
        externalId: `ext-${i}`,
        title: i === 0 ? 'LockBit affiliate exploits CVE-2026-1234 in FortiOS' : `Weekly roundup ${i}`,
        url: `https://seed.example/posts/${i}`,
        publisher: 'Seed Research',
        publishedAt: new Date(Date.UTC(2026, 10, 1 + i)),
        language: 'en',
        contentText: i === 0 ? 'Ransomware operators exploited the FortiOS flaw in the wild.' : 'Nothing much happened.',
        contentHtml: null,
        structuredIndicators: '[]',
        referenceUrls: '[]',
        tags: i === 0 ? ['tlp:clear'] : [],
        raw: null,
        contentHash: randomUUID(),
        createdAt: now,
        updatedAt: now,
        processedAt: now,
        severity: severities[i % 5],
        relevance: i === 0 ? 90 : 10 * i,
        platforms: i === 0 ? ['windows', 'network'] : ['linux'],
        summary: `Summary ${i}`,
        tldr: `TLDR ${i}`,
        classification: JSON.stringify({ attack: i === 0 ? [{ technique: 'T1190', subTechnique: '', techniqueName: 'Exploit Public-Facing Application', evidenceRef: 'p0', confidence: 0.9 }] : [], mappings: i === 0 ? [{ framework: 'cve', id: 'CVE-2026-1234', confidence: 1 }] : [] }),
        iocs: JSON.stringify(iocs),
        canonicalKey: i === 0 ? 'CVE-2026-1234' : null,
      })
      .execute();
    for (const [type, value] of [['ipv4', ip], ['domain', domain], ['sha256', iocs.hashes[0]!.normalizedValue]] as const) {
      const indicatorId = uuidv7();
      indicatorIds.push(indicatorId);
      await db
        .insertInto('intelIndicators')
        .values({ id: indicatorId, organizationId, itemId: id, type, value, normalizedValue: value, confidence: 0.8, firstSeen: now, lastSeen: now, ttlDays: 30, intelTitle: i === 0 ? 'LockBit affiliate exploits CVE-2026-1234 in FortiOS' : `Weekly roundup ${i}`, sourceLabel: 'Seeded source', createdAt: now })
        .execute();
    }
  }
  return { sourceId, itemIds, indicatorIds };
}
