import { tool } from '../../../platform/ai-sdk.js';
import { z } from 'zod';
import { createItemsService, IOC_LISTS, SEVERITIES, techniqueIdOf } from '../../intel/index.js';
import { requestContextOf, type ToolDeps, type ToolRunContext } from '../tool-context.js';

const TOP_INDICATORS = 10;
const SUMMARY_CHARS = 600;

/** Full-text search of the organization's intel feed, answered compactly for a model's context. */
export function searchIntelItemsTool(deps: ToolDeps, ctx: ToolRunContext) {
  const items = createItemsService({ db: deps.db });
  return tool({
    description:
      'Search the organization\'s threat-intelligence feed (advisories, reports, blog posts) by keywords, a CVE id, a malware or actor name. Returns the newest matching items with severity, CVEs, a summary and their top indicators.',
    inputSchema: z.object({
      query: z.string().trim().min(1).max(500).describe('Full-text query, e.g. "FortiOS CVE-2026-1234" or "LockBit"'),
      severity: z.enum(SEVERITIES).optional().describe('Only items of this severity'),
      limit: z.number().int().min(1).max(20).default(10).describe('How many items (1..20, default 10)'),
    }),
    execute: async ({ query, severity, limit }) => {
      const res = await items.list(requestContextOf(ctx), { page: 1, perPage: limit ?? 10, search: query, scope: 'all', ...(severity ? { severity } : {}) });
      return {
        total: res.total,
        items: res.items.map((it) => ({
          id: it.id,
          title: it.event.title,
          severity: it.severity,
          publishedAt: it.source.publishTime || null,
          url: it.source.url || null,
          source: it.source.name,
          tldr: it.tldr,
          summary: clip(it.summary, SUMMARY_CHARS),
          cves: it.cves,
          techniques: it.classification.attack.map(techniqueIdOf),
          indicators: IOC_LISTS.flatMap((k) => it.iocs[k])
            .sort((a, b) => b.confidence - a.confidence)
            .slice(0, TOP_INDICATORS)
            .map((i) => ({ type: i.type, value: i.normalizedValue })),
        })),
      };
    },
  });
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
