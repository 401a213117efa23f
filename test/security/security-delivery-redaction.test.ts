import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { attemptDelivery, createDestination, deliveryDeps, deliveryLog, queue } from '../support/delivery.js';
import { startServer } from '../support/fakes/http-server.js';
import { redactSecrets, redactUrlSecrets } from '../../src/platform/outbound/url-secrets.js';

/**
 * Issue 25 items 4, 5 and 8 (one-letter tokens): every stored text that came back from a
 * receiver goes through one redaction, by parameter name and by the shape of known
 * secret-bearing URLs, for every reader (delivery log, attempts, destination health, run detail).
 */
let t: TestContext;
let key: string;
let org: string;
let reader: string;
let rx: Awaited<ReturnType<typeof startServer>>;

const SECRETS = ['FULLSIGSECRET', 'TOKVALUE1234', 'XAPITOKEN999', 'SLACKHOOKSECRET1', 'DISCORDHOOKSECRET1', 'TEAMSHOOKSECRET1'];
const ECHOED = [
  'https://hooks.slack.com/services/T000/B000/SLACKHOOKSECRET1',
  'https://discord.com/api/webhooks/123456789/DISCORDHOOKSECRET1',
  'https://acme.webhook.office.com/webhookb2/aa@bb/IncomingWebhook/TEAMSHOOKSECRET1/cc',
  'https://soar.example/in?x_api_token=XAPITOKEN999&page=2',
];

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
  key = t.orgA.apiKey.key;
  org = t.orgA.organization.id;
  reader = (await userWithPermissions(t.database.db, org, ['destination.read', 'agent.read'])).key;
  // A receiver that echoes the URL it was called at (and other hooks) in its 400 answer.
  rx = await startServer((req, res) => {
    res.statusCode = 400;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ error: `bad request to http://${req.headers.host}${req.url}`, seen: ECHOED }));
  });
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

function expectNoSecret(text: string, where: string) {
  for (const s of SECRETS) expect(text, `${where}: ${s}`).not.toContain(s);
}

describe('receiver text in the delivery log', () => {
  it('an analyst reads the excerpt of a receiver that echoed the URL with its secrets redacted, by name and by shape', async () => {
    const url = `${rx.url}/workflows/8f3a/triggers/manual/paths/invoke?api-version=2016-06-01&sig=FULLSIGSECRET&token=TOKVALUE1234`;
    const id = await createDestination(t, key, { type: 'teams', name: 'SOC', config: { url } });
    const { ids } = await queue(t, org, [id]);
    expect(await attemptDelivery(deliveryDeps(t), ids[0]!)).toBe('failed');
    const res = await t.app.inject({ url: `/api/output-destinations/${id}/deliveries`, headers: bearer(reader) });
    expect(res.statusCode).toBe(200);
    expectNoSecret(res.body, 'deliveries');
    const d = res.json().deliveries[0];
    expect(d.responseStatus).toBe(400);
    expect(d.responseExcerpt).toContain('sig=REDACTED');
    expect(d.responseExcerpt).toContain('api-version=2016-06-01');
    // What is stored is redacted too (a reader of the database, a backup).
    const stored = await t.database.db.selectFrom('destinationDeliveryAttempts').select(['responseExcerpt', 'error']).where('deliveryId', '=', ids[0]!).execute();
    expectNoSecret(JSON.stringify(stored), 'stored attempts');
  });

  it('texts stored before (or by another writer) are redacted for every reader: log, attempts, health, run detail', async () => {
    const id = await createDestination(t, key, { type: 'webhook', name: 'Hook', config: { url: 'https://soar.example/in', authType: 'bearer' }, token: 'tok-xyz-secret-0001' });
    const { ids } = await queue(t, org, [id]);
    const leaky = `POST ${ECHOED.join(' and ')} failed; also https://prod.example/flow?sig=FULLSIGSECRET`;
    const agentId = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: bearer(key), payload: { name: 'R', systemPrompt: 'x' } })).json().id;
    const runId = uuidv7();
    const now = new Date();
    await t.database.db.insertInto('agentRuns').values({ id: runId, organizationId: org, agentId, status: 'done', statusMessage: null, mode: 'async', input: JSON.stringify({}), triggerId: null, triggerSource: null, triggerContext: null, actorUserId: null, actorApiKeyId: null, result: null, queuedAt: now, startedAt: now, finishedAt: now, updatedAt: now }).execute();
    await t.database.db.updateTable('destinationDeliveries').set({ status: 'failed', error: leaky, responseExcerpt: leaky, runId, attemptCount: 1 }).where('id', '=', ids[0]!).execute();
    await t.database.db.insertInto('destinationDeliveryAttempts').values({ id: uuidv7(), organizationId: org, deliveryId: ids[0]!, destinationId: id, attempt: 1, outcome: 'failed', responseStatus: 400, responseExcerpt: leaky, error: leaky, startedAt: now, durationMs: 5 }).execute();

    const log = await deliveryLog(t, reader, id);
    expectNoSecret(JSON.stringify(log), 'log');
    expect(log.deliveries[0]!.attempts[0].error).toContain('/services/T000/B000/REDACTED');
    const dest = await t.app.inject({ url: `/api/output-destinations/${id}`, headers: bearer(reader) });
    expect(dest.json().lastError).toContain('/webhooks/123456789/REDACTED');
    expectNoSecret(dest.body, 'destination');
    const run = await t.app.inject({ url: `/api/agent-runs/${runId}`, headers: bearer(reader) });
    expect(run.statusCode).toBe(200);
    expect(run.json().deliveries[0].error).toContain('x_api_token=REDACTED&page=2');
    expectNoSecret(run.body, 'run detail');
  });
});

describe('secret-bearing URL paths in destinations', () => {
  it('a webhook destination at a Slack or Discord hook URL shows its secret only to destination.manage', async () => {
    for (const [url, shown] of [
      ['https://hooks.slack.com/services/T000/B000/SLACKHOOKSECRET1', 'https://hooks.slack.com/services/T000/B000/REDACTED'],
      ['https://discord.com/api/webhooks/123456789/DISCORDHOOKSECRET1', 'https://discord.com/api/webhooks/123456789/REDACTED'],
    ]) {
      const id = await createDestination(t, key, { type: 'webhook', name: 'Hook', config: { url, authType: 'bearer' } });
      const asReader = await t.app.inject({ url: `/api/output-destinations/${id}`, headers: bearer(reader) });
      expect(asReader.json().config.url).toBe(shown);
      expect((await t.app.inject({ url: `/api/output-destinations/${id}`, headers: bearer(key) })).json().config.url).toBe(url);
    }
  });
});

describe('a short token', () => {
  it('a one-letter token does not redact that letter in the error texts', async () => {
    const closed = await startServer(() => undefined);
    const url = `${closed.url}/in`;
    await closed.close();
    const id = await createDestination(t, key, { type: 'webhook', name: 'Short', config: { url, authType: 'bearer' }, token: 'e' });
    const { ids } = await queue(t, org, [id]);
    await attemptDelivery(deliveryDeps(t), ids[0]!);
    const d = (await deliveryLog(t, key, id)).deliveries[0]!;
    expect(d.error).toBeTruthy();
    expect(d.error).not.toContain('[redacted]');
    expect(d.error).toMatch(/e/);
  });
});

describe('the one redaction function', () => {
  it('redacts query values whose name holds key, token, secret, sig, signature, password, auth or code', () => {
    for (const name of ['x_api_token', 'client_secret', 'apiKey', 'X-Amz-Signature', 'sig', 'db_password', 'oauth', 'code', 'my_auth_header']) {
      expect(redactUrlSecrets(`https://h.example/p?${name}=v4lue&page=2`), name).toBe(`https://h.example/p?${name}=REDACTED&page=2`);
    }
    expect(redactUrlSecrets('https://h.example/p?page=2&sort=asc')).toBe('https://h.example/p?page=2&sort=asc');
  });

  it('redacts secret-bearing URL paths: Slack, Discord/Teams-style webhooks, Office connectors, Zapier, Telegram', () => {
    expect(redactUrlSecrets('https://hooks.slack.com/services/T000/B000/XXXXSECRET')).toBe('https://hooks.slack.com/services/T000/B000/REDACTED');
    expect(redactUrlSecrets('https://discord.com/api/webhooks/123/SECRET-tok')).toBe('https://discord.com/api/webhooks/123/REDACTED');
    expect(redactUrlSecrets('https://acme.webhook.office.com/webhookb2/a@b/IncomingWebhook/abc/def/ghi')).toBe('https://acme.webhook.office.com/webhookb2/a@b/IncomingWebhook/REDACTED');
    expect(redactUrlSecrets('https://hooks.zapier.com/hooks/catch/123/abcSECRET/')).toBe('https://hooks.zapier.com/hooks/catch/123/REDACTED/');
    expect(redactUrlSecrets('https://api.telegram.org/bot123456:AAEsecret/sendMessage')).toBe('https://api.telegram.org/botREDACTED/sendMessage');
    expect(redactUrlSecrets('https://prod-42.westeurope.logic.azure.com/workflows/8f3a/triggers/manual/paths/invoke?sig=abc')).toBe('https://prod-42.westeurope.logic.azure.com/workflows/8f3a/triggers/manual/paths/invoke?sig=REDACTED');
  });

  it('redacts a known secret only when long enough to be one, and only whole occurrences', () => {
    expect(redactSecrets('Refusing to connect to 10.0.0.1', ['t'])).toBe('Refusing to connect to 10.0.0.1');
    expect(redactSecrets('echo tok-123456 and xtok-1234567', ['tok-123456'])).toBe('echo [redacted] and xtok-1234567');
    expect(redactSecrets('echo: Bearer abcdefghijklmnop', [])).toBe('echo: Bearer [redacted]');
    expect(redactSecrets('{"next":"https://a.example/x?a=1\\u0026token=SECRETVAL"}', [])).not.toContain('SECRETVAL');
    expect(redactSecrets('see https://a.example/x?a=1&amp;signature=SECRETVAL', [])).not.toContain('SECRETVAL');
  });
});
