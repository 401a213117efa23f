/**
 * A process for the group commit's gap test (test/alerts/alert-event-gap.test.ts): it writes a trigger's
 * alert with its run through webhook intake's one-statement path (no transaction, the group
 * commit), then stops in the window before the alert's `alert.created` event is written: the
 * event's subscriber announces `in-window <alertId>` and never returns. The test kills it there
 * with SIGKILL.
 *
 * Run as: node --import tsx test/support/alert-gap-child.ts
 * Env: GAP_TEST_DATABASE_URL, GAP_TEST_ORG, GAP_TEST_AGENT, GAP_TEST_USER.
 */
import { uuidv7 } from 'uuidv7';
import { openDatabase } from '../../src/platform/db/database.js';
import { createEventBus } from '../../src/platform/events.js';
import { createTriggerAlert, createTriggerAlertGroup } from '../../src/flows/trigger-firing.flow.js';

const { GAP_TEST_DATABASE_URL: url, GAP_TEST_ORG: organizationId, GAP_TEST_AGENT: agentId, GAP_TEST_USER: userId } = process.env;
if (!url || !organizationId || !agentId || !userId) {
  process.stderr.write('GAP_TEST_DATABASE_URL, GAP_TEST_ORG, GAP_TEST_AGENT and GAP_TEST_USER must be set\n');
  process.exit(2);
}
const database = openDatabase(url, { max: 2 });
const events = createEventBus([
  {
    'alert.created': async (_tx, event) => {
      process.stdout.write(`in-window ${(event.data as { alert: { id: string } }).alert.id}\n`);
      await new Promise(() => {});
    },
  },
]);
const grouped = createTriggerAlertGroup(database.db, { maxWaitMs: 0, maxBatch: 8, maxInFlight: 1 });
const runId = uuidv7();
await createTriggerAlert(
  database.db,
  {
    organizationId,
    title: 'Written just before the crash',
    severity: 'high',
    source: { category: 'trigger', name: 'Gap hook', triggerType: 'webhook' },
    createdBy: 'trigger',
    payload: { rule: 'gap' },
    triage: { kind: 'trigger', agentId, runId, triggerName: 'Gap hook' },
  },
  { organizationId, agentId, mode: 'trigger', input: { rule: 'gap' }, actorUserId: userId },
  { events, grouped },
);
