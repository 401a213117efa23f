import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';

/** Agents as code through the API: plan, apply (one transaction), managedBy, export. */
let t: TestContext;
let admin: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
});
afterAll(() => t.close());

const doc = (kind: string, name: string, spec: Record<string, unknown>) => ({ apiVersion: 'rampart/v1', kind, metadata: { name }, spec });

function fullSet(prompt = 'You triage cloud findings.') {
  return [
    doc('Model', 'triage', { modelId: 'gpt-4o-mini', provider: { name: 'openai', type: 'openai', apiKey: 'sk-test-1' } }),
    doc('OutputDestination', 'soc-slack', { type: 'slack', config: { channelIds: ['C0123'] }, token: 'xoxb-secret' }),
    doc('OutputDestination', 'soc-webhook', { type: 'webhook', config: { url: 'https://hooks.example.com/in', authType: 'bearer' }, token: 'hook-secret' }),
    doc('Agent', 'cloud-triage', { systemPrompt: prompt, model: 'triage', outputDestinations: ['soc-slack', 'soc-webhook'], maxSteps: 5 }),
    doc('Trigger', 'guardduty', { agent: 'cloud-triage', source: 'webhook', signingSecret: 'sign-1', createAlert: true }),
    doc('McpServer', 'cloudtools', { url: 'https://mcp.example.com/mcp', token: 'mcp-secret' }),
    doc('CodeDetection', 'root-login', { ruleId: 'aws-001', severity: 'high', logTable: { source: 'aws', stream: 'cloudtrail' } }),
    doc('TriageRoutes', 'default', {
      routes: [{ name: 'cloud', conditions: [{ type: 'codeDetection', codeDetections: ['root-login'] }, { type: 'severity', severities: ['high', 'critical'] }], responseAgent: 'cloud-triage' }],
      defaultResponseAgent: 'cloud-triage',
    }),
  ];
}

const plan = (documents: unknown[], extra: Record<string, unknown> = {}, headers = admin) =>
  t.app.inject({ method: 'POST', url: '/api/config/plan', headers, payload: { documents, ...extra } });
const apply = (documents: unknown[], extra: Record<string, unknown> = {}, headers = admin) =>
  t.app.inject({ method: 'POST', url: '/api/config/apply', headers, payload: { documents, ...extra } });
const summary = (changes: Array<{ action: string; kind: string; name: string }>) => changes.map((c) => `${c.action} ${c.kind}/${c.name}`);

describe('config apply', () => {
  it('creates a full set in an empty organization, then re-applying is no changes', async () => {
    const planned = await plan(fullSet());
    expect(planned.statusCode).toBe(200);
    expect(summary(planned.json().changes)).toEqual([
      'create Model/triage',
      'create McpServer/cloudtools',
      'create OutputDestination/soc-slack',
      'create OutputDestination/soc-webhook',
      'create CodeDetection/root-login',
      'create Agent/cloud-triage',
      'create Trigger/guardduty',
      'create TriageRoutes/default',
    ]);
    // Secrets show as "(secret)", never their values.
    expect(JSON.stringify(planned.json())).not.toContain('xoxb-secret');
    expect(planned.json().changes[1].diff.token).toEqual({ from: null, to: '(secret: will change)' });
    // A plan writes nothing.
    expect((await t.app.inject({ method: 'GET', url: '/api/agents', headers: admin })).json().totalCount).toBe(0);

    const applied = await apply(fullSet(), { source: 'commit-abc' });
    expect(applied.statusCode).toBe(200);
    expect(summary(applied.json().changes)).toEqual(summary(planned.json().changes));

    const agents = (await t.app.inject({ method: 'GET', url: '/api/agents', headers: admin })).json().agents;
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatchObject({ name: 'cloud-triage', modelAlias: 'triage', maxSteps: 5, managedBy: 'code', managedSource: 'commit-abc' });
    const destinations = (await t.app.inject({ method: 'GET', url: '/api/output-destinations', headers: admin })).json();
    expect(destinations.map((d: { name: string; token: string; managedBy: string }) => [d.name, d.token, d.managedBy])).toEqual([
      ['soc-slack', 'xoxb-secret', 'code'],
      ['soc-webhook', 'hook-secret', 'code'],
    ]);
    expect(agents[0].outputDestinationIds).toEqual(destinations.map((d: { id: string }) => d.id));
    const triggers = (await t.app.inject({ method: 'GET', url: `/api/agents/${agents[0].id}/trigger`, headers: admin })).json().triggers;
    expect(triggers).toMatchObject([{ name: 'guardduty', source: 'webhook', hasSecret: true, hasSigningSecret: true, createAlert: true, managedBy: 'code' }]);
    const aliases = (await t.app.inject({ method: 'GET', url: '/api/model-aliases', headers: admin })).json().aliases;
    expect(aliases).toMatchObject([{ alias: 'triage', providerName: 'openai', modelId: 'gpt-4o-mini', managedBy: 'code' }]);

    const detection = (await t.app.inject({ method: 'GET', url: '/api/code-detections', headers: admin })).json().codeDetections[0];
    expect(detection).toMatchObject({ name: 'root-login', severity: 'high', managedBy: 'code' });
    const routes = (await t.app.inject({ method: 'GET', url: '/api/alert-triage-routes', headers: admin })).json();
    expect(routes.routes).toMatchObject([{ name: 'cloud', responseAgentId: agents[0].id, conditions: [{ type: 'codeDetection', codeDetectionIds: [detection.id] }, { type: 'severity' }] }]);
    expect(routes.defaultSettings.defaultResponseAgentId).toBe(agents[0].id);
    const servers = (await t.app.inject({ method: 'GET', url: '/api/mcp-servers', headers: admin })).json().mcpServers;
    expect(servers).toMatchObject([{ name: 'cloudtools', hasToken: true, managedBy: 'code' }]);

    const again = await apply(fullSet(), { source: 'commit-def' });
    expect(again.json()).toEqual({ changes: [], notCompared: [] });
  });

  it('editing one prompt is exactly one update with its field diff', async () => {
    const res = await apply(fullSet('You triage AWS findings.'), { source: 'commit-def' });
    expect(res.statusCode).toBe(200);
    expect(res.json().changes).toEqual([
      { action: 'update', kind: 'Agent', name: 'cloud-triage', diff: { systemPrompt: { from: 'You triage cloud findings.', to: 'You triage AWS findings.' } } },
    ]);
    // …and exactly one new version of the agent, recorded as from code with the apply's source
    // (the first apply made two: the agent, then its trigger's settings).
    const agent = (await t.app.inject({ url: '/api/agents', headers: admin })).json().agents.find((a: { name: string }) => a.name === 'cloud-triage');
    const versions = (await t.app.inject({ url: `/api/agents/${agent.id}/versions`, headers: admin })).json();
    expect(versions.versions.map((v: { version: number; source: string; sourceRef: string | null }) => [v.version, v.source, v.sourceRef])).toEqual([
      [3, 'code', 'commit-def'],
      [2, 'code', 'commit-abc'],
      [1, 'code', 'commit-abc'],
    ]);
  });

  it('a secret change is an update that shows no value', async () => {
    const docs = fullSet('You triage AWS findings.');
    (docs[1]!.spec as { token: string }).token = 'xoxb-rotated';
    const res = await plan(docs);
    expect(res.json().changes).toEqual([{ action: 'update', kind: 'OutputDestination', name: 'soc-slack', diff: { token: { from: '(secret)', to: '(secret: will change)' } } }]);
  });

  it('a broken reference fails the plan and apply with its path, and nothing is written', async () => {
    const docs = [...fullSet('changed'), doc('Agent', 'second', { systemPrompt: 'x', outputDestinations: ['no-such-place'] })];
    const brokenAt = docs.length - 1;
    const res = await apply(docs);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Validation failed',
      issues: [{ path: `documents.${brokenAt}.spec.outputDestinations.0`, message: 'no OutputDestination named "no-such-place" in the documents or the organization', code: 'unknown_reference', location: 'body' }],
    });
    const agents = (await t.app.inject({ method: 'GET', url: '/api/agents', headers: admin })).json().agents;
    expect(agents.map((a: { name: string; systemPrompt: string }) => [a.name, a.systemPrompt])).toEqual([['cloud-triage', 'You triage AWS findings.']]);
  });

  it('a failing change rolls back every change before it (one transaction)', async () => {
    // The agent's MCP tool names a server that does not exist: its write fails after the destination's.
    const docs = [
      ...fullSet('You triage AWS findings.'),
      doc('OutputDestination', 'third', { type: 'teams', config: { url: 'https://example.webhook.office.com/x' } }),
      doc('Agent', 'needs-tool', { systemPrompt: 'x', toolNames: ['mcp:nowhere/*'] }),
    ];
    const res = await apply(docs);
    expect(res.statusCode).toBe(400);
    expect(res.json().issues[0]).toMatchObject({ path: `documents.${docs.length - 1}.spec.toolNames.0`, code: 'unknown_reference' });
    const destinations = (await t.app.inject({ method: 'GET', url: '/api/output-destinations', headers: admin })).json();
    expect(destinations.map((d: { name: string }) => d.name)).toEqual(['soc-slack', 'soc-webhook']);
  });

  it('refuses to edit a code-managed agent through the API without force (409), allows it with force', async () => {
    const agent = (await t.app.inject({ method: 'GET', url: '/api/agents', headers: admin })).json().agents[0];
    const body = { name: agent.name, systemPrompt: 'edited by hand' };
    const refused = await t.app.inject({ method: 'PUT', url: `/api/agents/${agent.id}`, headers: admin, payload: body });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      error: 'Agent "cloud-triage" is managed by code (document Agent/cloud-triage from source commit-def): change its file and apply it, or pass force=true to edit it here anyway',
    });
    const del = await t.app.inject({ method: 'DELETE', url: `/api/agents/${agent.id}`, headers: admin });
    expect(del.statusCode).toBe(409);
    const destination = (await t.app.inject({ method: 'GET', url: '/api/output-destinations', headers: admin })).json()[0];
    const delDestination = await t.app.inject({ method: 'DELETE', url: `/api/output-destinations/${destination.id}`, headers: admin });
    expect(delDestination.statusCode).toBe(409);
    expect(delDestination.json().error).toContain('OutputDestination "soc-slack" is managed by code');
    const forced = await t.app.inject({ method: 'PUT', url: `/api/agents/${agent.id}?force=true`, headers: admin, payload: { ...body, outputDestinationIds: agent.outputDestinationIds, modelAlias: 'triage', maxSteps: 5 } });
    expect(forced.statusCode).toBe(200);
    expect(forced.json()).toMatchObject({ systemPrompt: 'edited by hand', managedBy: 'code' });
    // The next plan shows the drift; applying puts the repository's version back.
    const drift = await apply(fullSet('You triage AWS findings.'));
    expect(drift.json().changes).toEqual([{ action: 'update', kind: 'Agent', name: 'cloud-triage', diff: { systemPrompt: { from: 'edited by hand', to: 'You triage AWS findings.' } } }]);
  });

  it('checks permissions per kind as by hand: 403 with missingPerms', async () => {
    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read', 'destination.read', 'tool.read', 'alert.read']);
    // A reader compares everything its GETs show; secret values only with .manage (issue 41 item 7).
    const read = (await plan(fullSet('You triage AWS findings.'), {}, bearer(reader.key))).json();
    expect(read.changes).toEqual([]);
    expect(read.notCompared.map((n: { kind: string; name: string; fields: string[]; permission: string }) => `${n.kind}/${n.name} ${n.fields.join(',')} ${n.permission}`)).toEqual([
      'Model/triage provider.apiKey agent.manage',
      'McpServer/cloudtools token tool.manage',
      'OutputDestination/soc-slack token destination.manage',
      'OutputDestination/soc-webhook token destination.manage',
      'Trigger/guardduty signingSecret agent.manage',
    ]);
    const docs = fullSet('reader edit');
    const denied = await apply(docs, {}, bearer(reader.key));
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.manage'] });
    const agentsOnly = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read']);
    const noRead = await plan(docs, {}, bearer(agentsOnly.key));
    expect(noRead.statusCode).toBe(403);
    expect(noRead.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['tool.read', 'destination.read', 'alert.read'] });
  });

  it('--prune deletes only resources managed by code that no document names', async () => {
    const byHand = await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'hand-made', systemPrompt: 'x' } });
    expect(byHand.statusCode).toBe(200);
    const docs = fullSet('You triage AWS findings.').filter((d) => !['soc-webhook', 'guardduty', 'default', 'root-login'].includes(d.metadata.name));
    (docs[2]!.spec as { outputDestinations: string[] }).outputDestinations = ['soc-slack'];
    const withoutPrune = await plan(docs);
    expect(summary(withoutPrune.json().changes)).toEqual(['update Agent/cloud-triage']);
    const pruned = await apply(docs, { prune: true });
    expect(pruned.statusCode).toBe(200);
    expect(summary(pruned.json().changes)).toEqual([
      'update Agent/cloud-triage',
      'delete TriageRoutes/default',
      'delete Trigger/guardduty',
      'delete CodeDetection/root-login',
      'delete OutputDestination/soc-webhook',
    ]);
    expect((await t.app.inject({ method: 'GET', url: '/api/alert-triage-routes', headers: admin })).json().routes).toEqual([]);
    const names = (await t.app.inject({ method: 'GET', url: '/api/agents', headers: admin })).json().agents.map((a: { name: string }) => a.name);
    expect(names).toEqual(['cloud-triage', 'hand-made']);
    expect((await apply(docs, { prune: true })).json()).toEqual({ changes: [], notCompared: [] });
  });

  it('exports YAML that re-applies to no changes, with secrets as references', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/config/export', headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/yaml');
    expect(res.body).not.toContain('xoxb-secret');
    expect(res.body).toContain('token: ${env:RAMPART_OUTPUTDESTINATION_SOC_SLACK_TOKEN}');
    const docs = res.body.split(/^---$/m).map((d) => parse(d));
    // Resolve the references as `rampart apply` would, from the values they stand for.
    const values: Record<string, string> = { RAMPART_OUTPUTDESTINATION_SOC_SLACK_TOKEN: 'xoxb-secret', RAMPART_MODEL_TRIAGE_PROVIDER_APIKEY: 'sk-test-1', RAMPART_MCPSERVER_CLOUDTOOLS_TOKEN: 'mcp-secret' };
    const resolved = JSON.parse(JSON.stringify(docs).replace(/\$\{env:([A-Z_]+)\}/g, (_m, n: string) => values[n] ?? `missing ${n}`));
    // Everything applied from code is unchanged; the agent made by hand is only adopted (managed by code from now on).
    expect((await plan(resolved)).json()).toEqual({ changes: [{ action: 'update', kind: 'Agent', name: 'hand-made', diff: { managedBy: { from: null, to: 'code' } } }], notCompared: [] });
    expect((await apply(resolved)).statusCode).toBe(200);
    expect((await apply(resolved)).json()).toEqual({ changes: [], notCompared: [] });
  });

  it('publishes the JSON Schema of the documents without an API key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/config.schema.json' });
    expect(res.statusCode).toBe(200);
    const schema = res.json();
    expect(schema.oneOf.map((b: { properties: { kind: { const: string } } }) => b.properties.kind.const)).toEqual(expect.arrayContaining(['Agent', 'Model', 'OutputDestination', 'Trigger']));
    const agent = schema.oneOf.find((b: { properties: { kind: { const: string } } }) => b.properties.kind.const === 'Agent');
    expect(agent.properties.spec.required).toEqual(['systemPrompt']);
    expect(Object.keys(agent.properties.spec.properties)).toEqual(expect.arrayContaining(['model', 'outputDestinations', 'toolNames']));
  });

  it('refuses a URL Rampart would call on a forbidden address, as the API does', async () => {
    const res = await plan([doc('McpServer', 'inside', { url: 'http://169.254.169.254/mcp' })]);
    expect(res.statusCode).toBe(400);
    expect(res.json().issues).toMatchObject([{ path: 'documents.0.spec.url', code: 'forbidden_address' }]);
  });

  it('takes a code detection written as a SigmaHQ rule, mapped as the Sigma import maps it; re-applied, no changes', async () => {
    const rule = readFileSync(new URL('../fixtures/sigma/proc_creation_win_hktl_mimikatz_command_line.yml', import.meta.url), 'utf8');
    const docs = [doc('CodeDetection', 'mimikatz-cli', { sigma: rule })];
    const applied = await apply(docs);
    expect(applied.statusCode, applied.body).toBe(200);
    expect(applied.json().changes).toMatchObject([{ action: 'create', kind: 'CodeDetection', name: 'mimikatz-cli' }]);
    const list = (await t.app.inject({ url: '/api/code-detections', headers: admin })).json().codeDetections;
    expect(list.find((d: { name: string }) => d.name === 'mimikatz-cli')).toMatchObject({
      ruleId: 'a642964e-bead-4bed-8910-1bb4d63e3b4d',
      severity: 'high',
      status: 'test',
      attackTechniques: ['T1003.001', 'T1003.002', 'T1003.004', 'T1003.005', 'T1003.006'],
      attackTactics: ['credential-access'],
      logTable: { source: 'windows', stream: 'process_creation' },
      query: rule.trimEnd(),
      managedBy: 'code',
    });
    expect((await plan(docs)).json().changes).toEqual([]);
    // The Sigma import does not overwrite it: its file is the truth.
    const imported = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: admin, payload: { format: 'sigma', content: rule } });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json()).toMatchObject({ created: [], updated: [], errors: [{ message: expect.stringContaining('"mimikatz-cli" is managed by code') }] });

    const broken = await plan([doc('CodeDetection', 'no-rule', { sigma: 'title: x\nlogsource: {}\n' })]);
    expect(broken.statusCode).toBe(400);
    expect(broken.json().issues).toMatchObject([{ path: 'documents.0.spec.sigma' }]);
  });

  it('rejects a bad document with the path of each problem', async () => {
    const res = await plan([{ apiVersion: 'rampart/v2', kind: 'Agent', metadata: { name: 'x' }, spec: {} }, doc('Agent', 'y', { systemPrompt: '' })]);
    expect(res.statusCode).toBe(400);
    expect(res.json().issues.map((i: { path: string }) => i.path)).toEqual(['documents.0.apiVersion', 'documents.1.spec.systemPrompt']);
  });
});
