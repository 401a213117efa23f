import { tool } from '../../../platform/ai-sdk.js';
import { z } from 'zod';
import { createIocsService, normalizeIndicator, type IndicatorType } from '../../intel/index.js';
import { requestContextOf, type ToolDeps, type ToolRunContext } from '../tool-context.js';
import { parseIndicator } from './indicator.fns.js';

const MAX_ROWS = 25;

/**
 * Is this value a known indicator, in which items, and what did hunting make of it? Defanged
 * input is refanged and normalized first; rows whose value is exactly the indicator come
 * first (`exact: true`), then rows that merely contain it (a domain inside a URL).
 */
export function lookupIndicatorTool(deps: ToolDeps, ctx: ToolRunContext) {
  const iocs = createIocsService({ db: deps.db });
  return tool({
    description:
      'Look up an indicator (IP, domain, URL, hash, e-mail…; defanged forms such as evil[.]com are fine) in the organization\'s threat intelligence. Returns the matching indicator rows with their hunt status (found, clean, unchecked, unknown), when they were last checked, and the intel items they appear in.',
    inputSchema: z.object({
      value: z.string().trim().min(1).max(2048).describe('The indicator, e.g. "203.0.113.7", "evil[.]example", a SHA-256'),
    }),
    execute: async ({ value }) => {
      const { value: normalized, type } = parseIndicator(value);
      if (normalized === '') throw new Error('The value is empty once refanged');
      const reqCtx = requestContextOf(ctx);
      const search = normalized.slice(0, 500);
      // The search is a substring match: a domain also matches every URL that contains it. A
      // second search restricted to the value's own type keeps exact rows from being crowded out.
      const [res, typed] = await Promise.all([
        iocs.list(reqCtx, { page: 1, perPage: MAX_ROWS * 2, search }),
        type ? iocs.list(reqCtx, { page: 1, perPage: MAX_ROWS * 2, search, type: [type] }) : null,
      ]);
      const byId = new Map([...(typed?.rows ?? []), ...res.rows].map((r) => [r.id, r]));
      const rows = [...byId.values()]
        .map((r) => ({ row: r, exact: normalizeIndicator(r.type as IndicatorType, r.value) === normalized }))
        .sort((a, b) => Number(b.exact) - Number(a.exact))
        .slice(0, MAX_ROWS);
      const exact = rows.filter((r) => r.exact).map((r) => r.row);
      return {
        value: normalized,
        known: exact.length > 0,
        status: overallStatus(exact),
        totalMatches: res.total,
        indicators: rows.map(({ row, exact: isExact }) => ({
          id: row.id,
          type: row.type,
          value: row.value,
          exact: isExact,
          status: row.status,
          lastCheckedAt: row.lastCheckedAt,
          item: { id: row.intelItemId, title: row.intelTitle, source: row.sourceLabel },
        })),
      };
    },
  });
}

type Row = { status: 'found' | 'clean' | 'unchecked' | 'unknown'; lastCheckedAt: string | null };

/**
 * One status for the value across the items it appears in. Checks belong to the value, so its
 * rows agree (intel docs, "IOC status"); this still reads them all: a sighting anywhere wins,
 * otherwise the most recent check, `unchecked` if none, null when the value is not in the intel.
 */
export function overallStatus(rows: readonly Row[]): Row['status'] | null {
  if (rows.length === 0) return null;
  if (rows.some((r) => r.status === 'found')) return 'found';
  const checked = rows.filter((r) => r.lastCheckedAt !== null).sort((a, b) => b.lastCheckedAt!.localeCompare(a.lastCheckedAt!));
  return checked[0]?.status ?? 'unchecked';
}
