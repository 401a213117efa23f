import { describe, expect, it } from 'vitest';
import { markdownOf, messageOf, truncate, truncateBytes, TRUNCATION_MARKER } from './message.fns.js';
import { sign, signingKey } from './adapters/webhook.js';
import { toMrkdwn } from './adapters/slack.js';
import { excerptOf } from './adapters/http.js';

const base = { id: '0190a8e0-0000-7000-8000-000000000001', occurredAt: '2026-11-24T00:00:00.000Z', organizationId: 'org' };

describe('truncate', () => {
  it('keeps short text and cuts long text with the marker, within the limit', () => {
    expect(truncate('abc', 5)).toBe('abc');
    const cut = truncate('x'.repeat(100), 20);
    expect(cut).toHaveLength(20);
    expect(cut.endsWith(TRUNCATION_MARKER)).toBe(true);
  });
  it('never splits a surrogate pair or a UTF-8 sequence', () => {
    const emoji = '😀'.repeat(10);
    expect(truncate(emoji, 16)).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    const bytes = truncateBytes('é'.repeat(100), 41);
    expect(Buffer.byteLength(bytes)).toBeLessThanOrEqual(41);
    expect(bytes).not.toContain('\uFFFD');
  });
});

describe('messageOf', () => {
  it('renders run output with structured output, fields and a run link', () => {
    const m = messageOf({ ...base, type: 'agent_run.completed', data: { runId: 'r1', agentName: 'Triage', finalAssistantMessage: 'Done.', structuredOutputResult: { verdict: 'benign' } } }, 'https://r.example');
    expect(m.title).toBe('Agent Triage finished a run');
    expect(m.body).toContain('Done.');
    expect(m.body).toContain('"verdict": "benign"');
    expect(m.links).toEqual([{ text: 'Run', url: 'https://r.example/api/agent-runs/r1' }]);
    expect(markdownOf(m)).toContain('- **Agent:** Triage');
  });
  it('reads alerts: id, severity, closed statuses', () => {
    const open = messageOf({ ...base, type: 'alert.created', data: { alert: { id: 'a1', title: 'T', severity: 'HIGH', status: 'open' } } }, 'https://r');
    expect(open).toMatchObject({ title: 'New alert: T', severity: 'high', alert: { id: 'a1', closed: false } });
    const closed = messageOf({ ...base, type: 'alert.status_changed', data: { alert: { id: 'a1', title: 'T', status: 'resolved' } } }, 'https://r');
    expect(closed.alert).toMatchObject({ id: 'a1', closed: true });
    // The alerts module's shape: source is an object, closed statuses are closed_*.
    const real = messageOf({ ...base, type: 'alert.status_changed', data: { alert: { id: 'a2', title: 'T', status: 'closed_benign', source: { category: 'trigger', name: 'Jira', triggerType: 'jira' }, detection: { name: 'Rule 7' } } } }, 'https://r');
    expect(real).toMatchObject({ title: 'Alert closed benign: T', alert: { id: 'a2', closed: true, source: 'Jira', detectionName: 'Rule 7' } });
  });
});

describe('adapters (pure parts)', () => {
  it('signs as Standard Webhooks specifies (whsec_ secrets decoded)', () => {
    expect(signingKey('whsec_' + Buffer.from('k').toString('base64'))).toEqual(Buffer.from('k'));
    expect(sign('tok', 'msg_1', 1700000000, '{}')).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(sign('tok', 'msg_1', 1700000000, '{}')).not.toBe(sign('tok', 'msg_2', 1700000000, '{}'));
  });
  it('converts markdown to Slack mrkdwn', () => {
    expect(toMrkdwn('**a** [b](https://x.y/z)\n## H')).toBe('*a* <https://x.y/z|b>\n*H*');
  });
  it('keeps credentials out of excerpts', () => {
    expect(excerptOf('echo: Bearer abcdefghijklmnop and tok-12345', { token: 'tok-12345' })).toBe('echo: Bearer [redacted] and [redacted]');
    expect(excerptOf('x'.repeat(1000), { token: null })!.length).toBe(301);
  });
});
