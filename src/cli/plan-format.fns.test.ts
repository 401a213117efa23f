import { describe, expect, it } from 'vitest';
import { formatFieldChange, formatPlan } from './plan-format.fns.js';

describe('formatFieldChange (issue 47 item 3: the whole change, never cut)', () => {
  it('shows a short change inline', () => {
    expect(formatFieldChange('systemPrompt', 'You triage cloud findings.', 'You triage AWS findings.')).toEqual(['    systemPrompt: "You triage cloud findings." -> "You triage AWS findings."']);
  });

  it('shows a long prompt as a line diff with context, every changed line whole', () => {
    const before = Array.from({ length: 20 }, (_, i) => `Step ${i}: ${'check the finding carefully '.repeat(5)}`).join('\n');
    const after = before.replace('Step 12: check', 'Step 12: escalate to the on-call and check');
    const out = formatFieldChange('systemPrompt', before, after);
    expect(out[0]).toBe('    systemPrompt:');
    expect(out).toContain(`      - Step 12: ${'check the finding carefully '.repeat(5)}`.trimEnd());
    expect(out).toContain(`      + Step 12: escalate to the on-call and ${'check the finding carefully '.repeat(5)}`.trimEnd());
    expect(out.filter((l) => l.startsWith('        Step'))).toHaveLength(6);
    expect(out.filter((l) => l === '        …')).toHaveLength(2);
    expect(out.join('\n')).not.toContain('...');
  });

  it('shows a long single-line value whole, and structured values as indented JSON lines', () => {
    const long = `https://hooks.example.com/${'segment/'.repeat(30)}in`;
    expect(formatFieldChange('url', 'https://a.example/in', long)).toEqual(['    url:', '      - https://a.example/in', `      + ${long}`]);
    const routes = (severities: string[]) => [{ name: 'cloud findings routed to the cloud triage agent', conditions: [{ type: 'severity', severities }], responseAgent: 'cloud-triage' }];
    const out = formatFieldChange('routes', routes(['high']), routes(['high', 'critical'])).join('\n');
    expect(out).toContain('      -           "high"\n      +           "high",\n      +           "critical"');
    expect(out).toContain('"name": "cloud findings routed to the cloud triage agent"');
  });
});

describe('formatPlan', () => {
  it('prints secrets only as "(secret: will change)", also where the value came from a reference, and what was not compared', () => {
    const out = formatPlan(
      [{ action: 'update', kind: 'McpServer', name: 'tools', diff: { url: { from: 'https://a.example/mcp', to: 'https://b.example/mcp' }, token: { from: '(secret)', to: '(secret: will change)' } } }],
      [{ kind: 'Model', name: 'triage', fields: ['provider.apiKey'], permission: 'agent.manage' }],
      [{ kind: 'McpServer', name: 'tools', field: 'url' }],
    );
    expect(out).toBe(
      '~ update McpServer/tools\n    url: (secret: will change)\n    token: (secret: will change)\n  Model/triage: provider.apiKey not compared (secret values are compared only with agent.manage)\nPlan: 0 to create, 1 to update, 0 to delete.\n',
    );
  });
});

describe('formatPlan: what the apply generates (issue 47 item 2)', () => {
  it('prints a generated secret and URL under a create and an update, never a value', () => {
    const url = '(generated: a new URL, read it with GET /api/agents/{agentId}/trigger)';
    const out = formatPlan([
      { action: 'create', kind: 'Trigger', name: 'guardduty', diff: { source: { from: null, to: 'webhook' }, secret: { from: null, to: '(secret: will be generated)' }, webhookUrl: { from: null, to: url } } },
      { action: 'update', kind: 'Trigger', name: 'jira', diff: { secret: { from: '(secret)', to: '(secret: will be generated)' }, webhookUrl: { from: '(the current URL)', to: url } } },
    ]);
    expect(out).toBe(
      `+ create Trigger/guardduty\n    secret: (secret: will be generated)\n    webhookUrl: ${url}\n~ update Trigger/jira\n    secret: (secret: will be generated)\n    webhookUrl: ${url}\nPlan: 1 to create, 1 to update, 0 to delete.\n`,
    );
  });
});
