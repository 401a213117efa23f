import { sql } from 'kysely';
import type { Database, Queryable } from '../../../platform/db/database.js';
import { EMPTY_CATALOG, catalogFromStixObjects, type AttackCatalog } from './classify/attack-catalog.fns.js';

/**
 * The ATT&CK catalog lives in the database (refreshed by items of the built-in MITRE ATT&CK
 * source) and is cached per process for a minute: every worker sees a refresh soon after it.
 */
/** The built-in source whose items (ATT&CK STIX objects) refresh the catalog. */
export const MITRE_SOURCE_KEY = 'mitre-attack-enterprise';

let cached: { at: number; catalog: AttackCatalog } | null = null;
const TTL_MS = 60_000;

export async function loadAttackCatalog(db: Database): Promise<AttackCatalog> {
  if (cached && Date.now() - cached.at < TTL_MS) return cached.catalog;
  const rows = await db.selectFrom('attackCatalog').selectAll().execute();
  const catalog: AttackCatalog = rows.length
    ? {
        techniques: new Map(rows.filter((r) => r.kind === 'technique').map((r) => [r.id, { id: r.id, name: r.name, tactics: r.tactics, platforms: r.platforms }])),
        groups: rows.filter((r) => r.kind === 'group').map((r) => ({ id: r.id, name: r.name, aliases: r.aliases })),
        software: rows.filter((r) => r.kind === 'malware' || r.kind === 'tool').map((r) => ({ id: r.id, name: r.name, aliases: r.aliases, type: r.kind as 'malware' | 'tool' })),
      }
    : EMPTY_CATALOG;
  cached = { at: Date.now(), catalog };
  return catalog;
}

/** Upserts the catalog entries found in ATT&CK STIX objects (attack-pattern, intrusion-set, malware, tool). */
export async function refreshAttackCatalog(db: Queryable, objects: unknown[]): Promise<number> {
  const c = catalogFromStixObjects(objects);
  const rows = [
    ...[...c.techniques.values()].map((t) => ({ id: t.id, kind: 'technique' as const, name: t.name, aliases: [], tactics: t.tactics, platforms: t.platforms })),
    ...c.groups.map((g) => ({ id: g.id, kind: 'group' as const, name: g.name, aliases: g.aliases, tactics: [], platforms: [] })),
    ...c.software.map((s) => ({ id: s.id, kind: s.type, name: s.name, aliases: s.aliases, tactics: [], platforms: [] })),
  ];
  if (rows.length === 0) return 0;
  await db
    .insertInto('attackCatalog')
    .values(rows.map((r) => ({ ...r, updatedAt: new Date() })))
    .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), kind: eb.ref('excluded.kind'), aliases: eb.ref('excluded.aliases'), tactics: eb.ref('excluded.tactics'), platforms: eb.ref('excluded.platforms'), updatedAt: sql<Date>`now()` })))
    .execute();
  cached = null;
  return rows.length;
}
