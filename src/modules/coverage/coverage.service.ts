import type { z } from 'zod';
import type { Selectable } from 'kysely';
import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import type { CoverageLayersTable } from './coverage.tables.js';
import { writeAudit } from '../../platform/audit.js';
import { NotFoundError } from '../../platform/http/errors.js';
import { iso } from '../../platform/time.js';
import { detectionCountsByTechnique, detectionsForTechnique, detectionTechniques } from '../alerts/index.js';
import { detectionMatchTotals } from '../detect/index.js';
import { evidenceOf, matchesByTechnique } from './coverage-evidence.fns.js';
import { attackCatalogInfo, attackPressure, attackPressureDetails, intelSourceHealth, loadAttackCatalog, type PressureScope } from '../intel/index.js';
import { intelStatusOf } from './coverage-intel-status.fns.js';
import { computeCoverage, filterNames, parentOf, rankGaps, stateOf, windowDays, windowStart, type ExternalEntry } from './coverage.fns.js';
import { deleteLayer, findLayer, listLayers, upsertLayer } from './coverage.repo.js';
import type { CoverageQuery, CoverageReport, CoverageSummaryQuery, TechniqueDetail } from './coverage.schemas.js';
import { buildLayer, declaredTechniques, type DeclaredTechnique, type LayerView } from './navigator.fns.js';
import type { NavigatorLayerDto } from './navigator.schemas.js';

type Filters = z.infer<typeof CoverageQuery>;
const ITEMS_PER_GAP = 5;

async function catalogInfo(db: Database) {
  const c = await attackCatalogInfo(db);
  return { version: c.version, releasedAt: c.releasedAt.toISOString().slice(0, 10), refreshedAt: iso(c.refreshedAt), syncedEntries: c.syncedEntries };
}

function layerSummary(r: Selectable<CoverageLayersTable>) {
  return { id: r.id, name: r.name, description: r.description, techniques: (r.techniques as DeclaredTechnique[]).length, createdAt: iso(r.createdAt)!, updatedAt: iso(r.updatedAt)! };
}

/**
 * ATT&CK coverage of an organization: its code detections (alerts module) against the techniques
 * its intel names (intel module), both read through their owners' readers, plus the Navigator
 * layers it imported as declared external coverage (this module's table).
 */
export function createCoverageService(deps: { db: Database; baseUrl: string }) {
  const { db } = deps;

  async function scopeOf(orgId: string, f: Filters, now: Date): Promise<PressureScope> {
    const catalog = await loadAttackCatalog(db);
    return {
      organizationId: orgId,
      since: windowStart(f.window, now),
      actorNames: filterNames(f.actor, catalog.groups),
      malwareNames: filterNames(f.malware, catalog.software),
    };
  }

  async function externalEntries(orgId: string): Promise<ExternalEntry[]> {
    return (await listLayers(db, orgId)).flatMap((l) => (l.techniques as DeclaredTechnique[]).map((t) => ({ layer: l.name, techniqueId: t.techniqueId, score: t.score, comment: t.comment })));
  }

  async function coverage(orgId: string, f: Filters, now: Date) {
    const scope = await scopeOf(orgId, f, now);
    const [catalog, detections, pressure, external, covering, totals] = await Promise.all([
      loadAttackCatalog(db),
      detectionCountsByTechnique(db, orgId),
      attackPressure(db, scope),
      externalEntries(orgId),
      detectionTechniques(db, orgId),
      detectionMatchTotals(db, orgId, scope.since.toISOString().slice(0, 10)),
    ]);
    const computed = computeCoverage(catalog, detections, pressure, external);
    // Whether the detections behind each technique matched events in the window (detect module).
    const matches = matchesByTechnique(covering, totals);
    const techniques = computed.techniques.map((t) => {
      const m = matches.get(t.techniqueId);
      const live = t.detections.stable + t.detections.test + t.detections.experimental;
      return { ...t, evidence: evidenceOf(live, m), matches: m ?? { detections: 0, events: 0, lastMatchedAt: null } };
    });
    return { scope, ...computed, techniques };
  }

  return {
    async report(ctx: RequestContext, q: z.infer<typeof CoverageSummaryQuery>): Promise<z.infer<typeof CoverageReport>> {
      const orgId = ctx.actor.organizationId;
      const { scope, techniques, tactics } = await coverage(orgId, q, new Date());
      const gaps = rankGaps(techniques, q.top);
      const [details, health, catalog] = await Promise.all([attackPressureDetails(db, scope, gaps.map((g) => g.techniqueId), ITEMS_PER_GAP), intelSourceHealth(db, orgId), catalogInfo(db)]);
      const named = techniques.filter((t) => t.intel.items > 0).length;
      const count = (s: string) => techniques.filter((t) => t.state === s).length;
      return {
        window: q.window,
        since: scope.since.toISOString(),
        actor: q.actor || null,
        malware: q.malware || null,
        summary: {
          covered: count('covered'), coveredExperimentalOnly: count('covered_experimental_only'), gap: count('gap'), unused: count('unused'),
          matched: techniques.filter((t) => t.evidence === 'matched').length,
          onPaper: techniques.filter((t) => t.evidence === 'paper').length,
        },
        tactics,
        techniques,
        topGaps: gaps.map((g) => {
          const d = details.get(g.techniqueId)!;
          return { ...g, actors: d.actors.slice(0, 10), malware: d.malware.slice(0, 10), recentItems: d.recentItems.map((i) => ({ ...i, seenAt: i.seenAt.toISOString() })) };
        }),
        intelStatus: intelStatusOf(named, health, windowDays(q.window), Boolean(q.actor || q.malware)),
        catalog,
      };
    },

    /** One technique (a sub-technique id answers for its parent): its detections and the intel behind it. 404 when the catalog does not know it and nothing names it. */
    async technique(ctx: RequestContext, techniqueId: string, q: Filters): Promise<z.infer<typeof TechniqueDetail>> {
      const orgId = ctx.actor.organizationId;
      const id = parentOf(techniqueId);
      const [catalog, scope, info] = await Promise.all([loadAttackCatalog(db), scopeOf(orgId, q, new Date()), catalogInfo(db)]);
      const [detections, pressure, details, external] = await Promise.all([
        detectionsForTechnique(db, orgId, id),
        attackPressure(db, scope, [id]).then((one) => one[0]),
        attackPressureDetails(db, scope, [id], 20).then((m) => m.get(id)!),
        externalEntries(orgId).then((all) => all.filter((e) => parentOf(e.techniqueId) === id)),
      ]);
      const known = catalog.techniques.get(id);
      if (!known && detections.length === 0 && !pressure) throw new NotFoundError('Technique');
      const by = (s: string) => detections.filter((d) => d.status === s).length;
      const counts = { total: detections.length, stable: by('stable'), test: by('test'), experimental: by('experimental'), deprecated: by('deprecated') };
      return {
        techniqueId: id,
        name: known?.name ?? '',
        tactics: known?.tactics ?? [],
        inCatalog: known !== undefined,
        catalog: info,
        state: stateOf(counts, pressure?.items ?? 0),
        detections,
        intel: {
          items: pressure?.items ?? 0, actors: pressure?.actors ?? 0, malware: pressure?.malware ?? 0, lastSeenAt: pressure ? pressure.lastSeenAt.toISOString() : null,
          actorNames: details.actors, malwareNames: details.malware, recentItems: details.recentItems.map((i) => ({ ...i, seenAt: i.seenAt.toISOString() })),
        },
        external,
      };
    },

    async layer(ctx: RequestContext, q: Filters & { view: LayerView }): Promise<NavigatorLayerDto> {
      const now = new Date();
      const { techniques } = await coverage(ctx.actor.organizationId, q, now);
      return buildLayer(techniques, { view: q.view, window: q.window, actor: q.actor || undefined, malware: q.malware || undefined, generatedAt: now, baseUrl: deps.baseUrl });
    },

    async importLayer(ctx: RequestContext, layer: NavigatorLayerDto) {
      const catalog = await loadAttackCatalog(db);
      const techniques = declaredTechniques(layer);
      const unknownTechniques = [...new Set((layer.techniques ?? []).map((t) => t.techniqueID).filter((id) => !catalog.techniques.has(id)))].sort();
      return db.transaction().execute(async (tx) => {
        const { row, replaced } = await upsertLayer(tx, { organizationId: ctx.actor.organizationId, userId: ctx.actor.userId, layer, techniques });
        await writeAudit(tx, ctx, { action: replaced ? 'coverageLayer.update' : 'coverageLayer.create', resourceType: 'coverageLayer', resourceId: row.id, metadata: { name: row.name, techniques: techniques.length } });
        return { layer: layerSummary(row), replaced, unknownTechniques };
      });
    },

    async listLayers(ctx: RequestContext) {
      return { layers: (await listLayers(db, ctx.actor.organizationId)).map(layerSummary) };
    },

    /** The layer as it was imported (unknown fields included). */
    async getLayer(ctx: RequestContext, id: string) {
      const row = await findLayer(db, ctx.actor.organizationId, id);
      if (!row) throw new NotFoundError('Coverage layer');
      return row.layer as NavigatorLayerDto;
    },

    async removeLayer(ctx: RequestContext, id: string) {
      const row = await findLayer(db, ctx.actor.organizationId, id);
      if (!row) throw new NotFoundError('Coverage layer');
      await db.transaction().execute(async (tx) => {
        await deleteLayer(tx, row.organizationId, row.id);
        await writeAudit(tx, ctx, { action: 'coverageLayer.delete', resourceType: 'coverageLayer', resourceId: row.id, metadata: { name: row.name } });
      });
      return { success: true };
    },
  };
}

export type CoverageService = ReturnType<typeof createCoverageService>;
