import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions, type TestUser } from '../support/actors.js';
import { configureModel } from '../support/agents.js';
import { runRampart } from '../support/rampart-cli.js';

/**
 * Issue 41 items 1, 2, 7, 9 and 10, written as the attacks: secrets must not leave the operator's
 * machine or the server through agents as code (references planted in plain fields, plans,
 * dry-runs, exports), whoever asks.
 */
let t: TestContext;
let url: string;
let admin: Record<string, string>;
let low: TestUser;
let analyst: Record<string, string>;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-config-secrets-'));
const SIG = 'SuperSecretSig0123456789abcdef';
const TEAMS_URL = `https://prod-01.westeurope.logic.azure.com/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers&sv=1.0&sig=${SIG}`;
const SERVER_KEY = 'server-secret-key-material-0123456789';
const PROVIDER_KEY = 'sk-right-provider-key-42';
let secretKeyFile: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  admin = bearer(t.orgA.apiKey.key);
  // What the server keeps in its data directory (its encryption key).
  secretKeyFile = path.join(t.config.dataDir, 'secret-key');
  fs.writeFileSync(secretKeyFile, `${SERVER_KEY}\n`);
  low = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.create', 'agent.read']);
  const roles = (await t.app.inject({ url: '/api/roles', headers: admin })).json().roles as Array<{ id: string; name: string }>;
  const user = await t.app.inject({ method: 'POST', url: '/api/users', headers: admin, payload: { email: 'analyst@a.test', roleId: roles.find((r) => r.name === 'Analyst')!.id } });
  const key = await t.app.inject({ method: 'POST', url: '/api/api-keys', headers: admin, payload: { name: 'analyst', userId: user.json().id } });
  analyst = bearer(key.json().key);
  const teams = await t.app.inject({ method: 'POST', url: '/api/output-destinations', headers: admin, payload: { name: 'soc-teams', type: 'teams', config: { url: TEAMS_URL } } });
  expect(teams.statusCode, teams.body).toBe(200);
  await configureModel(t, t.orgA.apiKey.key, { name: 'openai', type: 'openai', baseUrl: 'https://api.openai.example/v1', apiKey: PROVIDER_KEY, alias: 'triage', modelId: 'gpt-4o-mini' });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The operator's shell: their own API key in RAMPART_API_KEY, and the variables the export's placeholders name. */
const operatorEnv = (extra: Record<string, string> = {}) => ({
  RAMPART_URL: url,
  RAMPART_API_KEY: t.orgA.apiKey.key,
  RAMPART_OUTPUTDESTINATION_SOC_TEAMS_CONFIG_URL: TEAMS_URL,
  RAMPART_MODEL_TRIAGE_PROVIDER_APIKEY: PROVIDER_KEY,
  ...extra,
});
const secretsIn = (text: string) => [t.orgA.apiKey.key, SERVER_KEY, SIG, PROVIDER_KEY].filter((s) => text.includes(s));

describe('issue 41 item 1: export → apply does not hand the operator\'s secrets to a low-privilege user', () => {
  const out = path.join(dir, 'exported');
  let agentId: string;

  it('references planted in an agent\'s prompt and description stay plain text through export, dry-run and apply (the real CLI)', async () => {
    const planted = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: bearer(low.key),
      payload: { name: 'planted', systemPrompt: '${env:RAMPART_API_KEY}', description: `\${file:${secretKeyFile}}` },
    });
    expect(planted.statusCode, planted.body).toBe(200);
    agentId = planted.json().id;

    const exported = await runRampart(['export', '-o', out], operatorEnv());
    expect(exported.code, exported.stderr).toBe(0);
    const agentFile = fs.readFileSync(path.join(out, 'Agent', 'planted.yaml'), 'utf8');
    expect(agentFile).toContain('systemPrompt: ${env:RAMPART_API_KEY}');

    const dryRun = await runRampart(['apply', '-f', out, '--dry-run'], operatorEnv());
    expect(dryRun.stderr).toBe('');
    expect(dryRun.code).toBe(2);
    expect(dryRun.stdout).toContain('~ update Agent/planted\n    managedBy: null -> "code"\n');
    expect(secretsIn(dryRun.stdout + dryRun.stderr)).toEqual([]);

    const applied = await runRampart(['apply', '-f', out], operatorEnv());
    expect(applied.code, applied.stderr).toBe(0);
    expect(secretsIn(applied.stdout + applied.stderr)).toEqual([]);
    const agent = (await t.app.inject({ url: `/api/agents/${agentId}`, headers: bearer(low.key) })).json();
    expect(agent.systemPrompt).toBe('${env:RAMPART_API_KEY}');
    expect(agent.description).toBe(`\${file:${secretKeyFile}}`);
    expect(secretsIn(JSON.stringify(agent))).toEqual([]);

    // The credential-bearing Teams URL went out as a placeholder and came back whole: nothing changes.
    const again = await runRampart(['apply', '-f', out, '--dry-run'], operatorEnv());
    expect(again.stdout).toBe('No changes: the organization matches the files.\n');
    expect(again.code).toBe(0);
  }, 300_000);

  it('a ${file:} reference in a secret field reads only under the directory applied (symlinks followed)', async () => {
    const repo = path.join(dir, 'repo');
    fs.mkdirSync(repo, { recursive: true });
    fs.symlinkSync(secretKeyFile, path.join(repo, 'innocent-token'));
    const doc = (token: string) => `apiVersion: rampart/v1\nkind: OutputDestination\nmetadata: { name: exfil }\nspec:\n  type: webhook\n  config: { url: "https://hooks.example.com/in", authType: bearer }\n  token: ${token}\n`;
    const file = path.join(repo, 'destination.yaml');
    for (const ref of [`\${file:${secretKeyFile}}`, '${file:../' + path.relative(dir, secretKeyFile) + '}', '${file:innocent-token}']) {
      fs.writeFileSync(file, doc(ref));
      const res = await runRampart(['apply', '-f', repo, '--dry-run'], operatorEnv());
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(new RegExp(`^rampart: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:7: cannot read .* reads only files under ${fs.realpathSync(repo).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(the directory of the files applied\\)\n$`));
      expect(secretsIn(res.stdout + res.stderr)).toEqual([]);
    }
    expect((await t.app.inject({ url: '/api/output-destinations', headers: admin })).json().map((d: { name: string }) => d.name)).toEqual(['soc-teams']);
  }, 120_000);

  it('a dry-run shows a changed secret as "(secret: will change)", never its value', async () => {
    const newSig = 'AnotherSecretSig9876543210zyx';
    const res = await runRampart(['apply', '-f', out, '--dry-run'], operatorEnv({ RAMPART_OUTPUTDESTINATION_SOC_TEAMS_CONFIG_URL: TEAMS_URL.replace(SIG, newSig), RAMPART_MODEL_TRIAGE_PROVIDER_APIKEY: 'sk-new-provider-key-43' }));
    expect(res.stderr).toBe('');
    expect(res.code).toBe(2);
    expect(res.stdout).toBe(
      '~ update Model/triage\n    provider.apiKey: (secret: will change)\n~ update OutputDestination/soc-teams\n    config.url: (secret: will change)\nPlan: 0 to create, 2 to update, 0 to delete.\n',
    );
  }, 120_000);
});

const teamsDoc = (u: string) => ({ apiVersion: 'rampart/v1', kind: 'OutputDestination', metadata: { name: 'soc-teams' }, spec: { type: 'teams', config: { url: u } } });
const modelDoc = (apiKey: string) => ({ apiVersion: 'rampart/v1', kind: 'Model', metadata: { name: 'triage' }, spec: { modelId: 'gpt-4o-mini', provider: { name: 'openai', type: 'openai', baseUrl: 'https://api.openai.example/v1', apiKey } } });
const plan = (headers: Record<string, string>, documents: unknown[]) => t.app.inject({ method: 'POST', url: '/api/config/plan', headers, payload: { documents } });

describe('issue 41 item 2: an Analyst reads no credential-bearing URL through export or plan', () => {
  it('the Analyst\'s export carries the Teams URL as a placeholder, as its GET shows it redacted', async () => {
    const listed = (await t.app.inject({ url: '/api/output-destinations', headers: analyst })).json();
    expect(listed[0].config.url).toContain('sig=REDACTED');
    for (const headers of [analyst, admin]) {
      const res = await t.app.inject({ url: '/api/config/export', headers });
      expect(res.statusCode).toBe(200);
      expect(secretsIn(res.body)).toEqual([]);
      expect(res.body).toContain('url: ${env:RAMPART_OUTPUTDESTINATION_SOC_TEAMS_CONFIG_URL}');
      expect(res.body).toContain('apiKey: ${env:RAMPART_MODEL_TRIAGE_PROVIDER_APIKEY}');
    }
  });

  it('the Analyst\'s plan shows the stored URL redacted and never compares its signature', async () => {
    const moved = await plan(analyst, [teamsDoc('https://attacker.example/x?sig=guess')]);
    expect(moved.statusCode, moved.body).toBe(200);
    expect(secretsIn(moved.body)).toEqual([]);
    expect(moved.json().changes).toEqual([
      { action: 'update', kind: 'OutputDestination', name: 'soc-teams', diff: { 'config.url': { from: TEAMS_URL.replace(SIG, 'REDACTED').replace('sv=1.0', 'sv=REDACTED'), to: 'https://attacker.example/x?sig=REDACTED' } } },
    ]);
    // The right signature and a wrong one plan alike: not compared.
    const right = await plan(analyst, [teamsDoc(TEAMS_URL)]);
    const wrong = await plan(analyst, [teamsDoc(TEAMS_URL.replace(SIG, 'wrong-guess'))]);
    expect(right.json()).toEqual({ changes: [], notCompared: [{ kind: 'OutputDestination', name: 'soc-teams', fields: ['config.url'], permission: 'destination.manage' }] });
    expect(wrong.json()).toEqual(right.json());
  });
});

describe('issue 41 item 7: the plan is no oracle for write-only secrets', () => {
  it('an Analyst\'s right and wrong guesses of a provider\'s API key answer the same "not compared"', async () => {
    const right = await plan(analyst, [modelDoc(PROVIDER_KEY)]);
    const wrong = await plan(analyst, [modelDoc('sk-wrong-guess')]);
    expect(right.statusCode).toBe(200);
    expect(right.json()).toEqual({ changes: [], notCompared: [{ kind: 'Model', name: 'triage', fields: ['provider.apiKey'], permission: 'agent.manage' }] });
    expect(wrong.json()).toEqual(right.json());
  });

  it('with agent.manage the key is compared, and shown only as "(secret: will change)"', async () => {
    expect((await plan(admin, [modelDoc(PROVIDER_KEY)])).json()).toEqual({ changes: [], notCompared: [] });
    const wrong = (await plan(admin, [modelDoc('sk-wrong-guess')])).json();
    expect(wrong.changes).toEqual([{ action: 'update', kind: 'Model', name: 'triage', diff: { 'provider.apiKey': { from: '(secret)', to: '(secret: will change)' } } }]);
  });
});

describe('issue 41 item 9: export refuses a role without permissions like plan does', () => {
  it('answers 403 with missingPerms, not 500', async () => {
    const nobody = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
    const res = await t.app.inject({ url: '/api/config/export', headers: bearer(nobody.key) });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['agent.read', 'tool.read', 'destination.read', 'alert.read'] });
    // The low-privilege user lacks the other kinds' read permissions.
    expect((await t.app.inject({ url: '/api/config/export', headers: bearer(low.key) })).json()).toEqual({ error: 'Missing required permissions', missingPerms: ['tool.read', 'destination.read', 'alert.read'] });
  });
});

describe('issue 41 item 10: a YAML alias bomb', () => {
  it('stops apply with file:line and a one-line reason, exit 1, no stack', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [i, n] of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].entries()) {
      const prev = String.fromCharCode('a'.charCodeAt(0) + i);
      levels.push(`${n}: &${n} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const file = path.join(dir, 'bomb.yaml');
    fs.writeFileSync(file, `apiVersion: rampart/v1\nkind: Agent\nmetadata: { name: bomb }\nspec:\n  ${levels.join('\n  ')}\n`);
    const res = await runRampart(['apply', '-f', file, '--dry-run'], operatorEnv());
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(`rampart: ${file}:1: too many alias expansions (*name) for one document; write the values out\n`);
  }, 60_000);
});
