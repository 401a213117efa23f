import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';

/**
 * Issue 47 §18: the evidence an analyst exports is what the sender sent. A GuardDuty finding as
 * EventBridge delivers it (test/fixtures/guardduty, its file's bytes as the body) reaches a
 * webhook trigger; GET /api/alerts/{id} answers `payloadRaw`, the body byte for byte (key
 * order, indentation, the trailing newline), beside the parsed `payload` — whose stored JSON
 * (jsonb) does not keep the key order. Both intake paths: the group commit (a plain delivery)
 * and the one-statement insert inside the delivery's transaction (a Standard Webhooks `webhook-id`).
 */
let t: TestContext;
let admin: Record<string, string>;
let agentId: string;
let trigger: { path: string; secret: string };
const finding = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/guardduty/ssh-brute-force.eventbridge.json'));

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_INTAKE_GROUP_WAIT_MS: '20' } });
  admin = bearer(t.orgA.apiKey.key);
  agentId = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'Cloud triage', systemPrompt: 'Triage.' } })).json().id;
  const { secret, webhookUrl } = (await t.app.inject({ url: `/api/agents/${agentId}/trigger/webhook/fields`, headers: admin })).json().data;
  const id = webhookUrl.split('/').pop();
  const saved = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: admin, payload: { triggerId: id, source: 'webhook', name: 'GuardDuty' } });
  expect(saved.statusCode, saved.body).toBe(200);
  trigger = { path: `/api/trigger/webhook/${id}`, secret };
});
afterAll(() => t.close());

async function deliver(body: Buffer | string, headers: Record<string, string> = {}) {
  const res = await t.app.inject({ method: 'POST', url: trigger.path, headers: { 'content-type': 'application/json', 'x-rampart-secret': trigger.secret, ...headers }, payload: body });
  expect(res.statusCode, res.body).toBe(200);
  const runId = res.json().executionId as string;
  const { alert } = (await t.app.inject({ url: `/api/agent-runs/${runId}/alert`, headers: admin })).json();
  const detail = await t.app.inject({ url: `/api/alerts/${alert.displayId}`, headers: admin });
  expect(detail.statusCode, detail.body).toBe(200);
  return detail.json().alert as { payload: unknown; payloadRaw: string | null; displayId: string };
}

describe('a trigger alert keeps the body as received', () => {
  it('a plain delivery (group commit): payloadRaw is the file byte for byte; payload is the same value parsed', async () => {
    const alert = await deliver(finding);
    expect(alert.payloadRaw).toBe(finding.toString('utf8'));
    expect(Buffer.from(alert.payloadRaw!, 'utf8').equals(finding)).toBe(true);
    expect(alert.payload).toEqual(JSON.parse(finding.toString('utf8')));
    // What jsonb does to the parsed copy (why the raw one is kept): the keys no longer come in the sender's order.
    const stored = await t.database.db.selectFrom('alerts').select((eb) => eb.cast<string>('payload', 'text').as('text')).where('organizationId', '=', t.orgA.organization.id).where('number', '=', Number(alert.displayId.split('-')[1])).executeTakeFirstOrThrow();
    expect(Object.keys(JSON.parse(stored.text))).not.toEqual(Object.keys(JSON.parse(finding.toString('utf8'))));
  });

  it('a delivery with a webhook-id (its own transaction): key order, spacing, duplicate keys and non-ASCII text kept', async () => {
    const body = '{"z":1,   "a" : {"y":"Zürich ☁","b":[3,2,1]},"z":2}\n';
    const alert = await deliver(body, { 'webhook-id': 'msg_raw_1' });
    expect(alert.payloadRaw).toBe(body);
    expect(alert.payload).toEqual({ z: 2, a: { y: 'Zürich ☁', b: [3, 2, 1] } });
  });

  it('a body that is not UTF-8 keeps only the parsed payload (payloadRaw null, as documented)', async () => {
    const body = Buffer.concat([Buffer.from('{"title":"bad byte '), Buffer.from([0xff]), Buffer.from('"}')]);
    const alert = await deliver(body);
    expect(alert.payloadRaw).toBeNull();
    expect(alert.payload).toEqual({ title: 'bad byte \ufffd' });
  });

  it('an alert created through the API has payloadRaw null; lists never carry payloads', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: admin, payload: { title: 'By hand', payload: { b: 1, a: 2 } } });
    expect(created.statusCode, created.body).toBe(200);
    const detail = (await t.app.inject({ url: `/api/alerts/${created.json().alert.id}`, headers: admin })).json().alert;
    expect(detail).toMatchObject({ payload: { b: 1, a: 2 }, payloadRaw: null });
    const list = (await t.app.inject({ url: '/api/alerts', headers: admin })).json().alerts as Array<Record<string, unknown>>;
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((a) => !('payloadRaw' in a) && !('payload' in a))).toBe(true);
  });
});
