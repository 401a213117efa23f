import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from './support/app.js';
import { userWithPermissions } from './support/actors.js';
import { SHARED_DIR } from './support/shared-dir.js';

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
    // Refused in the one answer: the made-up technique, and SigmaHQ rules naming ids newer than the shipped catalog (T1685, …).
    expect(refused.has(6)).toBe(true);
    const refusedRules = [...refused].filter((i) => i > 6).map((i) => (documents[i]!.metadata as { name: string }).name);
    expect(refusedRules.length).toBeGreaterThan(0);
    expect(first.json().issues.some((i: { message: string }) => /T168\d(\.\d{3})? is not an ATT&CK technique of the catalog/.test(i.message))).toBe(true);

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
