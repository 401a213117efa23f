import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';

/** Tests as code: a CodeDetection document's `tests` run in POST /api/config/plan (what `rampart apply --dry-run` calls). */
let t: TestContext;
let admin: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
});
afterAll(() => t.close());

// SigmaHQ rule (test/fixtures/sigma, DRL 1.1).
const rule = readFileSync(new URL('../fixtures/sigma/proc_creation_win_certutil_decode.yml', import.meta.url), 'utf8');
const doc = (tests: unknown[], sigma = rule) => ({ apiVersion: 'rampart/v1', kind: 'CodeDetection', metadata: { name: 'certutil-decode' }, spec: { sigma, tests } });
const plan = (documents: unknown[]) => t.app.inject({ method: 'POST', url: '/api/config/plan', headers: admin, payload: { documents } });
const decode = { Image: 'C:\\Windows\\System32\\certutil.exe', CommandLine: 'certutil.exe -decode payload.b64 payload.exe' };
const urlcache = { Image: 'C:\\Windows\\System32\\certutil.exe', CommandLine: 'certutil.exe -urlcache -f http://x/y y' };

describe('tests as code in the plan', () => {
  it('passing tests: the plan goes through', async () => {
    const res = await plan([doc([{ name: 'decode', event: decode, expect: 'match' }, { name: 'download', events: [urlcache], expect: 'no_match' }])]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().changes).toMatchObject([{ action: 'create', kind: 'CodeDetection', name: 'certutil-decode' }]);
  });

  it('a failing test fails the plan, naming the test, the rule and the event', async () => {
    const res = await plan([doc([{ name: 'decode', event: decode, expect: 'match' }, { name: 'download is caught', event: urlcache, expect: 'match' }])]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Validation failed',
      issues: [expect.objectContaining({
        path: 'documents.0.spec.tests.1',
        message: `test "download is caught" failed: rule "File Decoded From Base64/Hex Via Certutil.EXE" expected match, event 0: ${JSON.stringify(urlcache)}`,
      })],
    });
  });

  it('a rule the engine refuses fails the plan with the construct', async () => {
    const refused = rule.replace("CommandLine|contains|windash:", 'CommandLine|contains|frob:');
    const res = await plan([doc([], refused)]);
    expect(res.statusCode).toBe(400);
    expect(res.json().issues).toEqual([expect.objectContaining({ path: 'documents.0.spec.sigma', message: expect.stringMatching(/^the Sigma engine refuses File Decoded From Base64\/Hex Via Certutil.EXE: modifier \|frob \(line \d+ of the rule\)/) })]);
  });
});
