import type { Database } from '../../../platform/db/database.js';
import type { RequestContext } from '../../../platform/context.js';
import { NotFoundError } from '../../../platform/http/errors.js';
import { iso } from '../../../platform/time.js';
import { findItemRow, findItemText, listItemRows, resolveSourceFilter } from './items.repo.js';
import { annotateText } from './annotate.fns.js';
import { IOC_LISTS, SEVERITIES, type IntelItemDetailDto, type IntelItemDto, type IocList, type ItemListQueryT } from './items.schemas.js';

type Row = NonNullable<Awaited<ReturnType<typeof findItemRow>>>;
type IocDto = IntelItemDto['iocs'][IocList][number];

export function toItemDto(r: Row): IntelItemDto {
  const iocs = Object.fromEntries(IOC_LISTS.map((k) => [k, ((r.iocs as Record<string, IocDto[]>)[k] ?? [])])) as IntelItemDto['iocs'];
  const seen = IOC_LISTS.flatMap((k) => iocs[k]).flatMap((i) => [i.firstSeen, i.lastSeen]).sort();
  const published = iso(r.publishedAt) ?? iso(r.createdAt);
  const classification = r.classification as Partial<IntelItemDto['classification']>;
  const mappings = classification.mappings ?? [];
  return {
    id: r.id,
    source: { url: r.url ?? '', publisher: r.publisher ?? r.sourceName, publishTime: iso(r.publishedAt) ?? '', language: r.language ?? '', name: r.sourceName, license: licenseOf(r.tags) },
    event: { title: r.title, confidence: r.eventConfidence, eventFirstSeen: seen[0] ?? published, eventLastSeen: seen.at(-1) ?? published },
    summary: r.summary,
    tldr: r.tldr,
    abstract: r.abstract,
    attackPath: r.attackPath,
    classification: {
      attack: classification.attack ?? [],
      killChain: classification.killChain ?? [],
      malware: classification.malware ?? [],
      actor: classification.actor ?? [],
      platforms: classification.platforms ?? r.platforms,
      mappings,
    },
    affectedProducts: r.affectedProducts as IntelItemDto['affectedProducts'],
    iocs,
    provenance: { supportingPassages: (r.provenance.supportingPassages ?? []) as IntelItemDto['provenance']['supportingPassages'] },
    version: r.version,
    externalId: r.externalId,
    lastUpdated: iso(r.updatedAt),
    createdAt: iso(r.createdAt),
    addedToFeedAt: iso(r.createdAt),
    canonicalKey: r.canonicalKey ?? '',
    duplicateOf: r.duplicateOf ?? '',
    tenantOverrides: {},
    sourceId: r.sourceId,
    severity: r.severity as IntelItemDto['severity'],
    status: r.status as IntelItemDto['status'],
    relevance: r.relevance,
    cves: mappings.filter((m) => m.framework === 'cve').map((m) => m.id),
    droppedIndicators: r.droppedCandidates as IntelItemDto['droppedIndicators'],
  };
}

/** TLP and similar marking tags are the closest thing feeds give to a licence. */
function licenseOf(tags: string[]): string {
  return tags.find((t) => /^tlp:/i.test(t)) ?? '';
}

export function createItemsService(deps: { db: Database }) {
  const { db } = deps;
  return {
    async list(ctx: RequestContext, q: ItemListQueryT) {
      const warnings: string[] = [];
      let sourceIds: string[] | null = null;
      if (q.source) {
        sourceIds = await resolveSourceFilter(db, ctx.actor.organizationId, q.source);
        if (sourceIds.length === 0) warnings.push(`No source matches "${q.source}"`);
      }
      const { rows, total, severity, sources } = await listItemRows(db, ctx.actor.organizationId, q, sourceIds);
      const severityCounts = Object.fromEntries(SEVERITIES.map((s) => [s, Number(severity.find((r) => r.severity === s)?.n ?? 0)])) as Record<(typeof SEVERITIES)[number], number>;
      return {
        items: rows.map(toItemDto),
        total,
        page: q.page,
        perPage: q.perPage,
        hasNext: q.page * q.perPage < total,
        validations: { filters: Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)), warnings },
        outputs: { severityCounts, sources: sources.map((s) => ({ id: s.id, name: s.name, count: Number(s.n) })) },
      };
    },

    async get(ctx: RequestContext, id: string): Promise<IntelItemDetailDto> {
      const row = await findItemRow(db, ctx.actor.organizationId, id);
      if (!row) throw new NotFoundError('Intel item');
      const content = await findItemText(db, ctx.actor.organizationId, id);
      return { ...toItemDto(row), annotatedText: annotateText(content ?? '') };
    },
  };
}

export type ItemsService = ReturnType<typeof createItemsService>;
