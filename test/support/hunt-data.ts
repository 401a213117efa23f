import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Database } from '../../src/platform/db/database.js';
import { runReassess } from '../../src/modules/hunt/hunt.jobs.js';
import type { EventBus } from '../../src/platform/events.js';
import { serviceEvents } from '../../src/events.js';

/** An intel source of the organization that advisories are seeded into. */
export async function seedAdvisorySource(db: Database, organizationId: string): Promise<string> {
  const id = uuidv7();
  const now = new Date();
  await db.insertInto('intelSources').values({ id, organizationId, builtinKey: null, name: `adv-${id}`, displayName: 'Advisories', kind: 'rss', apiType: null, feedUrl: 'https://adv.example/feed', serverUrl: null, collectionId: null, authType: null, username: null, apiKeyCiphertext: null, scheduleCron: '0 * * * *', maxEntries: 100, createdBy: null, createdAt: now, updatedAt: now }).execute();
  return id;
}

export interface Advisory {
  title: string;
  text: string;
  cves: string[];
  products?: Array<{ vendor: string; product: string; versions: string[] }>;
  indicators?: Array<{ type: string; value: string }>;
  tags?: string[];
  publishedAt?: Date;
  processedAt?: Date;
  /** Classified as ATT&CK T1190 (default); false: no technique (no ATT&CK rollup row written, so no row lock shared with other writers). */
  attack?: boolean;
}

/** Log4Shell as an advisory feed reports it: a KEV-tagged item naming the CVE, the product's range and two indicators. */
export const LOG4SHELL_ADVISORY: Advisory = {
  title: 'Apache Log4j2 JNDI RCE (Log4Shell) CVE-2021-44228 exploited in the wild',
  text: 'Apache Log4j2 2.0-beta9 through 2.14.1 JNDI features do not protect against attacker-controlled LDAP endpoints. Log4Shell is exploited in the wild.',
  cves: ['CVE-2021-44228'],
  products: [{ vendor: 'Apache', product: 'Log4j', versions: ['>=2.0-beta9 <=2.14.1'] }],
  indicators: [{ type: 'ipv4', value: '203.0.113.66' }, { type: 'domain', value: 'ldap.evil-example.net' }],
  tags: ['kev'],
};

/** A processed intel item as the pipeline leaves it (classification mappings carry the CVEs). */
export async function seedAdvisory(db: Database, organizationId: string, sourceId: string, a: Advisory): Promise<{ itemId: string; indicatorIds: string[] }> {
  const itemId = uuidv7();
  const now = a.processedAt ?? new Date();
  const iocs: Record<string, unknown[]> = { ipv4: [], domains: [], hashes: [] };
  await db.insertInto('intelItems').values({
    id: itemId, organizationId, sourceId, externalId: randomUUID(), title: a.title, url: `https://adv.example/${itemId}`, publisher: 'Advisories', publishedAt: a.publishedAt ?? now,
    language: 'en', contentText: a.text, contentHtml: null, structuredIndicators: '[]', referenceUrls: '[]', tags: a.tags ?? [], raw: null, contentHash: randomUUID(),
    createdAt: now, updatedAt: now, processedAt: now, severity: 'high', relevance: 50, platforms: [], summary: a.text.slice(0, 200), tldr: a.title,
    classification: JSON.stringify({ attack: a.attack === false ? [] : [{ technique: 'T1190', subTechnique: '', techniqueName: 'Exploit Public-Facing Application', evidenceRef: 'p0', confidence: 0.9 }], actor: [], malware: [], mappings: a.cves.map((id) => ({ framework: 'cve', id, confidence: 1 })) }),
    affectedProducts: JSON.stringify((a.products ?? []).map((p) => ({ ...p, confidence: 0.9 }))),
    iocs: JSON.stringify(iocs),
    canonicalKey: a.cves[0] ?? null,
  }).execute();
  const indicatorIds: string[] = [];
  for (const ind of a.indicators ?? []) {
    const id = uuidv7();
    indicatorIds.push(id);
    await db.insertInto('intelIndicators').values({ id, organizationId, itemId, type: ind.type, value: ind.value, normalizedValue: ind.value.toLowerCase(), confidence: 0.8, firstSeen: now, lastSeen: now, ttlDays: 30, intelTitle: a.title, sourceLabel: 'Advisories', createdAt: now }).execute();
  }
  return { itemId, indicatorIds };
}

/** Runs the pending `hunt:reassess` jobs the way a worker would (with the service's events, as src/jobs.ts wires them; null: no hunt alerts), then removes them. */
export async function runPendingHuntJobs(db: Database, events: EventBus | null = serviceEvents()): Promise<number> {
  const { rows } = await sql<{ id: string; payload: unknown }>`SELECT j.id::text, j.payload FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = 'hunt:reassess' ORDER BY j.id`.execute(db);
  for (const r of rows) {
    await runReassess(db, r.payload as never, events ?? undefined);
    await sql`DELETE FROM graphile_worker._private_jobs WHERE id = ${r.id}::bigint`.execute(db);
  }
  return rows.length;
}
