import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OutboundEvent } from '../../src/platform/events.js';
import { messageOf, type Message } from '../../src/modules/delivery/message.fns.js';
import { renderLinear } from '../../src/modules/delivery/adapters/linear.js';
import { renderPagerDuty } from '../../src/modules/delivery/adapters/pagerduty.js';
import { renderSlack } from '../../src/modules/delivery/adapters/slack.js';
import { renderTeams } from '../../src/modules/delivery/adapters/teams.js';
import { renderTines } from '../../src/modules/delivery/adapters/tines.js';
import { renderWebhook } from '../../src/modules/delivery/adapters/webhook.js';
import type { Rendered, Target } from '../../src/modules/delivery/adapters/types.js';

/**
 * The exact request each adapter sends for a triage run's verdict on an alert and for a plain
 * run, against golden files in test/fixtures/delivery-golden (`UPDATE_GOLDEN=1` rewrites them;
 * review the diff). A change in what people read in Slack, Teams, PagerDuty, Linear, Tines or a
 * webhook shows up here as a diff.
 */
const BASE_URL = 'https://rampart.example.com';
const ORG = '0190a8e0-0000-7000-8000-00000000000a';
const AGENT = '0190a8e0-0000-7000-8000-0000000000a6';
const RUN = '0190a8e0-0000-7000-8000-000000000001';
const ALERT = '0190a8e0-0000-7000-8000-0000000000a1';
const verdict = { verdict: 'malicious', confidence: 0.9, indicators: ['203.0.113.9'], nextStep: 'Block 203.0.113.9 at the security group; rotate the bastion keys' };

const EVENTS: Record<string, OutboundEvent> = {
  // What finishRun records for a trigger's run that escalated its GuardDuty alert (the alert as the run left it).
  triaged: {
    id: RUN,
    type: 'agent_run.completed',
    occurredAt: '2026-11-25T09:20:00.000Z',
    organizationId: ORG,
    data: {
      runId: RUN,
      agentId: AGENT,
      agentName: 'Cloud triage',
      finishedAt: '2026-11-25T09:20:00.000Z',
      finalAssistantMessage: JSON.stringify(verdict),
      structuredOutputResult: verdict,
      alert: {
        id: ALERT,
        displayId: 'RMP-12',
        title: 'GuardDuty UnauthorizedAccess on i-0abc1234def567890',
        description: '203.0.113.9 is performing SSH brute force attacks against i-0abc1234def567890.',
        severity: 'high',
        status: 'escalated',
        createdBy: 'trigger',
        dedupeKey: 'guardduty:16afba5c5c43e07c9e3e5e2e544e95df',
        source: { category: 'trigger', name: 'GuardDuty', triggerType: 'webhook' },
        detection: null,
      },
    },
  },
  plain: {
    id: RUN,
    type: 'agent_run.completed',
    occurredAt: '2026-11-25T09:20:00.000Z',
    organizationId: ORG,
    data: {
      runId: RUN,
      agentId: AGENT,
      agentName: 'Morning brief',
      finishedAt: '2026-11-25T09:20:00.000Z',
      finalAssistantMessage: 'Three new **critical** CVEs overnight; none affects our inventory. See [NVD](https://nvd.nist.gov/).',
    },
  },
};

const target = (type: string, config: Record<string, unknown>, token: string | null): Target => ({ id: '0190a8e0-0000-7000-8000-0000000000d1', organizationId: ORG, name: type, type, config, token, signingSecrets: type === 'webhook' && token ? [token] : [] });

const RENDER: Record<string, (m: Message) => Rendered> = {
  slack: (m) => renderSlack(target('slack', { channelIds: ['C0SEC'] }, 'xoxb-1-test'), m, 'C0SEC'),
  teams: (m) => renderTeams(target('teams', { url: 'https://prod-00.westeurope.logic.azure.com/workflows/abc/triggers/manual/paths/invoke' }, null), m),
  pagerduty: (m) => renderPagerDuty(target('pagerduty', { severity: 'warning' }, 'R0UTINGKEY'), m, m.links[0]?.url ?? null),
  linear: (m) => renderLinear(target('linear', { teamId: 'team-1' }, 'lin_api_TESTKEY'), m),
  tines: (m) => renderTines(target('tines', { teamId: '42', tenantUrl: 'https://acme.tines.com' }, 'tines-key'), m, 'https://acme.tines.com'),
  webhook: (m) => renderWebhook(target('webhook', { url: 'https://hooks.example.com/rampart' }, 'whsec_' + Buffer.from('golden-secret').toString('base64')), m, new Date('2026-11-25T09:20:01Z')),
};

describe('delivery golden files: the exact request per adapter', () => {
  for (const [adapter, render] of Object.entries(RENDER)) {
    for (const [name, event] of Object.entries(EVENTS)) {
      it(`${adapter}: ${name === 'triaged' ? 'a triage run\'s verdict on an alert' : 'a plain run'}`, () => {
        const rendered = render(messageOf(event, BASE_URL));
        const actual = { url: rendered.url, headers: rendered.headers, body: JSON.parse(rendered.body) as unknown };
        const file = new URL(`../fixtures/delivery-golden/${adapter}.${name}.json`, import.meta.url);
        if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
        expect(actual).toEqual(JSON.parse(fs.readFileSync(file, 'utf8')));
      });
    }
  }
});
