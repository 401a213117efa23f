import { describe, expect, it } from 'vitest';
import { decodeForm, deliveryKeyOf, slackDecision } from './intake.fns.js';

describe('deliveryKeyOf', () => {
  it('uses Slack event ids, then delivery headers in order', () => {
    expect(deliveryKeyOf('slack', {}, { event_id: 'Ev1' })).toBe('slack:Ev1');
    expect(deliveryKeyOf('linear', { 'linear-delivery': 'd1', 'idempotency-key': 'k' }, {})).toBe('linear-delivery:d1');
    expect(deliveryKeyOf('webhook', { 'webhook-id': 'msg_1' }, {})).toBe('webhook-id:msg_1');
    expect(deliveryKeyOf('jira', { 'x-atlassian-webhook-identifier': '42' }, {})).toBe('x-atlassian-webhook-identifier:42');
    expect(deliveryKeyOf('darktrace', { 'x-delivery-id': 'x' }, {})).toBe('x-delivery-id:x');
    expect(deliveryKeyOf('darktrace', {}, {})).toBeNull();
    expect(deliveryKeyOf('webhook', { 'idempotency-key': ' ' }, {})).toBeNull();
    expect(deliveryKeyOf('webhook', { 'idempotency-key': 'k'.repeat(1000) }, {})!.length).toBe(300);
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
