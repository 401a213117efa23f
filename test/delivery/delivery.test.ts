import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJobCatalog } from '../../src/jobs.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { attemptDelivery, createDestination, deliveryDeps, deliveryLog, jobsFor, makeDue, queue } from '../support/delivery.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/fakes/webhook-receiver.js';

/**
 * Delivery to a generic webhook: the exact request (envelope, Standard Webhooks signature,
 * auth), retries with Retry-After, permanent failures, the delivery log, redelivery,
 * test-send, destination health, deletion with history kept (issue 12, issue 18 item 1).
 */
const TOKEN = 'whsec_' + Buffer.from('a-signing-secret-of-32-bytes-abc').toString('base64');
let t: TestContext;
let key: string;
let org: string;
let rx: WebhookReceiver;
let reader: TestUser;
let destinationId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
  key = t.orgA.apiKey.key;
  org = t.orgA.organization.id;
  rx = await startWebhookReceiver({ secret: TOKEN });
  reader = await userWithPermissions(t.database.db, org, ['destination.read']);
  destinationId = await createDestination(t, key, { type: 'webhook', name: 'SOAR', config: { url: rx.url, authType: 'bearer' }, token: TOKEN });
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

const deps = () => deliveryDeps(t);

describe('webhook delivery', () => {
  it('POSTs the envelope with Standard Webhooks headers and the bearer token, and logs the attempt', async () => {
    const { event, ids } = await queue(t, org, [destinationId]);
    expect(await jobsFor(t, ids[0]!)).toEqual([expect.objectContaining({ key: `delivery:${ids[0]}` })]);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('succeeded');
    const req = rx.requests.at(-1)!;
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['webhook-id']).toBe(event.id);
    expect(req.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(JSON.parse(req.body)).toEqual({ id: event.id, type: 'agent.message', occurredAt: event.occurredAt, organizationId: org, data: event.data });
    expect(rx.verified.at(-1)!.id).toBe(event.id);

    const log = await deliveryLog(t, reader.key, destinationId);
    const d = log.deliveries.find((x) => x.id === ids[0])!;
    expect(d).toMatchObject({ status: 'succeeded', attemptCount: 1, responseStatus: 204, eventId: event.id, eventKind: 'agent.message', destinationName: 'SOAR', destinationType: 'webhook', error: null, nextAttemptAt: null });
    expect(d.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'succeeded', responseStatus: 204, error: null })]);
    expect(d.finishedAt).not.toBeNull();
    const dest = await t.app.inject({ url: `/api/output-destinations/${destinationId}`, headers: bearer(reader.key) });
    expect(dest.json()).toMatchObject({ lastDeliveryStatus: 'succeeded', lastDeliveryAt: expect.stringMatching(/^20\d\d-/), lastError: null, consecutiveFailures: 0 });
  });

  it('puts the token in the custom header for authType "header"', async () => {
    const id = await createDestination(t, key, { type: 'webhook', name: 'Header', config: { url: rx.url, authType: 'header', headerName: 'X-Api-Key' }, token: TOKEN });
    const { ids } = await queue(t, org, [id]);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('succeeded');
    expect(rx.requests.at(-1)!.headers['x-api-key']).toBe(TOKEN);
    expect(rx.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('retries 5xx with backoff and 429 after Retry-After, with the same webhook-id; health shows the failures', async () => {
    const { event, ids } = await queue(t, org, [destinationId]);
    const id = ids[0]!;
    rx.failNext(1, 503);
    rx.failNext(1, 429, { 'retry-after': '120' });
    // Each wait runs from the answer, which came between `before` and `after`: bounded by both
    // (not by `before` plus a margin, which a slow attempt at load 15 could use up).
    const before = Date.now();
    expect(await attemptDelivery(deps(), id)).toBe('retrying');
    const after = Date.now();
    let d = (await deliveryLog(t, key, destinationId)).deliveries.find((x) => x.id === id)!;
    expect(d).toMatchObject({ status: 'retrying', attemptCount: 1, responseStatus: 503, error: 'The webhook receiver answered HTTP 503' });
    const next = Date.parse(d.nextAttemptAt);
    expect(next - before).toBeGreaterThanOrEqual(27_000); // first backoff: 30 s ± 10 %
    expect(next - after).toBeLessThanOrEqual(33_000);
    const jobs = await jobsFor(t, id);
    expect(jobs).toHaveLength(1);
    expect(Math.abs(jobs[0]!.runAt.getTime() - next)).toBeLessThan(5);

    // Not due yet: a stray job run does nothing.
    expect(await attemptDelivery(deps(), id)).toBeNull();
    await makeDue(t, id);
    const second = Date.now();
    expect(await attemptDelivery(deps(), id)).toBe('retrying');
    const secondEnded = Date.now();
    d = (await deliveryLog(t, key, destinationId)).deliveries.find((x) => x.id === id)!;
    expect(d.responseStatus).toBe(429);
    expect(Date.parse(d.nextAttemptAt) - second).toBeGreaterThanOrEqual(119_000);
    expect(Date.parse(d.nextAttemptAt) - secondEnded).toBeLessThanOrEqual(120_000);
    const health = (await t.app.inject({ url: `/api/output-destinations/${destinationId}`, headers: bearer(key) })).json();
    expect(health).toMatchObject({ lastDeliveryStatus: 'retrying', lastError: 'The webhook receiver answered HTTP 429', consecutiveFailures: 2 });

    await makeDue(t, id);
    expect(await attemptDelivery(deps(), id)).toBe('succeeded');
    const attemptsSeen = rx.requests.filter((r) => r.headers['webhook-id'] === event.id);
    expect(attemptsSeen).toHaveLength(3);
    d = (await deliveryLog(t, key, destinationId)).deliveries.find((x) => x.id === id)!;
    expect(d.attempts.map((a: { outcome: string; responseStatus: number }) => [a.outcome, a.responseStatus])).toEqual([['retrying', 503], ['retrying', 429], ['succeeded', 204]]);
    expect((await t.app.inject({ url: `/api/output-destinations/${destinationId}`, headers: bearer(key) })).json()).toMatchObject({ lastDeliveryStatus: 'succeeded', consecutiveFailures: 0 });
  });

  it('fails at once on a permanent 4xx, keeps the token out of the log, and redelivers with the same id', async () => {
    const { event, ids } = await queue(t, org, [destinationId]);
    const id = ids[0]!;
    rx.failNext(1, 422, {}, { error: 'bad payload', echoed: `Authorization: Bearer ${TOKEN}` });
    expect(await attemptDelivery(deps(), id)).toBe('failed');
    // No retry scheduled: only the (already run) first job, due in the past.
    expect((await jobsFor(t, id)).every((j) => j.runAt.getTime() <= Date.now())).toBe(true);
    const d = (await deliveryLog(t, key, destinationId, '?status=failed')).deliveries.find((x) => x.id === id)!;
    expect(d).toMatchObject({ status: 'failed', responseStatus: 422, error: 'The webhook receiver answered HTTP 422' });
    expect(d.responseExcerpt).toContain('bad payload');
    expect(JSON.stringify(d)).not.toContain(TOKEN);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM destination_delivery_attempts WHERE response_excerpt LIKE ${'%' + TOKEN + '%'}`.execute(t.database.db);
    expect(rows[0]!.n).toBe(0);

    const re = await t.app.inject({ method: 'POST', url: `/api/output-destinations/${destinationId}/deliveries/${id}/redeliver`, headers: bearer(key) });
    expect(re.statusCode, re.body).toBe(200);
    expect(re.json()).toMatchObject({ id, status: 'pending', eventId: event.id });
    expect(await jobsFor(t, id)).toHaveLength(1);
    const again = await t.app.inject({ method: 'POST', url: `/api/output-destinations/${destinationId}/deliveries/${id}/redeliver`, headers: bearer(key) });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'The delivery is already pending' });
    expect(await attemptDelivery(deps(), id)).toBe('succeeded');
    expect(rx.verified.at(-1)!.id).toBe(event.id);
  });

  it('gives up after the last attempt, and times out a receiver that never answers', async () => {
    const { ids } = await queue(t, org, [destinationId]);
    const id = ids[0]!;
    const quick = deliveryDeps(t, { policy: { maxAttempts: 2, baseDelayMs: 1_000, maxRetryAfterMs: 60_000 }, timeoutMs: 300 });
    rx.hangNext(1);
    expect(await attemptDelivery(quick, id)).toBe('retrying');
    let d = (await deliveryLog(t, key, destinationId)).deliveries.find((x) => x.id === id)!;
    expect(d.error).toMatch(/timed out/);
    expect(d.responseStatus).toBeNull();
    rx.failNext(1, 500);
    await makeDue(t, id);
    expect(await attemptDelivery(quick, id)).toBe('failed');
    d = (await deliveryLog(t, key, destinationId)).deliveries.find((x) => x.id === id)!;
    expect(d).toMatchObject({ status: 'failed', attemptCount: 2, error: 'The webhook receiver answered HTTP 500 (gave up after 2 attempts)' });
  });
});

describe('delivery log and control: errors', () => {
  it('validates the status filter and hides other organizations', async () => {
    const bad = await t.app.inject({ url: `/api/output-destinations/${destinationId}/deliveries?status=bogus`, headers: bearer(key) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'Validation failed', issues: [expect.objectContaining({ path: 'status' })] });
    const other = bearer(t.orgB.apiKey.key);
    for (const [method, url] of [
      ['GET', `/api/output-destinations/${destinationId}/deliveries`],
      ['POST', `/api/output-destinations/${destinationId}/test`],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: other });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Output destination not found' });
    }
    const { ids } = await queue(t, org, [destinationId]);
    const res = await t.app.inject({ method: 'POST', url: `/api/output-destinations/${destinationId}/deliveries/${ids[0]}/redeliver`, headers: other });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Delivery not found' });
    await attemptDelivery(deps(), ids[0]!);
  });

  it('needs destination.manage to redeliver or test', async () => {
    const { ids } = await queue(t, org, [destinationId]);
    for (const url of [`/api/output-destinations/${destinationId}/deliveries/${ids[0]}/redeliver`, `/api/output-destinations/${destinationId}/test`]) {
      const res = await t.app.inject({ method: 'POST', url, headers: bearer(reader.key) });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['destination.manage'] });
    }
    await attemptDelivery(deps(), ids[0]!);
  });
});

describe('POST /api/output-destinations/{id}/test', () => {
  it('sends a sample at once and answers what the receiver said', async () => {
    const n = rx.verified.length;
    const ok = await t.app.inject({ method: 'POST', url: `/api/output-destinations/${destinationId}/test`, headers: bearer(key) });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ ok: true, status: 204, message: 'Delivered' });
    expect(rx.verified).toHaveLength(n + 1);
    expect(rx.verified.at(-1)!.body).toMatchObject({ type: 'destination.test', data: { title: 'Rampart test message' } });

    rx.failNext(1, 403, {}, { error: 'forbidden by policy' });
    const no = await t.app.inject({ method: 'POST', url: `/api/output-destinations/${destinationId}/test`, headers: bearer(key) });
    expect(no.json()).toEqual({ ok: false, status: 403, message: 'The webhook receiver answered HTTP 403: {"error":"forbidden by policy"}' });
  });
});

describe('deleting a destination (issue 18 item 1)', () => {
  it('answers 409 naming the agents that use it, and keeps the history after deletion', async () => {
    const id = await createDestination(t, key, { type: 'webhook', name: 'Doomed', config: { url: rx.url, authType: 'bearer' }, token: TOKEN });
    const agent = await t.app.inject({ method: 'POST', url: '/api/agents', headers: bearer(key), payload: { name: 'Reporter', systemPrompt: 'x', outputDestinationIds: [id] } });
    expect(agent.statusCode, agent.body).toBe(200);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/output-destinations/${id}`, headers: bearer(key) });
    expect(del.statusCode).toBe(409);
    expect(del.json()).toEqual({ error: 'Output destination "Doomed" is used by agent "Reporter"; remove it from their outputDestinationIds before deleting it' });

    const { ids } = await queue(t, org, [id]);
    expect(await attemptDelivery(deps(), ids[0]!)).toBe('succeeded');
    const pending = await queue(t, org, [id]);
    const body = agent.json();
    const put = await t.app.inject({ method: 'PUT', url: `/api/agents/${body.id}`, headers: bearer(key), payload: { name: body.name, systemPrompt: body.systemPrompt, outputDestinationIds: [] } });
    expect(put.statusCode, put.body).toBe(200);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/output-destinations/${id}`, headers: bearer(key) })).statusCode).toBe(200);
    expect((await t.app.inject({ url: `/api/output-destinations/${id}`, headers: bearer(key) })).statusCode).toBe(404);

    // The queued one is skipped, not lost silently; the history stays readable.
    expect(await attemptDelivery(deps(), pending.ids[0]!)).toBe('skipped');
    const log = await deliveryLog(t, key, id);
    expect(log.totalCount).toBe(2);
    expect(log.deliveries.map((d) => [d.status, d.destinationName])).toEqual([['skipped', 'Doomed'], ['succeeded', 'Doomed']]);
    expect(log.deliveries[0]!.error).toBe('The destination was deleted before delivery');
    const re = await t.app.inject({ method: 'POST', url: `/api/output-destinations/${id}/deliveries/${ids[0]}/redeliver`, headers: bearer(key) });
    expect(re.statusCode).toBe(409);
    expect(re.json()).toEqual({ error: 'The destination of this delivery was deleted; it cannot be redelivered' });
  });
});

describe('wiring', () => {
  it('registers the delivery job in the service\'s job catalog', () => {
    const catalog = buildJobCatalog({ ...deliveryDeps(t), baseUrl: 'https://rampart.example.com' });
    expect(catalog.get('delivery:send')).toMatchObject({ name: 'delivery:send', maxAttempts: 5 });
  });
});

describe('metrics', () => {
  it('counts deliveries by status', async () => {
    const res = await t.app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/^rampart_deliveries\{status="succeeded"\} \d+$/m);
    expect(res.body).toMatch(/^rampart_deliveries\{status="failed"\} \d+$/m);
  });
});
