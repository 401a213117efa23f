import type { RequestContext } from '../../../platform/context.js';
import { recordIocCheck, type IocCheckInput } from './iocs.check.js';
import { createIocListState, listIocs, type IocListDeps, type IocListInput } from './iocs.list.js';

export { walkEstimate, type IndicatorStats, type IocListInput } from './iocs.list.js';

/**
 * The indicators' commands, one file each: the list (iocs.list.ts: its search planner and the
 * state it keeps per process) and a recorded check (iocs.check.ts). Built once per process by the
 * routes and the agent tools (lookup_indicator, record_indicator_check).
 */
export function createIocsService(deps: IocListDeps) {
  const listing = createIocListState(deps);
  return {
    list: (ctx: RequestContext, query: IocListInput) => listIocs(listing, ctx, query),
    /** Records a check of the indicator's value (checks.store.ts says how a value's status follows its checks). */
    recordCheck: (ctx: RequestContext, id: string, input: IocCheckInput) => recordIocCheck(deps.db, ctx, id, input),
  };
}

export type IocsService = ReturnType<typeof createIocsService>;
