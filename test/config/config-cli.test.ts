import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { runRampart } from '../support/rampart-cli.js';

/**
 * `rampart apply` / `rampart export` as an operator runs them: the real command in a child
 * process against the real API listening on loopback.
 */
let t: TestContext;
let url: string;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-config-'));

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function rampart(args: string[], env: Record<string, string> = {}) {
  return runRampart(args, { RAMPART_URL: url, RAMPART_API_KEY: t.orgA.apiKey.key, SLACK_BOT_TOKEN: 'xoxb-from-env', OPENAI_API_KEY: 'sk-from-env', ...env });
}

const files = (prompt: string) => ({
  'models.yaml': `apiVersion: rampart/v1
kind: Model
metadata: { name: triage }
spec:
  modelId: gpt-4o-mini
  provider:
    name: openai
    type: openai
    apiKey: \${env:OPENAI_API_KEY}
---
apiVersion: rampart/v1
kind: McpServer
metadata: { name: cloudtools }
spec:
  url: https://mcp.example.com/mcp
`,
  'destinations.yaml': `apiVersion: rampart/v1
kind: OutputDestination
metadata: { name: soc-slack }
spec:
  type: slack
  config: { channelIds: [C0123] }
  token: \${env:SLACK_BOT_TOKEN}
---
apiVersion: rampart/v1
kind: OutputDestination
metadata: { name: soc-webhook }
spec:
  type: webhook
  config: { url: "https://hooks.example.com/in", authType: bearer }
  token: \${file:secrets/webhook-token}
`,
  // A secret file beside the documents: \${file:…} reads only under the directory applied.
  'secrets/webhook-token': 'hook-secret-from-file\n',
  'agents/cloud-triage.yaml': `apiVersion: rampart/v1
kind: Agent
metadata:
  name: cloud-triage
spec:
  systemPrompt: ${JSON.stringify(prompt)}
  model: triage
  toolNames: ["mcp:cloudtools/*"]
  outputDestinations: [soc-slack, soc-webhook]
---
apiVersion: rampart/v1
kind: Trigger
metadata: { name: guardduty }
spec:
  agent: cloud-triage
  source: webhook
  createAlert: true
`,
  // JSON files are documents too.
  'alerts.json': JSON.stringify({ apiVersion: 'rampart/v1', kind: 'CodeDetection', metadata: { name: 'root-login' }, spec: { ruleId: 'aws-001', severity: 'high' } }, null, 2),
  'routes.yaml': `apiVersion: rampart/v1
kind: TriageRoutes
metadata: { name: default }
spec:
  routes:
    - name: cloud
      conditions: [{ type: codeDetection, codeDetections: [root-login] }]
      responseAgent: cloud-triage
  defaultResponseAgent: cloud-triage
`,
});

function writeFiles(root: string, content: Record<string, string>) {
  fs.rmSync(root, { recursive: true, force: true });
  for (const [name, text] of Object.entries(content)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
}

describe('rampart apply / export', () => {
  const repo = path.join(dir, 'repo');

  it('--dry-run prints the plan and exits 2 with changes, writing nothing', async () => {
    writeFiles(repo, files('You triage cloud findings.'));
    const res = await rampart(['apply', '-f', repo, '--dry-run']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(2);
    expect(res.stdout).toContain('+ create Agent/cloud-triage');
    // What the apply generates rather than takes from the files is said (issue 47 item 2).
    expect(res.stdout).toContain('+ create Trigger/guardduty\n    secret: (secret: will be generated)\n    webhookUrl: (generated: a new URL, read it with GET /api/agents/{agentId}/trigger)\n');
    expect(res.stdout).toContain('Plan: 8 to create, 0 to update, 0 to delete.');
    expect((await t.app.inject({ method: 'GET', url: '/api/agents', headers: bearer(t.orgA.apiKey.key) })).json().totalCount).toBe(0);
  }, 180_000);

  it('applies the files with secrets from the environment and files, then a second apply is no changes (dry-run exit 0)', async () => {
    const res = await rampart(['apply', '-f', repo, '--source', 'abc123']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Applied 8 changes from abc123.');
    const destinations = (await t.app.inject({ method: 'GET', url: '/api/output-destinations', headers: bearer(t.orgA.apiKey.key) })).json();
    expect(destinations.map((d: { token: string; managedSource: string }) => [d.token, d.managedSource])).toEqual([['xoxb-from-env', 'abc123'], ['hook-secret-from-file', 'abc123']]);
    const again = await rampart(['apply', '-f', repo, '--dry-run']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('No changes: the organization matches the files.\n');
  }, 180_000);

  it('editing one prompt plans exactly one ~ with its field diff', async () => {
    writeFiles(repo, files('You triage AWS findings.'));
    const res = await rampart(['apply', '-f', repo]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('~ update Agent/cloud-triage\n    systemPrompt: "You triage cloud findings." -> "You triage AWS findings."\nPlan: 0 to create, 1 to update, 0 to delete.\nApplied 1 change.\n');
  }, 180_000);

  it('a broken reference fails with its file and line, and nothing is written', async () => {
    const content = files('Broken edit.');
    content['agents/cloud-triage.yaml'] = content['agents/cloud-triage.yaml']!.replace('[soc-slack, soc-webhook]', '\n    - soc-slack\n    - soc-pager');
    writeFiles(repo, content);
    const res = await rampart(['apply', '-f', repo]);
    expect(res.code).toBe(1);
    const file = path.join(repo, 'agents/cloud-triage.yaml');
    expect(res.stderr).toBe(`rampart: the plan failed; nothing was written:\n  ${file}:11: spec.outputDestinations.1 no OutputDestination named "soc-pager" in the documents or the organization\n`);
    const agent = (await t.app.inject({ method: 'GET', url: '/api/agents', headers: bearer(t.orgA.apiKey.key) })).json().agents[0];
    expect(agent.systemPrompt).toBe('You triage AWS findings.');
  }, 180_000);

  it('--dry-run refuses what apply would refuse, every problem of every file at once with file:line (issue 47)', async () => {
    const broken = path.join(dir, 'broken');
    writeFiles(broken, {
      'detections.yaml': `apiVersion: rampart/v1
kind: CodeDetection
metadata: { name: made-up }
spec:
  severity: high
  attackTechniques:
    - T1078
    - T9999
`,
      'agents.yaml': `apiVersion: rampart/v1
kind: Agent
metadata: { name: broken }
spec:
  systemPrompt: x
  maxSteps: many
  outputDestinations: [nowhere]
---
apiVersion: rampart/v1
kind: Agent
metadata: { name: dangling }
spec:
  systemPrompt: x
  outputDestinations: [nowhere]
`,
    });
    const res = await rampart(['apply', '-f', broken, '--dry-run']);
    expect(res.code).toBe(1);
    const lines = res.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('rampart: the plan failed; nothing was written:');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(new RegExp(`^  ${path.join(broken, 'agents.yaml')}:6: spec\\.maxSteps `)),
      `  ${path.join(broken, 'agents.yaml')}:14: spec.outputDestinations.0 no OutputDestination named "nowhere" in the documents or the organization`,
      `  ${path.join(broken, 'detections.yaml')}:8: spec.attackTechniques.1 T9999 is not an ATT&CK technique of the catalog`,
    ]);
  }, 180_000);

  it('a missing environment variable names the file and line of its reference', async () => {
    writeFiles(repo, files('You triage AWS findings.'));
    const res = await rampart(['apply', '-f', repo, '--dry-run'], { SLACK_BOT_TOKEN: '' });
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(`rampart: ${path.join(repo, 'destinations.yaml')}:7: environment variable SLACK_BOT_TOKEN is not set (referenced as \${env:SLACK_BOT_TOKEN})\n`);
  }, 180_000);

  it('export writes files that apply back to no changes', async () => {
    const out = path.join(dir, 'exported');
    const res = await rampart(['export', '-o', out]);
    expect(res.code).toBe(0);
    const slack = fs.readFileSync(path.join(out, 'OutputDestination', 'soc-slack.yaml'), 'utf8');
    expect(slack).toContain('token: ${env:RAMPART_OUTPUTDESTINATION_SOC_SLACK_TOKEN}');
    expect(fs.readdirSync(out).sort()).toEqual(['Agent', 'CodeDetection', 'McpServer', 'Model', 'OutputDestination', 'TriageRoutes', 'Trigger']);
    // The webhook trigger's generated secret is a reference too (issue 47 item 2): the operator sets it to the secret senders use.
    expect(fs.readFileSync(path.join(out, 'Trigger', 'guardduty.yaml'), 'utf8')).toContain('secret: ${env:RAMPART_TRIGGER_GUARDDUTY_SECRET}');
    const agent = (await t.app.inject({ url: '/api/agents', headers: bearer(t.orgA.apiKey.key) })).json().agents[0];
    const trigger = (await t.app.inject({ url: `/api/agents/${agent.id}/trigger`, headers: bearer(t.orgA.apiKey.key) })).json().triggers[0];
    const secret = (await t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/trigger/${trigger.id}/rotate-secret`, headers: bearer(t.orgA.apiKey.key) })).json().secret;
    const back = await rampart(['apply', '-f', out, '--dry-run'], {
      RAMPART_TRIGGER_GUARDDUTY_SECRET: secret,
      RAMPART_OUTPUTDESTINATION_SOC_SLACK_TOKEN: 'xoxb-from-env',
      RAMPART_OUTPUTDESTINATION_SOC_WEBHOOK_TOKEN: 'hook-secret-from-file',
      RAMPART_MODEL_TRIAGE_PROVIDER_APIKEY: 'sk-from-env',
    });
    expect(back.stderr).toBe('');
    expect(back.stdout).toBe('No changes: the organization matches the files.\n');
    expect(back.code).toBe(0);
  }, 180_000);
});
