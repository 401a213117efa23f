import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobCatalog } from '../../src/platform/jobs/catalog.js';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { createDeliveryJob } from '../../src/modules/delivery/index.js';
import { recoverAlertCreatedEvents } from '../../src/modules/alerts/alert-event-recovery.js';
import { createTestApp, type TestContext } from '../support/app.js';
import { createAgent } from '../support/agents.js';
import { createDestination, deliveryDeps } from '../support/delivery.js';
import { killNow, spawnLogged, untilOutput } from '../support/processes.js';
import { until } from '../support/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/fakes/webhook-receiver.js';
import { startTestWorker } from '../support/worker.js';

/**
 * Issue 46 point 4, the group commit's gap: webhook intake writes a trigger's alert and run in
 * one statement without a transaction, then the alert's `alert.created` event in a transaction of
 * its own. A process killed with SIGKILL between the two (here: stopped in the event's subscriber,
 * the alert committed, the event not) must not lose the event: the recovery pass queues it, once,
 * and the receiver gets it once, with the alert's id as its `webhook-id`.
 */
const TOKEN = 'whsec_' + Buffer.from('a-signing-secret-of-32-bytes-abc').toString('base64');
let t: TestContext;
let rx: WebhookReceiver;
let child: ChildProcess | null = null;
let worker: WorkerRunner | null = null;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  rx = await startWebhookReceiver({ secret: TOKEN });
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await worker?.stop();
  await rx?.close();
  await t?.close();
});

describe('a crash between the alert and its alert.created event', () => {
  it('loses no event: the recovery pass queues it once, and it is delivered once', async () => {
    const key = t.orgA.apiKey.key;
    const agentId = await createAgent(t, key, { name: 'Triage' });
    const destinationId = await createDestination(t, key, { type: 'webhook', name: 'SOAR', config: { url: rx.url, authType: 'bearer' }, token: TOKEN, eventSubscriptions: ['alert.created'] });

    const gap = spawnLogged(process.execPath, ['--import', 'tsx', 'test/support/alert-gap-child.ts'], {
      cwd: process.cwd(),
      env: { ...process.env, GAP_TEST_DATABASE_URL: (t.database as unknown as { url: string }).url, GAP_TEST_ORG: t.orgA.organization.id, GAP_TEST_AGENT: agentId, GAP_TEST_USER: t.orgA.user.id },
    });
    child = gap.child;
    // The shared poller's default bound (60 s): the child's start (tsx, the trigger flow's imports)
    // alone took over 30 s with this process pinned to a core that two busy loops shared.
    const alertId = await untilOutput(gap, 'the child to reach the window', (output) => /in-window (\S+)/.exec(output)?.[1]);
    await killNow(gap);

    // The alert and its run were committed; its event was not.
    const alert = await t.database.db.selectFrom('alerts').select(['id', 'triageRunId']).where('id', '=', alertId).executeTakeFirst();
    expect(alert?.id).toBe(alertId);
    expect(await t.database.db.selectFrom('agentRuns').select('id').where('id', '=', alert!.triageRunId!).executeTakeFirst()).toBeDefined();
    const deliveries = () => t.database.db.selectFrom('destinationDeliveries').select(['eventId', 'eventKind']).where('destinationId', '=', destinationId).execute();
    expect(await deliveries()).toEqual([]);

    // The recovery pass (every scheduler tick; no settle delay here) queues the lost event, once.
    expect(await recoverAlertCreatedEvents(t.database.db, { settleMs: 0 })).toBe(1);
    expect(await recoverAlertCreatedEvents(t.database.db, { settleMs: 0 })).toBe(0);
    expect(await deliveries()).toEqual([{ eventId: alertId, eventKind: 'alert.created' }]);

    worker = await startTestWorker(t, new JobCatalog().register(createDeliveryJob(deliveryDeps(t))), { concurrency: 1 });
    await until('the receiver to get the event', () => rx.requests.length > 0);
    const body = JSON.parse(rx.requests[0]!.body) as { id: string; type: string; data: { alert: { id: string } } };
    expect(body).toMatchObject({ id: alertId, type: 'alert.created', data: { alert: { id: alertId } } });
    expect(rx.requests[0]!.headers['webhook-id']).toBe(alertId);
    // The late original, were the process to come back, would not queue it again.
    expect(await recoverAlertCreatedEvents(t.database.db, { settleMs: 0 })).toBe(0);
    expect(rx.requests).toHaveLength(1);
    // A child process to start on a loaded machine: as jobs.test.ts's crash test, 120 s.
  }, 120_000);
});
