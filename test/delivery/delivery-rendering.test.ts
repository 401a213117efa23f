import * as AC from 'adaptivecards';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app.js';
import { attemptDelivery, createDestination, deliveryDeps, queue } from '../support/delivery.js';
import { startFakeSlack, type FakeSlack } from '../support/fakes/slack-server.js';
import { startFakeTeams, type FakeTeams } from '../support/fakes/teams-server.js';

/**
 * Issue 47 §21–23, through real deliveries to fakes that speak Slack's and Teams' protocols (the
 * Teams fake refuses over 28 KB, as Teams does; cards are checked with the `adaptivecards` parser).
 */
let t: TestContext;
let key: string;
let org: string;
let slack: FakeSlack;
let teams: FakeTeams;
let slackId: string;
let teamsId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true', RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
  key = t.orgA.apiKey.key;
  org = t.orgA.organization.id;
  [slack, teams] = await Promise.all([startFakeSlack({ token: 'xoxb-1-test' }), startFakeTeams()]);
  slackId = await createDestination(t, key, { type: 'slack', name: 'SOC', config: { channelIds: ['C1'], apiBaseUrl: slack.apiBaseUrl }, token: 'xoxb-1-test' });
  teamsId = await createDestination(t, key, { type: 'teams', name: 'Teams', config: { url: teams.url } });
});
afterAll(async () => {
  await Promise.all([slack?.close(), teams?.close()]);
  await t?.close();
});

async function send(type: string, data: Record<string, unknown>) {
  const { ids } = await queue(t, org, [slackId, teamsId], type, data);
  for (const id of ids) expect(await attemptDelivery(deliveryDeps(t), id)).toBe('succeeded');
  return { slack: slack.posted.at(-1)!, card: teams.cards.at(-1)!, teamsBytes: Buffer.byteLength(teams.requests.at(-1)!.body) };
}
function parsedCard(json: Record<string, any>) {
  const card = new AC.AdaptiveCard();
  const context = new AC.SerializationContext();
  card.parse(json, context);
  expect(Array.from({ length: context.eventCount }, (_, n) => context.getEventAt(n).message)).toEqual([]);
  return card;
}
/** Every TextRun of a card: its text and whether it is monospace or bold. */
function textRuns(json: Record<string, any>): Array<{ text: string; mono: boolean; bold: boolean }> {
  const out: Array<{ text: string; mono: boolean; bold: boolean }> = [];
  const card = parsedCard(json);
  for (let i = 0; i < card.getItemCount(); i++) {
    const el = card.getItemAt(i);
    if (el instanceof AC.RichTextBlock) for (let n = 0; n < el.getInlineCount(); n++) {
      const r = el.getInlineAt(n) as AC.TextRun;
      out.push({ text: r.text ?? '', mono: r.fontType === AC.FontType.Monospace, bold: r.weight === AC.TextWeight.Bolder });
    }
  }
  return out;
}

describe('Teams: the whole card under 28 KB (§21)', () => {
  it('an output of 30 long string fields and a long answer is delivered (not refused as too large), every field named', async () => {
    const output = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`finding_${i + 1}`, `Host ws-${i} beaconed to 198.51.100.${i} `.repeat(60)]));
    const { teamsBytes, card } = await send('agent_run.completed', { runId: 'r1', agentId: 'a1', agentName: 'Triage', finalAssistantMessage: `Summary\n${'Long reasoning. '.repeat(3000)}`, structuredOutputResult: output });
    expect(teamsBytes).toBeLessThanOrEqual(28 * 1024);
    const texts = textRuns(card).map((r) => r.text);
    for (const name of ['Finding 1: ', 'Finding 30: ']) expect(texts).toContain(name);
  });
});

describe('structured output shown once (§22)', () => {
  it('an answer with null optional properties and the stored result without them are one output: fields only, no raw JSON body', async () => {
    const stored = { verdict: 'benign', confidence: 0.9 };
    const answer = JSON.stringify({ confidence: 0.9, verdict: 'benign', note: null, related: null });
    const { slack: msg, card } = await send('agent_run.completed', { runId: 'r2', agentId: 'a1', agentName: 'Triage', finalAssistantMessage: answer, structuredOutputResult: stored });
    expect(msg.text).not.toContain('"verdict"');
    expect(JSON.stringify(msg.blocks)).not.toContain('\\"verdict\\"');
    expect(JSON.stringify(msg.blocks)).toContain('*Verdict*');
    const texts = textRuns(card).map((r) => r.text);
    expect(texts.join('\n')).not.toContain('"verdict"');
    expect(texts).toContain('Verdict: ');
  });
});

describe('Slack and Teams read as people write (§23)', () => {
  const body = [
    '## Findings',
    '**Checked** the VPN logs, see [the runbook](https://wiki.example/runbook).',
    '',
    '| Host | Verdict |',
    '|---|---|',
    '| vpn-1 | clean |',
    '',
    '```',
    'grep -r "beacon" /var/log',
    '  indented line',
    '```',
  ].join('\n');

  it('Slack: the fallback text has no raw Markdown; Teams: headings, tables and code fences rendered', async () => {
    const { slack: msg, card } = await send('agent.message', { title: 'Report', message: body });
    expect(msg.text).not.toMatch(/\*\*|^#|```|\|---/m);
    expect(msg.text).toContain('Checked the VPN logs, see the runbook (https://wiki.example/runbook).');
    expect(msg.text).toContain('Host · Verdict');
    const runs = textRuns(card);
    const all = runs.map((r) => r.text).join('\n');
    expect(all).not.toMatch(/```|\|---|^## /m);
    expect(runs).toContainEqual({ text: 'Findings', mono: false, bold: true });
    expect(runs).toContainEqual({ text: 'Host  ·  Verdict', mono: false, bold: true });
    expect(runs).toContainEqual({ text: 'vpn-1  ·  clean', mono: false, bold: false });
    expect(runs).toContainEqual({ text: 'grep -r "beacon" /var/log', mono: true, bold: false });
    expect(runs).toContainEqual({ text: '  indented line', mono: true, bold: false });
  });

  it('Slack: truncation never cuts a link in half', async () => {
    // The cut falls inside the address: the address is left out whole.
    const long = `${'a'.repeat(2950)} see https://wiki.example/${'x'.repeat(200)} end`;
    const { slack: msg } = await send('agent.message', { title: 'Long', message: long });
    const section = (msg.blocks as Array<{ type: string; text?: { text: string } }>).find((b) => b.type === 'section' && b.text)!.text!.text;
    expect(section.endsWith('see… [truncated]')).toBe(true);
    expect(section).not.toContain('https://wiki.example/x');
    expect(msg.text).not.toMatch(/https:\/\/wiki\.example\/x+… \[truncated\]$/);
  });

  it('statuses read as words: in_progress is "In progress"', async () => {
    const alert = { id: '0190f6c4-0000-7000-8000-000000000001', displayId: 'RMP-7', title: 'Beacon', status: 'in_progress', severity: 'high', source: { category: 'user', name: 'api' } };
    const { slack: msg, card } = await send('alert.status_changed', { alert, from: 'open', to: 'in_progress', change: 'status_changed', reason: null });
    expect(JSON.stringify(msg.blocks)).toContain('*Status*\\nIn progress');
    expect(JSON.stringify(msg.blocks)).not.toContain('in_progress');
    expect(textRuns(card).map((r) => r.text)).toContain('In progress');
  });
});
