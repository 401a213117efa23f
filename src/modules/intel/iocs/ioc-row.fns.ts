import { iso } from '../../../platform/time.js';
import { isDefangedValue } from './indicator-types.fns.js';
import type { IOC_STATUSES } from './iocs.schemas.js';

/** An indicator row as the list and a recorded check answer it (IocRow), from its stored columns. */
export type IocStatus = (typeof IOC_STATUSES)[number];

export const ROW_COLUMNS = ['id', 'value', 'normalizedValue', 'type', 'itemId', 'intelTitle', 'sourceLabel', 'status', 'lastCheckedAt'] as const;

export type DbRow = { id: string; value: string; normalizedValue: string; type: string; itemId: string; intelTitle: string; sourceLabel: string; status: IocStatus; lastCheckedAt: Date | null };

export function toRow(r: DbRow) {
  return {
    id: r.id,
    value: r.value,
    normalizedValue: r.normalizedValue,
    defanged: isDefangedValue(r.type, r.value),
    type: r.type,
    intelItemId: r.itemId,
    intelTitle: r.intelTitle,
    sourceLabel: r.sourceLabel,
    status: r.status,
    lastCheckedAt: iso(r.lastCheckedAt),
  };
}
