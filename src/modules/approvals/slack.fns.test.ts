import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { APPROVE_ACTION, DENY_ACTION, decidedMessage, slackClickOf, slackSignatureProblem } from './slack.fns.js';

const secret = '8f742231b10e8888abcd99yyyzzz85a5';
const sign = (ts: string, body: string) => `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`;

describe('Slack request signatures', () => {
  const now = 1_700_000_000;
  const body = 'payload=%7B%22type%22%3A%22block_actions%22%7D';
  it('accepts a signature over v0:timestamp:body within 5 minutes', () => {
    expect(slackSignatureProblem(secret, { signature: sign(String(now - 299), body), timestamp: String(now - 299) }, body, now)).toBeNull();
  });
  it('refuses a wrong signature, a tampered body, a 6-minute-old timestamp, missing headers', () => {
    expect(slackSignatureProblem(secret, { signature: sign(String(now), body).replace(/.$/, '0'), timestamp: String(now) }, body, now)).toMatch(/Invalid X-Slack-Signature/);
    expect(slackSignatureProblem(secret, { signature: sign(String(now), body), timestamp: String(now) }, `${body}x`, now)).toMatch(/Invalid X-Slack-Signature/);
    expect(slackSignatureProblem(secret, { signature: sign(String(now - 360), body), timestamp: String(now - 360) }, body, now)).toMatch(/Stale/);
    expect(slackSignatureProblem(secret, { timestamp: String(now) }, body, now)).toMatch(/Missing/);
  });
  it('reads our button clicks only', () => {
    const id = '0190d7a0-0000-7000-8000-000000000001';
    expect(slackClickOf({ type: 'block_actions', user: { id: 'U1' }, response_url: 'https://hooks.slack.com/x', actions: [{ action_id: APPROVE_ACTION, value: id }] })).toEqual({ approvalId: id, decision: 'approved', slackUserId: 'U1', teamId: null, responseUrl: 'https://hooks.slack.com/x', messageBlocks: [] });
    expect(slackClickOf({ type: 'block_actions', user: { id: 'U1' }, actions: [{ action_id: 'other', value: id }] })).toBeNull();
    expect(slackClickOf({ type: 'view_submission' })).toBeNull();
  });
  it('the decided message keeps the request\'s blocks, drops our buttons, and names the decision', () => {
    const id = '0190d7a0-0000-7000-8000-000000000001';
    const header = { type: 'header', text: { type: 'plain_text', text: 'Approval needed' } };
    const buttons = { type: 'actions', block_id: `rampart_approval_${id}`, elements: [{ type: 'button', action_id: APPROVE_ACTION, value: id }, { type: 'button', action_id: DENY_ACTION, value: id }] };
    const context = { type: 'context', elements: [{ type: 'mrkdwn', text: '<https://r.example/approvals/x|Review the request>' }] };
    const click = slackClickOf({ type: 'block_actions', user: { id: 'U1' }, message: { blocks: [header, buttons, context] }, actions: [{ action_id: APPROVE_ACTION, value: id }] })!;
    expect(decidedMessage(click, 'Approved by Ada')).toEqual({
      replace_original: true,
      text: 'Approved by Ada',
      blocks: [header, context, { type: 'section', text: { type: 'plain_text', text: 'Approved by Ada' } }],
    });
  });
});
