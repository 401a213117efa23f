import { sql } from 'kysely';
import type { Database } from '../../platform/db/database.js';
import type { CodeDetectionStatus } from './alerts.tables.js';

/**
 * What the coverage module reads of code detections (through alerts' index.ts): per ATT&CK
 * technique, how many detections name it, by status. A sub-technique counts for its parent
 * (T1059.001 → T1059); a detection naming two sub-techniques of one parent counts once for it.
 */
export interface TechniqueDetections {
  techniqueId: string;
  byStatus: Record<CodeDetectionStatus, number>;
}

export async function detectionCountsByTechnique(db: Database, organizationId: string): Promise<TechniqueDetections[]> {
  const { rows } = await sql<{ tid: string; status: CodeDetectionStatus; n: number }>`
    SELECT tid, status, count(*)::int AS n FROM (
      SELECT DISTINCT d.id, d.status, split_part(t, '.', 1) AS tid
      FROM code_detections d, unnest(d.attack_techniques) t
      WHERE d.organization_id = ${organizationId}
    ) x GROUP BY tid, status`.execute(db);
  const out = new Map<string, TechniqueDetections>();
  for (const r of rows) {
    const entry = out.get(r.tid) ?? { techniqueId: r.tid, byStatus: { experimental: 0, test: 0, stable: 0, deprecated: 0 } };
    entry.byStatus[r.status] = r.n;
    out.set(r.tid, entry);
  }
  return [...out.values()];
}

/** The detections naming a technique or one of its sub-techniques, most mature first. */
export async function detectionsForTechnique(db: Database, organizationId: string, techniqueId: string) {
  const rows = await db
    .selectFrom('codeDetections')
    .select(['id', 'name', 'ruleId', 'status', 'severity', 'attackTechniques', 'updatedAt'])
    .where('organizationId', '=', organizationId)
    .where(sql<boolean>`EXISTS (SELECT 1 FROM unnest(attack_techniques) t WHERE split_part(t, '.', 1) = ${techniqueId})`)
    .orderBy(sql`array_position(ARRAY['stable', 'test', 'experimental', 'deprecated'], status)`)
    .orderBy('name')
    .limit(500)
    .execute();
  return rows.map((r) => ({ ...r, updatedAt: r.updatedAt.toISOString() }));
}

/** Each detection that counts as coverage (not deprecated) with the parent techniques it names. */
export async function detectionTechniques(db: Database, organizationId: string): Promise<Array<{ id: string; techniques: string[] }>> {
  const { rows } = await sql<{ id: string; techniques: string[] }>`
    SELECT d.id, array_agg(DISTINCT split_part(t, '.', 1)) AS techniques
    FROM code_detections d, unnest(d.attack_techniques) t
    WHERE d.organization_id = ${organizationId} AND d.status <> 'deprecated'
    GROUP BY d.id`.execute(db);
  return rows;
}
