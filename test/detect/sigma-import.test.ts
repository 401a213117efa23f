import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';

/** POST /api/code-detections/import with real SigmaHQ rules (test/fixtures/sigma, DRL 1.1) and broken ones. */
const dir = new URL('../fixtures/sigma/', import.meta.url);
const rule = (name: string) => fs.readFileSync(new URL(name, dir), 'utf8');
const REAL = [
  'proc_creation_win_powershell_base64_encoded_cmd.yml',
  'proc_creation_win_hktl_mimikatz_command_line.yml',
  'proc_creation_win_certutil_decode.yml',
  'proc_creation_win_mshta_susp_execution.yml',
  'proc_creation_lnx_base64_decode.yml',
  'aws_cloudtrail_disable_logging.yml',
];

let t: TestContext;
let admin: Record<string, string>;
const importRules = (content: string, headers = admin) => t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers, payload: { format: 'sigma', content } });
const detections = async () => (await t.app.inject({ url: '/api/code-detections?limit=100', headers: admin })).json().codeDetections as Array<Record<string, any>>;

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
});
afterAll(() => t.close());

describe('Sigma import', () => {
  it('imports real SigmaHQ rules unchanged (multi-document YAML), mapping each field', async () => {
    const res = await importRules(REAL.map(rule).join('\n---\n'));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.errors).toEqual([]);
    expect(body.updated).toEqual([]);
    expect(body.created.map((c: { index: number; ruleId: string }) => [c.index, c.ruleId])).toEqual([
      [0, 'ca2092a1-c273-4878-9b4b-0d60115bf5ea'],
      [1, 'a642964e-bead-4bed-8910-1bb4d63e3b4d'],
      [2, 'cc9cbe82-7bc0-4ef5-bc23-bbfb83947be7'],
      [3, 'cc7abbd0-762b-41e3-8a26-57ad50d2eea3'],
      [4, 'e2072cab-8c9a-459b-b63c-40ae79e27031'],
      [5, '4db60cc0-36fb-42b7-9b58-a5b53019fb74'],
    ]);
    // T1685.002 is newer than the shipped ATT&CK catalog: imported and counted under the id it names, with a warning (issue 47 item 14).
    expect(body.warnings).toEqual([{ index: 5, ruleId: '4db60cc0-36fb-42b7-9b58-a5b53019fb74', title: 'AWS CloudTrail Important Change', message: 'ATT&CK technique(s) T1685.002 unknown to the catalog (v18.1): counted for coverage under the id named, without a name or tactic until the catalog knows it' }]);

    const byRule = new Map((await detections()).map((d) => [d.ruleId, d]));
    const ps = byRule.get('ca2092a1-c273-4878-9b4b-0d60115bf5ea')!;
    expect(ps).toMatchObject({
      name: 'Suspicious Encoded PowerShell Command Line',
      severity: 'high',
      status: 'test',
      attackTechniques: ['T1059.001'],
      attackTactics: ['execution'],
      tags: ['attack.execution', 'attack.t1059.001'],
      logTable: { source: 'windows', stream: 'process_creation' },
    });
    // The rule itself is the query, byte for byte; the author (DRL 1.1 attribution) ends the description.
    expect(ps.query).toBe(rule(REAL[0]!).trim());
    expect(ps.description).toMatch(/\n\nAuthor: Florian Roth \(Nextron Systems\), Markus Neis, Jonhnathan Ribeiro, Daniil Yugoslavskiy, Anton Kutepov, oscd\.community$/);
    expect(byRule.get('a642964e-bead-4bed-8910-1bb4d63e3b4d')).toMatchObject({ attackTechniques: ['T1003.001', 'T1003.002', 'T1003.004', 'T1003.005', 'T1003.006'], attackTactics: ['credential-access'] });
    // `attack.stealth` (ATT&CK v19) is no tactic of the shipped catalog: kept in tags only.
    expect(byRule.get('cc7abbd0-762b-41e3-8a26-57ad50d2eea3')).toMatchObject({ attackTechniques: ['T1059.007', 'T1140', 'T1218.005'], attackTactics: ['execution'], tags: ['attack.stealth', 'attack.t1140', 'attack.t1218.005', 'attack.execution', 'attack.t1059.007', 'cve.2020-1599'] });
    expect(byRule.get('e2072cab-8c9a-459b-b63c-40ae79e27031')).toMatchObject({ severity: 'low', logTable: { source: 'linux', stream: 'process_creation' } });
    expect(byRule.get('4db60cc0-36fb-42b7-9b58-a5b53019fb74')).toMatchObject({ severity: 'medium', status: 'test', attackTechniques: ['T1685.002'], logTable: { source: 'aws', stream: 'cloudtrail' }, tags: ['attack.defense-impairment', 'attack.t1685.002'] });
  });

  it('re-import by rule id updates in place; a JSON array of rules imports too', async () => {
    const before = (await detections()).length;
    const changed = rule(REAL[2]!).replace('level: high', 'level: critical').replace('status: test', 'status: stable');
    const res = await importRules(changed);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().created).toEqual([]);
    expect(res.json().updated).toEqual([expect.objectContaining({ index: 0, ruleId: 'cc9cbe82-7bc0-4ef5-bc23-bbfb83947be7', name: 'File Decoded From Base64/Hex Via Certutil.EXE' })]);
    const all = await detections();
    expect(all).toHaveLength(before);
    expect(all.find((d) => d.ruleId === 'cc9cbe82-7bc0-4ef5-bc23-bbfb83947be7')).toMatchObject({ severity: 'critical', status: 'stable' });

    const json = JSON.stringify([
      { title: 'Whoami From JSON', id: '5a0b0e0c-1d2e-4f30-8a41-52637485a9b0', status: 'experimental', level: 'informational', tags: ['attack.discovery', 'attack.t1033'], logsource: { product: 'windows', service: 'security' }, detection: { selection: { EventID: 4688, NewProcessName: 'whoami.exe' }, condition: 'selection' } },
      { title: 'No Id Rule', logsource: { category: 'proxy' }, detection: { keywords: ['evil.example'], condition: 'keywords' } },
    ]);
    const arr = await importRules(json);
    expect(arr.statusCode, arr.body).toBe(200);
    expect(arr.json().created.map((c: { name: string }) => c.name)).toEqual(['Whoami From JSON', 'No Id Rule']);
    const list = await detections();
    expect(list.find((d) => d.name === 'Whoami From JSON')).toMatchObject({ severity: 'low', status: 'experimental', attackTechniques: ['T1033'], logTable: { source: 'windows', stream: 'security' } });
    expect(list.find((d) => d.name === 'Whoami From JSON')!.query).toContain('title: Whoami From JSON');
    // Without an id, a rule is matched by its title among detections without a rule id.
    expect(list.find((d) => d.name === 'No Id Rule')).toMatchObject({ ruleId: null, status: 'experimental', logTable: { source: 'any', stream: 'proxy' } });
    const again = await importRules(JSON.stringify([{ title: 'No Id Rule', level: 'high', logsource: { category: 'proxy' }, detection: { keywords: ['evil.example'], condition: 'keywords' } }]));
    expect(again.json().updated).toEqual([expect.objectContaining({ index: 0, ruleId: null, name: 'No Id Rule' })]);
  });

  it('answers one clear error per invalid rule and imports the valid ones beside them', async () => {
    const content = [rule('invalid/missing-condition.yml'), rule('invalid/bad-enums-and-id.yml'), rule('invalid/no-logsource.yml'), rule(REAL[1]!), rule('invalid/not-yaml.yml')].join('\n---\n');
    const res = await importRules(content);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.updated.map((u: { ruleId: string }) => u.ruleId)).toEqual(['a642964e-bead-4bed-8910-1bb4d63e3b4d']);
    expect(body.created).toEqual([]);
    expect(body.errors).toEqual([
      { index: 0, ruleId: '4f6b2a10-7d1e-4c55-9a0b-2b8f3c9e1d01', title: 'Whoami Execution Without A Condition', message: "Not a valid Sigma rule: detection: must have required property 'condition'" },
      {
        index: 1, ruleId: 'not-a-uuid', title: 'Net User Enumeration With Made-Up Level',
        message: 'Not a valid Sigma rule: id: must be a UUID; status: must be equal to one of the allowed values (stable, test, experimental, deprecated, unsupported); level: must be equal to one of the allowed values (informational, low, medium, high, critical)',
      },
      { index: 2, ruleId: '0b1c9a57-5e2f-4d3c-8a41-6f0e2d7c9b12', title: 'Rule Without A Log Source', message: "Not a valid Sigma rule: rule: must have required property 'logsource'" },
      { index: 4, ruleId: null, title: null, message: expect.stringMatching(/^Not valid YAML: /) },
    ]);
  });

  it('refuses duplicates within one import, collections, and a rule that is not a map', async () => {
    const res = await importRules([rule(REAL[0]!), rule(REAL[0]!), 'action: global\ntitle: x', '- just\n- a list of strings'].join('\n---\n'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().errors).toEqual([
      { index: 1, ruleId: 'ca2092a1-c273-4878-9b4b-0d60115bf5ea', title: 'Suspicious Encoded PowerShell Command Line', message: 'Rule id ca2092a1-c273-4878-9b4b-0d60115bf5ea appears twice in this import' },
      { index: 2, ruleId: null, title: 'x', message: 'Sigma rule collections (action: global) are not supported: import the rules one document each' },
      { index: 3, ruleId: null, title: null, message: 'Not a valid Sigma rule: a rule is a map of fields (title, logsource, detection, …)' },
      { index: 4, ruleId: null, title: null, message: 'Not a valid Sigma rule: a rule is a map of fields (title, logsource, detection, …)' },
    ]);
  });

  it('checks techniques against the catalog on create and replace; 400 and 403 bodies; another organization sees nothing', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: admin, payload: { name: 'x', attackTechniques: ['T1059.001', 'T9999'], attackTactics: ['execution', 'hacking'] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      error: 'Validation failed',
      issues: [
        { path: 'attackTechniques.1', message: 'T9999 is not an ATT&CK technique of the catalog', code: 'unknown_reference', location: 'body' },
        { path: 'attackTactics.1', message: 'hacking is not an ATT&CK tactic shortname (e.g. execution, defense-evasion)', code: 'unknown_reference', location: 'body' },
      ],
    });
    const malformed = await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: admin, payload: { name: 'x', attackTechniques: ['TA0002'], status: 'production' } });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().issues.map((i: { path: string }) => i.path).sort()).toEqual(['attackTechniques.0', 'status']);

    const ok = await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: admin, payload: { name: 'Phishing attachments', attackTechniques: ['t1566.001'], status: 'experimental', tags: ['email'] } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ attackTechniques: ['T1566.001'], attackTactics: [], status: 'experimental', tags: ['email'] });

    const format = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: admin, payload: { format: 'splunk', content: 'x' } });
    expect(format.statusCode).toBe(400);
    expect(format.json().issues[0]).toMatchObject({ path: 'format', location: 'body' });
    const empty = await importRules('# only a comment\n---\n');
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'content', message: 'No Sigma rule in content', code: 'invalid', location: 'body' }] });

    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.read']);
    const denied = await importRules(rule(REAL[0]!), bearer(reader.key));
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['alert.manage'] });

    const other = await t.app.inject({ url: '/api/code-detections', headers: bearer(t.orgB.apiKey.key) });
    expect(other.json().totalCount).toBe(0);
    // Org B importing the same rule id creates its own detection, org A's stays untouched.
    const b = await importRules(rule(REAL[0]!), bearer(t.orgB.apiKey.key));
    expect(b.json().created).toHaveLength(1);
    expect(b.json().created[0].id).not.toBe((await detections()).find((d) => d.ruleId === 'ca2092a1-c273-4878-9b4b-0d60115bf5ea')!.id);
  });
});
