import { sql } from 'kysely';
import type { Database } from '../../../platform/db/database.js';
import type { RequestContext } from '../../../platform/context.js';
import { iso } from '../../../platform/time.js';

/** GET /stats: feed totals and breakdowns, in four indexed aggregate queries. */
export async function feedStats(db: Database, ctx: RequestContext) {
  const orgId = ctx.actor.organizationId;
  const [severity, platforms, publishers, recent] = await Promise.all([
    db.selectFrom('intelItems').select(['severity', (eb) => eb.fn.countAll<number>().as('n')]).where('organizationId', '=', orgId).groupBy('severity').execute(),
    sql<{ platform: string; n: number }>`SELECT p AS platform, count(*)::int AS n FROM intel_items, unnest(platforms) AS p WHERE organization_id = ${orgId} GROUP BY p ORDER BY n DESC, p`.execute(db),
    db.selectFrom('intelItems').select('publisher').distinct().where('organizationId', '=', orgId).where('publisher', 'is not', null).orderBy('publisher').limit(500).execute(),
    db
      .selectFrom('intelItems')
      .select(['id', 'title', 'severity', 'publishedAt', 'createdAt'])
      .where('organizationId', '=', orgId)
      .orderBy(sql`coalesce(published_at, created_at)`, 'desc')
      .orderBy('id', 'desc')
      .limit(10)
      .execute(),
  ]);
  const severityBreakdown = { critical: 0, high: 0, medium: 0, low: 0, none: 0 };
  for (const s of severity) if (s.severity in severityBreakdown) severityBreakdown[s.severity as keyof typeof severityBreakdown] = Number(s.n);
  return {
    totalItems: Object.values(severityBreakdown).reduce((a, b) => a + b, 0),
    severityBreakdown,
    platformBreakdown: Object.fromEntries(platforms.rows.map((p) => [p.platform, p.n])),
    sourcePublishers: publishers.map((p) => p.publisher!),
    recentItems: recent.map((r) => ({ id: r.id, title: r.title, severity: r.severity, publishTime: iso(r.publishedAt ?? r.createdAt) })),
  };
}
