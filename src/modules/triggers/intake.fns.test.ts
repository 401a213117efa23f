import { describe, expect, it } from 'vitest';
import { decodeForm, deliveryIdOf, mappedInput, slackDecision, triggerContextOf } from './intake.fns.js';

describe('deliveryIdOf', () => {
  const keyOf = (...args: Parameters<typeof deliveryIdOf>) => deliveryIdOf(...args)?.key ?? null;
  it('uses Slack event ids, then delivery headers in order', () => {
    expect(deliveryIdOf('slack', {}, { event_id: 'Ev1' })).toEqual({ id: 'Ev1', key: 'slack:Ev1' });
    expect(keyOf('linear', { 'linear-delivery': 'd1', 'idempotency-key': 'k' }, {})).toBe('linear-delivery:d1');
    expect(keyOf('webhook', { 'webhook-id': 'msg_1' }, {})).toBe('webhook-id:msg_1');
    expect(keyOf('jira', { 'x-atlassian-webhook-identifier': '42' }, {})).toBe('x-atlassian-webhook-identifier:42');
    expect(keyOf('darktrace', { 'x-delivery-id': 'x' }, {})).toBe('x-delivery-id:x');
    expect(keyOf('darktrace', {}, {})).toBeNull();
    expect(keyOf('webhook', { 'idempotency-key': ' ' }, {})).toBeNull();
    expect(keyOf('webhook', { 'idempotency-key': 'k'.repeat(1000) }, {})!.length).toBe(300);
  });

  it('falls back to the payload id the trigger names when no delivery header came', () => {
    const finding = { id: 'a4c1e0f0-guardduty', detail: { n: 7 } };
    expect(deliveryIdOf('webhook', {}, finding, '/id')).toEqual({ id: 'a4c1e0f0-guardduty', key: 'payload:a4c1e0f0-guardduty' });
    expect(keyOf('webhook', {}, finding, '/detail/n')).toBe('payload:7');
    expect(keyOf('webhook', { 'x-delivery-id': 'h' }, finding, '/id')).toBe('x-delivery-id:h');
    expect(keyOf('webhook', {}, finding, '/missing')).toBeNull();
    expect(keyOf('webhook', {}, { id: { nested: 1 } }, '/id')).toBeNull();
    expect(keyOf('webhook', {}, finding)).toBeNull();
  });
});

describe('triggerContextOf', () => {
  it('keeps the event type, the delivery id and descriptive headers, never credentials', () => {
    const headers = {
      'x-github-event': 'push',
      'x-github-delivery': 'd-1',
      'user-agent': 'GitHub-Hookshot/1',
      authorization: 'Bearer whsec_secret',
      'x-rampart-secret': 'whsec_secret',
      'x-hub-signature-256': 'sha256=abc',
      cookie: 'a=b',
    };
    const ctx = triggerContextOf('webhook', headers, deliveryIdOf('webhook', headers, {}), new Date('2026-01-02T03:04:05.000Z'));
    expect(ctx).toEqual({
      source: 'webhook',
      deliveryId: 'd-1',
      eventType: 'push',
      headers: { 'user-agent': 'GitHub-Hookshot/1', 'x-github-delivery': 'd-1', 'x-github-event': 'push' },
      receivedAt: '2026-01-02T03:04:05.000Z',
    });
    for (const [name, value] of [['x-gitlab-event', 'Merge Request Hook'], ['x-event-key', 'jira:issue_created'], ['linear-event', 'Issue'], ['x-linear-event', 'Comment']]) {
      expect(triggerContextOf('webhook', { [name!]: value }, null, new Date()).eventType).toBe(value);
    }
    expect(triggerContextOf('zscaler', {}, null, new Date())).toMatchObject({ deliveryId: null, eventType: null, headers: {} });
  });
});

describe('mappedInput', () => {
  it('keeps the payload and sets each input the pointers find at the top level', () => {
    const body = { detail: { severity: 8, title: 'Recon' }, id: 'f1' };
    expect(mappedInput(body, null)).toBe(body);
    expect(mappedInput(body, { finding: '/detail', severity: '/detail/severity', gone: '/nope' })).toEqual({ ...body, finding: body.detail, severity: 8 });
    expect(mappedInput(['a'], { first: '/0' })).toEqual({ payload: ['a'], first: 'a' });
  });
});

describe('slackDecision', () => {
  it('answers the URL handshake, ignores bots, runs the rest', () => {
    expect(slackDecision({ type: 'url_verification', challenge: 'c' })).toEqual({ kind: 'challenge', challenge: 'c' });
    expect(slackDecision({ type: 'event_callback', event: { bot_id: 'B1' } })).toMatchObject({ kind: 'ignore' });
    expect(slackDecision({ type: 'event_callback', event: { subtype: 'bot_message' } })).toMatchObject({ kind: 'ignore' });
    expect(slackDecision({ type: 'event_callback', event: { type: 'message', text: 'hi' } })).toEqual({ kind: 'run' });
    expect(slackDecision(null)).toEqual({ kind: 'run' });
  });
});

describe('decodeForm', () => {
  it('decodes forms, repeated keys and Slack payloads', () => {
    expect(decodeForm('a=1&b=x+y&a=2')).toEqual({ a: ['1', '2'], b: 'x y' });
    expect(decodeForm(`payload=${encodeURIComponent('{"type":"block_actions"}')}`)).toEqual({ type: 'block_actions' });
    expect(decodeForm('payload=not-json')).toEqual({ payload: 'not-json' });
  });
});
