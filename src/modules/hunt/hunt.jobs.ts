import { z } from 'zod';
import { sql } from 'kysely';
import type { Database, Queryable } from '../../platform/db/database.js';
import { defineJob } from '../../platform/jobs/catalog.js';
import { enqueue } from '../../platform/jobs/enqueue.js';
import { assessThreats, type RunTrigger } from './assess.service.js';
import type { EventBus } from '../../platform/events.js';

/**
 * `hunt:reassess`: reassess some (or, without `threatIds`, all) threats of an organization.
 * Enqueued in the transaction of the change that calls for it: an inventory change (keyed per
 * organization and delayed 30 s, so a burst of imports makes one run) or sightings that match
 * indicators. Idempotent: a second run only adds a "No change." run.
 */
export const ReassessPayload = z.object({
  organizationId: z.uuid(),
  threatIds: z.array(z.uuid()).max(5000).optional(),
  trigger: z.enum(['inventory_change', 'sighting', 'schedule', 'new_intel']),
});
export type ReassessPayloadT = z.infer<typeof ReassessPayload>;
export const REASSESS_JOB = { name: 'hunt:reassess', payload: ReassessPayload, maxAttempts: 3 };

export async function enqueueReassess(tx: Queryable, payload: ReassessPayloadT): Promise<string> {
  const whole = !payload.threatIds;
  return enqueue(tx, REASSESS_JOB, payload, whole ? { jobKey: `hunt-reassess:${payload.organizationId}`, runAt: new Date(Date.now() + 30_000) } : {});
}

export async function runReassess(db: Database, payload: ReassessPayloadT, events?: EventBus): Promise<string[]> {
  const ids = payload.threatIds ?? (await sql<{ id: string }>`SELECT id FROM hunt_threats WHERE organization_id = ${payload.organizationId} ORDER BY id`.execute(db)).rows.map((r) => r.id);
  return assessThreats(db, payload.organizationId, ids, { kind: 'reassess', trigger: payload.trigger as RunTrigger, events });
}

export function createHuntReassessJob(deps: { db: Database; events?: EventBus }) {
  return defineJob({ ...REASSESS_JOB, run: async (payload) => void (await runReassess(deps.db, payload, deps.events)) });
}
