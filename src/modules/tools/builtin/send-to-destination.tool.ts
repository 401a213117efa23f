import { tool } from '../../../platform/ai-sdk.js';
import { z } from 'zod';
import { writeAudit } from '../../../platform/audit.js';
import { findDestinationRow } from '../../destinations/index.js';
import { newEvent, queueDeliveries } from '../../delivery/index.js';
import { requestContextOf, type ToolDeps, type ToolRunContext } from '../tool-context.js';

/**
 * Queues a message for one of the organization's output destinations through delivery's front
 * door: a `pending` delivery (event kind `agent.message`) and its job, in one transaction. The
 * row's `run_id` stays null: that column (unique per destination) marks the run's own output
 * delivery, and a run may send several messages to one destination; the payload names the run.
 */
export function sendToDestinationTool(deps: ToolDeps, ctx: ToolRunContext) {
  return tool({
    description:
      'Send a message to one of the organization\'s output destinations (Slack, Teams, PagerDuty, Linear, Tines or a webhook), by destination id. The message is queued for delivery.',
    inputSchema: z.object({
      destinationId: z.uuid().describe('Id of the output destination'),
      message: z.string().trim().min(1).max(20_000).describe('The message (plain text or Markdown)'),
      title: z.string().trim().min(1).max(255).optional().describe('A short title, where the destination shows one'),
    }),
    execute: async ({ destinationId, message, title }) => {
      const reqCtx = requestContextOf(ctx);
      const destination = await findDestinationRow(deps.db, ctx.organizationId, destinationId);
      if (!destination) throw new Error(`No output destination ${destinationId} in this organization`);
      const event = newEvent(ctx.organizationId, 'agent.message', { runId: ctx.runId, agentId: ctx.agentId, title: title ?? null, message });
      const id = await deps.db.transaction().execute(async (tx) => {
        const [queued] = await queueDeliveries(tx, event, [destinationId]);
        if (!queued) throw new Error(`No output destination ${destinationId} in this organization`);
        await writeAudit(tx, reqCtx, { action: 'destination.message', resourceType: 'destination', resourceId: destinationId, metadata: { deliveryId: queued.deliveryId, runId: ctx.runId, agentId: ctx.agentId } });
        return queued.deliveryId;
      });
      return { deliveryId: id, destinationId, destinationName: destination.name, destinationType: destination.type, status: 'pending' as const };
    },
  });
}
