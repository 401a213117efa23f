import { tool } from '../../../platform/ai-sdk.js';
import { z } from 'zod';
import { createIocsService } from '../../intel/index.js';
import { requestContextOf, type ToolDeps, type ToolRunContext } from '../tool-context.js';

/** Records a hunt check of an indicator as the run's user (audited like POST /iocs/{id}/checks). */
export function recordIndicatorCheckTool(deps: ToolDeps, ctx: ToolRunContext) {
  const iocs = createIocsService({ db: deps.db });
  return tool({
    description:
      'Record the outcome of checking an indicator against the organization\'s telemetry: found (seen), clean (checked, not seen) or unknown (inconclusive). The check belongs to the indicator\'s value: its hunt status becomes this outcome on every row of that value, in every item. Use the indicator id from lookup_indicator.',
    inputSchema: z.object({
      indicatorId: z.uuid().describe('Id of the indicator row (from lookup_indicator)'),
      outcome: z.enum(['found', 'clean', 'unknown']),
      evidence: z.string().max(10_000).optional().describe('What the check saw, e.g. "3 hits in proxy logs on 2026-11-20"'),
    }),
    execute: async ({ indicatorId, outcome, evidence }) => {
      const res = await iocs.recordCheck(requestContextOf(ctx), indicatorId, { outcome, ...(evidence !== undefined ? { evidence } : {}) });
      return {
        checkId: res.id,
        indicatorId: res.indicatorId,
        outcome: res.outcome,
        checkedAt: res.checkedAt,
        indicator: { type: res.ioc.type, value: res.ioc.value, status: res.ioc.status, lastCheckedAt: res.ioc.lastCheckedAt },
      };
    },
  });
}
