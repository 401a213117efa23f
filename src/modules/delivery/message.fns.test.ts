import { describe, expect, it } from 'vitest';
import { markdownOf, messageOf, truncate, truncateBytes, TRUNCATION_MARKER } from './message.fns.js';
import { sign, signingKey } from './adapters/webhook.js';
import { renderSlack, toMrkdwn } from './adapters/slack.js';
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
  it('renders run output: structured output once, as fields; a console link to the run', () => {
    const m = messageOf({ ...base, type: 'agent_run.completed', data: { runId: 'r1', agentId: 'ag1', agentName: 'Triage', finalAssistantMessage: '{"verdict":"benign","riskScore":2,"iocs":["a","b"]}', structuredOutputResult: { verdict: 'benign', riskScore: 2, iocs: ['a', 'b'] } } }, 'https://r.example');
    expect(m.title).toBe('Triage finished a run');
    expect(m.body).toBe('');
    expect(m.fields).toEqual([{ name: 'Agent', value: 'Triage' }, { name: 'Verdict', value: 'benign' }, { name: 'Risk score', value: '2' }, { name: 'Iocs', value: 'a, b' }]);
    expect(m.links).toEqual([{ text: 'Run', url: 'https://r.example/agents/ag1/runs/r1' }]);
    expect(markdownOf(m)).not.toContain('{');
    // Older events carry the JSON string: read the same way; an answer that is not the JSON stays.
    const old = messageOf({ ...base, type: 'agent_run.completed', data: { runId: 'r1', agentId: 'ag1', agentName: 'Triage', finalAssistantMessage: 'Looks benign.', structuredOutputResult: '{"verdict":"benign"}' } }, 'https://r.example');
    expect(old).toMatchObject({ body: 'Looks benign.', fields: [{ name: 'Agent', value: 'Triage' }, { name: 'Verdict', value: 'benign' }] });
  });
  it('a triage run names the alert and its verdict, links the alert and the run, and carries the alert for PagerDuty', () => {
    const alert = { id: 'a1', displayId: 'RMP-12', title: 'GuardDuty UnauthorizedAccess on i-0abc', severity: 'high', status: 'escalated', source: { name: 'GuardDuty' } };
    const m = messageOf({ ...base, type: 'agent_run.completed', data: { runId: 'r1', agentId: 'ag1', agentName: 'Cloud triage', finalAssistantMessage: 'Brute force from a scanner.', alert } }, 'https://r.example');
    expect(m).toMatchObject({ title: 'RMP-12 escalated by Cloud triage: GuardDuty UnauthorizedAccess on i-0abc', severity: 'high', alert: { id: 'a1', closed: false } });
    expect(m.links).toEqual([{ text: 'Alert RMP-12', url: 'https://r.example/alerts/a1' }, { text: 'Run', url: 'https://r.example/agents/ag1/runs/r1' }]);
    const closed = messageOf({ ...base, type: 'agent_run.completed', data: { runId: 'r1', agentId: 'ag1', agentName: 'Cloud triage', finalAssistantMessage: 'FP.', alert: { ...alert, status: 'closed_false_positive' } } }, 'https://r.example');
    expect(closed).toMatchObject({ title: 'RMP-12 closed as false positive by Cloud triage: GuardDuty UnauthorizedAccess on i-0abc', alert: { closed: true } });
    const undecided = messageOf({ ...base, type: 'agent_run.completed', data: { runId: 'r1', agentId: 'ag1', agentName: 'Cloud triage', finalAssistantMessage: 'Need more data.', alert: { ...alert, status: 'in_progress' } } }, 'https://r.example');
    expect(undecided.title).toBe('RMP-12 left in progress by Cloud triage: GuardDuty UnauthorizedAccess on i-0abc');
  });
  it('reads alerts: id, severity, closed statuses, console links (a hunt alert links its threat)', () => {
    const open = messageOf({ ...base, type: 'alert.created', data: { alert: { id: 'a1', title: 'T', severity: 'HIGH', status: 'open' } } }, 'https://r');
    expect(open).toMatchObject({ title: 'New alert: T', severity: 'high', alert: { id: 'a1', closed: false }, links: [{ text: 'Alert', url: 'https://r/alerts/a1' }] });
    const closed = messageOf({ ...base, type: 'alert.status_changed', data: { alert: { id: 'a1', title: 'T', status: 'resolved' } } }, 'https://r');
    expect(closed.alert).toMatchObject({ id: 'a1', closed: true });
    // The alerts module's shape: source is an object, closed statuses are closed_*.
    const real = messageOf({ ...base, type: 'alert.status_changed', data: { reason: 'Known scanner', alert: { id: 'a2', displayId: 'RMP-2', title: 'T', status: 'closed_benign', source: { category: 'trigger', name: 'Jira', triggerType: 'jira' }, detection: { name: 'Rule 7' } } } }, 'https://r');
    expect(real).toMatchObject({ title: 'RMP-2 closed as benign: T', body: 'Known scanner', alert: { id: 'a2', closed: true, source: 'Jira', detectionName: 'Rule 7' } });
    const hunt = messageOf({ ...base, type: 'alert.created', data: { alert: { id: 'a3', displayId: 'RMP-3', title: 'Vulnerable software present', status: 'open', createdBy: 'hunt', dedupeKey: 'hunt:th1' } } }, 'https://r');
    expect(hunt.links).toEqual([{ text: 'Alert RMP-3', url: 'https://r/alerts/a3' }, { text: 'Threat', url: 'https://r/hunt/th1' }]);
  });
});

describe('adapters (pure parts)', () => {
  it('signs as Standard Webhooks specifies (whsec_ secrets decoded)', () => {
    expect(signingKey('whsec_' + Buffer.from('k').toString('base64'))).toEqual(Buffer.from('k'));
    expect(sign('tok', 'msg_1', 1700000000, '{}')).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(sign('tok', 'msg_1', 1700000000, '{}')).not.toBe(sign('tok', 'msg_2', 1700000000, '{}'));
  });
  it('puts a long structured output in Slack sections of 10 fields', () => {
    const structured = Object.fromEntries(Array.from({ length: 23 }, (_, i) => [`k${i}`, i]));
    const m = messageOf({ ...base, type: 'agent_run.completed', data: { runId: 'r1', agentId: 'a', agentName: 'T', finalAssistantMessage: JSON.stringify(structured), structuredOutputResult: structured } }, 'https://r');
    const blocks = JSON.parse(renderSlack({ id: 'd', organizationId: 'o', name: 's', type: 'slack', config: {}, token: 'x', signingSecrets: [] }, m, 'C1').body).blocks as Array<{ type: string; fields?: unknown[] }>;
    expect(blocks.filter((b) => b.fields).map((b) => b.fields!.length)).toEqual([10, 10, 4]);
  });
  it('converts markdown to Slack mrkdwn', () => {
    expect(toMrkdwn('**a** [b](https://x.y/z)\n## H <!here> & co')).toBe('*a* b (https://x.y/z)\n*H &lt;!here&gt; &amp; co*');
  });
  it('keeps credentials out of excerpts', () => {
    expect(excerptOf('echo: Bearer abcdefghijklmnop and tok-12345', { token: 'tok-12345' })).toBe('echo: Bearer [redacted] and [redacted]');
    expect(excerptOf('x'.repeat(1000), { token: null })!.length).toBe(301);
  });
});
