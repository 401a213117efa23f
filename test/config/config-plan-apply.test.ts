import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { SHARED_DIR } from '../support/shared-dir.js';

/**
 * Issue 47 item 1: the plan refuses everything the apply would (it runs the apply's own writes
 * and rolls them back), every problem of every document in one answer; so a document set whose
 * plan passes applies. The SigmaHQ rules are the team's fixtures (shared/fixtures/sigma, Detection
 * Rule License 1.1, see its LICENSE.txt), read from there.
 */
let t: TestContext;
let admin: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
});
afterAll(() => t.close());

const doc = (kind: string, name: string, spec: Record<string, unknown>) => ({ apiVersion: 'rampart/v1', kind, metadata: { name }, spec });
const plan = (documents: unknown[], headers = admin) => t.app.inject({ method: 'POST', url: '/api/config/plan', headers, payload: { documents } });
const apply = (documents: unknown[], headers = admin) => t.app.inject({ method: 'POST', url: '/api/config/apply', headers, payload: { documents } });
const issuePaths = (res: { json: () => { issues?: Array<{ path: string }> } }) => (res.json().issues ?? []).map((i) => i.path);
const documentIndex = (issuePath: string) => Number(/^documents\.(\d+)\./.exec(issuePath)?.[1]);

const RULES = path.join(SHARED_DIR, 'fixtures/sigma/rules');
function sigmaRules(every: number): Array<{ file: string; text: string }> {
  const files: string[] = [];
  const walk = (p: string) => {
    for (const e of fs.readdirSync(p, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(p, e.name));
      else if (e.name.endsWith('.yml')) files.push(path.join(p, e.name));
    }
  };
  walk(RULES);
  return files.sort().filter((_, i) => i % every === 0).map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }));
}

describe('the plan refuses what the apply would', () => {
  it('names every problem of every document in one answer, each at its document field, for the plan and the apply alike', async () => {
    const documents = [
      doc('CodeDetection', 'impossible-technique', { severity: 'high', attackTechniques: ['T1078', 'T9999'] }), // refused by the write (the catalog)
      doc('Agent', 'bad-schema', { systemPrompt: 'x', maxSteps: 'many' }), // refused by the schema
      doc('Agent', 'bad-reference', { systemPrompt: 'x', outputDestinations: ['nowhere'] }), // refused by the references
      doc('CodeDetection', 'fine', { severity: 'low', logTable: { source: 'aws', stream: 'cloudtrail' } }),
      doc('TriageRoutes', 'default', { routes: [{ name: 'r', conditions: [{ type: 'logTable', source: 'gcp', stream: 'audit' }], responseAgent: 'bad-reference' }] }),
      doc('Agent', 'fine-agent', { systemPrompt: 'x' }),
      doc('TriageRoutes', 'default', { routes: [] }), // a duplicate document
    ];
    const planned = await plan(documents);
    expect(planned.statusCode).toBe(400);
    expect(planned.json().error).toBe('Validation failed');
    expect(planned.json().issues).toEqual([
      { path: 'documents.0.spec.attackTechniques.1', message: 'T9999 is not an ATT&CK technique of the catalog', code: 'unknown_reference', location: 'body' },
      expect.objectContaining({ path: 'documents.1.spec.maxSteps', location: 'body' }),
      { path: 'documents.2.spec.outputDestinations.0', message: 'no OutputDestination named "nowhere" in the documents or the organization', code: 'unknown_reference', location: 'body' },
      expect.objectContaining({ path: 'documents.6.metadata.name', code: 'duplicate' }),
    ]);
    // The apply answers the same, and writes nothing (the plan's trial writes are rolled back too).
    const applied = await apply(documents);
    expect(applied.statusCode).toBe(400);
    expect(applied.json()).toEqual(planned.json());
    const detections = (await t.app.inject({ url: '/api/code-detections', headers: admin })).json();
    expect(detections.totalCount).toBe(0);
    expect((await t.app.inject({ url: '/api/agents', headers: admin })).json().totalCount).toBe(0);
  });

  it('refuses at plan time what only the routes\' write checks (a log table no detection provides), at the route\'s condition', async () => {
    const documents = [
      doc('Agent', 'triage', { systemPrompt: 'x' }),
      doc('CodeDetection', 'root-login', { severity: 'high', logTable: { source: 'aws', stream: 'cloudtrail' } }),
      doc('TriageRoutes', 'default', { routes: [{ name: 'gcp', conditions: [{ type: 'logTable', source: 'gcp', stream: 'audit' }], responseAgent: 'triage' }] }),
    ];
    const planned = await plan(documents);
    expect(planned.statusCode).toBe(400);
    expect(planned.json().issues).toEqual([{ path: 'documents.2.spec.routes.0.conditions.0', message: 'No log table gcp/audit among logTableOptions', code: 'unknown_reference', location: 'body' }]);
    // A reader (no write permission) gets the same refusals from a plan, and nothing is written.
    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read', 'alert.read']);
    expect((await plan(documents, bearer(reader.key))).json()).toEqual(planned.json());
    expect((await t.app.inject({ url: '/api/agents', headers: admin })).json().totalCount).toBe(0);
  });

  it('applies every document set whose plan passes: the SigmaHQ sample and every kind, after leaving out what the plan refused', async () => {
    const rules = sigmaRules(10);
    const documents = [
      doc('Model', 'triage', { modelId: 'gpt-4o-mini', provider: { name: 'openai', type: 'openai', apiKey: 'sk-test-1' } }),
      doc('McpServer', 'cloudtools', { url: 'https://mcp.example.com/mcp' }),
      doc('OutputDestination', 'soc-webhook', { type: 'webhook', config: { url: 'https://hooks.example.com/in', authType: 'bearer' }, token: 'hook-secret' }),
      doc('Agent', 'cloud-triage', { systemPrompt: 'x', model: 'triage', toolNames: ['mcp:cloudtools/*'], outputDestinations: ['soc-webhook'] }),
      doc('Trigger', 'guardduty', { agent: 'cloud-triage', source: 'webhook', createAlert: true }),
      doc('Trigger', 'hourly', { agent: 'cloud-triage', source: 'cron', cronSchedule: '0 * * * *' }),
      doc('CodeDetection', 'unknown-technique', { severity: 'high', attackTechniques: ['T9999'] }),
      ...rules.map((r) => doc('CodeDetection', path.basename(r.file, '.yml'), { sigma: r.text })),
      doc('TriageRoutes', 'default', { routes: [{ name: 'all-high', conditions: [{ type: 'severity', severities: ['high', 'critical'] }], responseAgent: 'cloud-triage' }], defaultResponseAgent: 'cloud-triage' }),
    ];
    const first = await plan(documents);
    expect(first.statusCode).toBe(400);
    const refused = new Set(issuePaths(first).map(documentIndex));
    // Refused in the one answer: the made-up technique. SigmaHQ rules naming ids newer than the
    // shipped catalog (T1685, …) pass: their own rule names the id (issue 47 item 14).
    expect(refused.has(6)).toBe(true);
    const newer = (i: number) => /attack\.t168\d/.test(String((documents[i]!.spec as { sigma?: string }).sigma));
    expect(documents.some((_, i) => i > 6 && newer(i))).toBe(true);
    expect([...refused].filter(newer)).toEqual([]);
    expect(first.json().issues.some((i: { message: string }) => /T168\d(\.\d{3})? is not an ATT&CK technique of the catalog/.test(i.message))).toBe(false);

    const passing = documents.filter((_, i) => !refused.has(i));
    const planned = await plan(passing);
    expect(planned.statusCode).toBe(200);
    const applied = await apply(passing);
    expect(applied.statusCode).toBe(200);
    expect(applied.json().changes).toEqual(planned.json().changes);
    const detections = (await t.app.inject({ url: '/api/code-detections', headers: admin })).json();
    expect(detections.totalCount).toBe(passing.filter((d) => d.kind === 'CodeDetection').length);
    expect((await plan(passing)).json().changes).toEqual([]);
  }, 300_000);
});

describe('issue 47 item 2: export carries a webhook trigger\'s secret as a reference; the plan says what it generates', () => {
  const documents = [doc('Agent', 'intake-agent', { systemPrompt: 'x' }), doc('Trigger', 'intake', { agent: 'intake-agent', source: 'webhook', createAlert: true })];
  const other = () => bearer(t.orgB.apiKey.key);

  it('a plan shows the secret and URL a create generates, and an export → apply elsewhere keeps the secret', async () => {
    const planned = await plan(documents, other());
    expect(planned.statusCode).toBe(200);
    expect(planned.json().changes[1]).toEqual({
      action: 'create',
      kind: 'Trigger',
      name: 'intake',
      diff: expect.objectContaining({
        secret: { from: null, to: '(secret: will be generated)' },
        webhookUrl: { from: null, to: '(generated: a new URL, read it with GET /api/agents/{agentId}/trigger)' },
      }),
    });
    expect((await apply(documents, other())).statusCode).toBe(200);
    // Re-applied as written (no secret): nothing is generated again, the stored secret is kept.
    expect((await plan(documents, other())).json()).toEqual({ changes: [], notCompared: [] });

    // The secret senders use (read once, as an operator would, by rotating it).
    const agent = (await t.app.inject({ url: '/api/agents', headers: other() })).json().agents.find((a: { name: string }) => a.name === 'intake-agent');
    const trigger = (await t.app.inject({ url: `/api/agents/${agent.id}/trigger`, headers: other() })).json().triggers[0];
    const rotated = await t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/trigger/${trigger.id}/rotate-secret`, headers: other() });
    expect(rotated.statusCode).toBe(200);
    const secret = rotated.json().secret as string;

    const exported = await t.app.inject({ url: '/api/config/export', headers: other() });
    expect(exported.body).toContain('secret: ${env:RAMPART_TRIGGER_INTAKE_SECRET}');
    expect(exported.body).not.toContain(secret);
    const resolved = exported.body
      .split(/^---$/m)
      .map((d) => parse(d.replaceAll('${env:RAMPART_TRIGGER_INTAKE_SECRET}', secret)) as { kind: string; spec: Record<string, unknown> })
      .filter((d) => d.kind === 'Agent' || d.kind === 'Trigger');
    // Back where it came from: no changes (the secret compared equal).
    expect((await plan(resolved, other())).json()).toEqual({ changes: [], notCompared: [] });

    // Another organization (a new instance): the trigger gets a new URL, said so, and the same secret.
    const elsewhere = await plan(resolved);
    const created = elsewhere.json().changes.find((c: { kind: string }) => c.kind === 'Trigger');
    expect(created.diff.webhookUrl).toEqual({ from: null, to: '(generated: a new URL, read it with GET /api/agents/{agentId}/trigger)' });
    expect(created.diff.secret).toEqual({ from: null, to: '(secret: will change)' });
    expect((await apply(resolved)).statusCode).toBe(200);
    expect((await plan(resolved)).json()).toEqual({ changes: [], notCompared: [] });
    // Changed by one character, the secret would change: it was compared, and it is the sender's.
    const wrong = resolved.map((d) => (d.kind === 'Trigger' ? { ...d, spec: { ...d.spec, secret: `${secret}x` } } : d));
    expect((await plan(wrong)).json().changes).toEqual([{ action: 'update', kind: 'Trigger', name: 'intake', diff: { secret: { from: '(secret)', to: '(secret: will change)' } } }]);
  });

  it('a trigger moved to another source is replaced: the plan says a new URL and secret will be generated', async () => {
    const moved = [documents[0]!, doc('Trigger', 'intake', { agent: 'intake-agent', source: 'jira', createAlert: true })];
    const res = await plan(moved, other());
    expect(res.statusCode).toBe(200);
    expect(res.json().changes).toEqual([{
      action: 'update',
      kind: 'Trigger',
      name: 'intake',
      diff: expect.objectContaining({
        source: { from: 'webhook', to: 'jira' },
        secret: { from: '(secret)', to: '(secret: will be generated)' },
        webhookUrl: { from: '(the current URL)', to: '(generated: a new URL, read it with GET /api/agents/{agentId}/trigger)' },
      }),
    }]);
  });
});
