import { createHash } from 'node:crypto';
import type { Database } from '../../../platform/db/database.js';
import type { RequestContext } from '../../../platform/context.js';
import { NotFoundError } from '../../../platform/http/errors.js';
import { findItemRow } from '../items/items.repo.js';
import { toItemDto } from '../items/items.service.js';
import { IOC_LISTS } from '../items/items.schemas.js';
import { registryKeyAsWritten } from '../extract/normalize.fns.js';
import { LOG_SOURCES, sigmaRules } from './sigma.fns.js';
import { techniqueIdOf, techniqueIdsOf } from '../attack/attack-id.fns.js';

/**
 * Detection context for an item (the API contract's detection context result: chatUrl, asset, detectionContext): its indicators grouped by type, techniques,
 * affected products and the log sources worth searching, plus a draft Sigma rule set pinned
 * to the indicators. It is derived from the stored item, so asking again (chatUrl) gives the
 * same answer until the item changes; the asset id is stable per item version.
 */
export function createDetectionService(deps: { db: Database; baseUrl: string }) {
  return {
    async build(ctx: RequestContext, itemId: string) {
      const row = await findItemRow(deps.db, ctx.actor.organizationId, itemId);
      if (!row) throw new NotFoundError('Intel item');
      const item = toItemDto(row);
      const indicators: Record<string, string[]> = {};
      for (const list of IOC_LISTS) {
        for (const ioc of item.iocs[list]) (indicators[ioc.type] ??= []).push(ruleValue(ioc));
      }
      for (const values of Object.values(indicators)) values.sort();
      const techniques = techniqueIdsOf(item.classification.attack);
      const logSources = [...new Set(Object.keys(indicators).map((t) => LOG_SOURCES[t]).filter((s): s is string => !!s))].sort();
      const assetId = stableUuid(`${item.id}:${item.version}`);
      const content = sigmaRules({
        ruleId: assetId,
        title: item.event.title.slice(0, 200),
        description: (item.tldr || item.summary || item.event.title).slice(0, 1000),
        reference: item.source.url || null,
        date: (item.source.publishTime || item.createdAt).slice(0, 10),
        techniques,
        indicators,
        platforms: item.classification.platforms,
        severity: item.severity,
      });
      return {
        chatUrl: `${deps.baseUrl}/items/${item.id}/detection-context`,
        asset: { id: assetId, title: `Sigma rules: ${item.event.title}`.slice(0, 300), type: 'sigma_rule', content },
        detectionContext: {
          itemId: item.id,
          title: item.event.title,
          severity: item.severity,
          cves: item.cves,
          indicators,
          techniques: item.classification.attack.map((a) => ({ id: techniqueIdOf(a), name: a.techniqueName })),
          affectedProducts: item.affectedProducts,
          logSources,
          summary: item.summary,
        },
      };
    },
  };
}

/**
 * The value a rule matches: the normalized value, except registry keys, which keep the case they
 * were written in (the normalized key is lower-cased for deduplication; a rule is read by people
 * and Sigma matching is case-insensitive anyway).
 */
function ruleValue(ioc: { type: string; value: string; normalizedValue: string }): string {
  return ioc.type === 'registry-key' ? (registryKeyAsWritten(ioc.value) ?? ioc.normalizedValue) : ioc.normalizedValue;
}

/** A UUID (version 8 layout, RFC 9562) derived from a name: the same input gives the same id. */
function stableUuid(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
