import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  REPLAY_WINDOW_MS,
  standardWebhooksKey,
  verifyBugcrowd,
  verifyHackerOne,
  verifyHubSignature,
  verifyLinear,
  verifySenderSignature,
  verifySlack,
  verifyStandardWebhooks,
  type Headers,
} from './signatures.fns.js';

const secret = 'shh-this-is-the-signing-secret';
const now = Date.UTC(2026, 10, 22, 11, 28, 29);
const nowS = Math.floor(now / 1000);
const body = Buffer.from('{"hello":"wörld","n":1}');
const hex = (key: string | Buffer, data: string | Buffer) => createHmac('sha256', key).update(data).digest('hex');
const req = (headers: Headers, raw = body, parsed?: unknown) => ({ headers, rawBody: raw, body: parsed, now });

describe('Slack', () => {
  const sign = (ts: number, key = secret) => ({
    'x-slack-request-timestamp': String(ts),
    'x-slack-signature': `v0=${hex(key, `v0:${ts}:${body.toString()}`)}`,
  });
  it('accepts a valid signature', () => expect(verifySlack(req(sign(nowS)), secret)).toEqual({ ok: true, scheme: 'slack' }));
  it('refuses another secret', () => expect(verifySlack(req(sign(nowS, 'other')), secret)).toMatchObject({ ok: false, reason: 'mismatch' }));
  it('refuses a tampered body', () => expect(verifySlack(req(sign(nowS), Buffer.from('{"hello":"world"}')), secret)).toMatchObject({ reason: 'mismatch' }));
  it('refuses a stale timestamp', () => expect(verifySlack(req(sign(nowS - 301)), secret)).toMatchObject({ reason: 'stale' }));
  it('refuses a future timestamp', () => expect(verifySlack(req(sign(nowS + 301)), secret)).toMatchObject({ reason: 'stale' }));
  it('accepts the window edge', () => expect(verifySlack(req(sign(nowS - 300)), secret)).toMatchObject({ ok: true }));
  it('is absent without its header', () => expect(verifySlack(req({}), secret)).toBeNull());
  it('refuses malformed headers', () => {
    const h = sign(nowS);
    expect(verifySlack(req({ ...h, 'x-slack-signature': h['x-slack-signature'].slice(3) }), secret)).toMatchObject({ reason: 'malformed' });
    expect(verifySlack(req({ ...h, 'x-slack-signature': 'v0=zz' }), secret)).toMatchObject({ reason: 'malformed' });
    expect(verifySlack(req({ ...h, 'x-slack-request-timestamp': 'yesterday' }), secret)).toMatchObject({ reason: 'malformed' });
    expect(verifySlack(req({ 'x-slack-signature': h['x-slack-signature'] }), secret)).toMatchObject({ reason: 'malformed' });
  });
  it('treats a truncated or padded signature as a mismatch of length (malformed hex)', () => {
    const h = sign(nowS);
    expect(verifySlack(req({ ...h, 'x-slack-signature': `${h['x-slack-signature']}00` }), secret)).toMatchObject({ ok: false });
    expect(verifySlack(req({ ...h, 'x-slack-signature': h['x-slack-signature'].slice(0, -2) }), secret)).toMatchObject({ ok: false });
  });
});

describe('Linear', () => {
  const raw = (ts: number) => Buffer.from(JSON.stringify({ action: 'create', webhookTimestamp: ts }));
  const call = (ts: number, key = secret, sig?: string) => {
    const b = raw(ts);
    return verifyLinear(req({ 'linear-signature': sig ?? hex(key, b) }, b, JSON.parse(b.toString())), secret);
  };
  it('accepts a valid signature with a fresh webhookTimestamp', () => expect(call(now - 1000)).toEqual({ ok: true, scheme: 'linear' }));
  it('refuses another secret', () => expect(call(now, 'other')).toMatchObject({ reason: 'mismatch' }));
  it('refuses a stale webhookTimestamp', () => expect(call(now - REPLAY_WINDOW_MS - 1)).toMatchObject({ reason: 'stale' }));
  it('refuses a future webhookTimestamp', () => expect(call(now + REPLAY_WINDOW_MS + 1)).toMatchObject({ reason: 'stale' }));
  it('refuses a malformed signature', () => expect(call(now, secret, 'sha256=abc')).toMatchObject({ reason: 'malformed' }));
  it('refuses a body without webhookTimestamp', () => {
    const b = Buffer.from('{"action":"create"}');
    expect(verifyLinear(req({ 'linear-signature': hex(secret, b) }, b, { action: 'create' }), secret)).toMatchObject({ reason: 'malformed' });
  });
});

describe('HackerOne and GitHub style', () => {
  const sig = `sha256=${hex(secret, body)}`;
  it('HackerOne: valid, wrong secret, malformed', () => {
    expect(verifyHackerOne(req({ 'x-h1-signature': sig }), secret)).toEqual({ ok: true, scheme: 'hackerone' });
    expect(verifyHackerOne(req({ 'x-h1-signature': `sha256=${hex('x', body)}` }), secret)).toMatchObject({ reason: 'mismatch' });
    expect(verifyHackerOne(req({ 'x-h1-signature': hex(secret, body) }), secret)).toMatchObject({ reason: 'malformed' });
    expect(verifyHackerOne(req({}), secret)).toBeNull();
  });
  it('X-Hub-Signature-256 and Jira\'s X-Hub-Signature', () => {
    expect(verifyHubSignature(req({ 'x-hub-signature-256': sig }), secret)).toEqual({ ok: true, scheme: 'hub' });
    expect(verifyHubSignature(req({ 'x-hub-signature': sig }), secret)).toEqual({ ok: true, scheme: 'hub' });
    expect(verifyHubSignature(req({ 'x-hub-signature': sig.toUpperCase().replace('SHA256=', 'sha256=') }), secret)).toMatchObject({ ok: true });
    expect(verifyHubSignature(req({ 'x-hub-signature': `sha1=${createHmac('sha1', secret).update(body).digest('hex')}` }), secret)).toMatchObject({ reason: 'malformed' });
    expect(verifyHubSignature(req({ 'x-hub-signature-256': `sha256=${hex('nope', body)}` }), secret)).toMatchObject({ reason: 'mismatch' });
  });
});

describe('Standard Webhooks', () => {
  const whsec = `whsec_${randomBytes(32).toString('base64')}`;
  const key = standardWebhooksKey(whsec);
  const sign = (ts: number, k: Buffer | string = key, id = 'msg_2Kx') => createHmac('sha256', k).update(`${id}.${ts}.`).update(body).digest('base64');
  const headers = (ts: number, sigs: string, id = 'msg_2Kx') => ({ 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': sigs });

  it('decodes whsec_ keys and uses other secrets as bytes', () => {
    expect(key).toHaveLength(32);
    expect(standardWebhooksKey('plain').toString()).toBe('plain');
  });
  it('accepts a valid signature', () => expect(verifyStandardWebhooks(req(headers(nowS, `v1,${sign(nowS)}`)), whsec)).toEqual({ ok: true, scheme: 'standard-webhooks' }));
  it('accepts any one valid entry of several (key rotation)', () => {
    const other = createHmac('sha256', 'old').update('x').digest('base64');
    expect(verifyStandardWebhooks(req(headers(nowS, `v1,${other} v1a,xyz v1,${sign(nowS)}`)), whsec)).toMatchObject({ ok: true });
  });
  it('refuses another secret', () => expect(verifyStandardWebhooks(req(headers(nowS, `v1,${sign(nowS, 'wrong')}`)), whsec)).toMatchObject({ reason: 'mismatch' }));
  it('refuses a signature bound to another id', () => expect(verifyStandardWebhooks(req(headers(nowS, `v1,${sign(nowS, key, 'msg_other')}`)), whsec)).toMatchObject({ reason: 'mismatch' }));
  it('refuses stale and future timestamps', () => {
    expect(verifyStandardWebhooks(req(headers(nowS - 301, `v1,${sign(nowS - 301)}`)), whsec)).toMatchObject({ reason: 'stale' });
    expect(verifyStandardWebhooks(req(headers(nowS + 301, `v1,${sign(nowS + 301)}`)), whsec)).toMatchObject({ reason: 'stale' });
  });
  it('refuses malformed headers', () => {
    expect(verifyStandardWebhooks(req({ 'webhook-signature': `v1,${sign(nowS)}` }), whsec)).toMatchObject({ reason: 'malformed' });
    expect(verifyStandardWebhooks(req(headers(nowS, 'v2,abc')), whsec)).toMatchObject({ reason: 'malformed' });
    expect(verifyStandardWebhooks(req(headers(nowS, 'v1,not base64!')), whsec)).toMatchObject({ ok: false });
  });
  it('refuses a truncated signature (length mismatch)', () => {
    expect(verifyStandardWebhooks(req(headers(nowS, `v1,${sign(nowS).slice(0, 20)}`)), whsec)).toMatchObject({ reason: 'mismatch' });
  });
});

describe('Bugcrowd', () => {
  it('accepts sha256=<hex> over the body', () => {
    expect(verifyBugcrowd(req({ 'x-bugcrowd-digest': `sha256=${hex(secret, body)}` }), secret)).toEqual({ ok: true, scheme: 'bugcrowd' });
  });
  it('accepts a timestamped digest and checks its window', () => {
    const mac = hex(secret, Buffer.concat([body, Buffer.from(`.${nowS}`)]));
    expect(verifyBugcrowd(req({ 'x-bugcrowd-digest': `timestamp=${nowS};sha256=${mac}` }), secret)).toMatchObject({ ok: true });
    const old = nowS - 400;
    const oldMac = hex(secret, Buffer.concat([body, Buffer.from(`.${old}`)]));
    expect(verifyBugcrowd(req({ 'x-bugcrowd-digest': `timestamp=${old};sha256=${oldMac}` }), secret)).toMatchObject({ reason: 'stale' });
  });
  it('refuses wrong secrets and malformed digests', () => {
    expect(verifyBugcrowd(req({ 'x-bugcrowd-digest': `sha256=${hex('x', body)}` }), secret)).toMatchObject({ reason: 'mismatch' });
    expect(verifyBugcrowd(req({ 'x-bugcrowd-digest': 'md5=abc' }), secret)).toMatchObject({ reason: 'malformed' });
  });
});

describe('per-source dispatch', () => {
  it('uses the schemes of the source only', () => {
    const h = { 'x-hub-signature-256': `sha256=${hex(secret, body)}` };
    expect(verifySenderSignature('jira', req(h), secret)).toMatchObject({ ok: true });
    expect(verifySenderSignature('webhook', req(h), secret)).toMatchObject({ ok: true });
    expect(verifySenderSignature('slack', req(h), secret)).toBeNull();
    expect(verifySenderSignature('darktrace', req(h), secret)).toBeNull();
  });
});
