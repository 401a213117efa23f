import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app.js';
import fc from 'fast-check';
import { fuzzOpenApi } from '../support/fuzz/run.js';
import { importBody } from '../support/fuzz/imports.js';
import { userWithPermissions } from '../support/actors.js';

/**
 * The whole API under property-based fuzzing (fast-check), from its own OpenAPI document.
 * In `npm test`: a fixed seed and a small time budget. Long mode (`npm run test:fuzz -- --long`
 * or FUZZ_LONG=1): ten minutes and many more runs per operation. FUZZ_SEED replays a run.
 */
const LONG = process.env.FUZZ_LONG === '1';
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? (LONG ? 600_000 : 40_000));
/** Per low-privilege key, over the surfaces of issue 41. */
const LOW_BUDGET_MS = LONG ? 120_000 : 8_000;

describe('API fuzzing over the OpenAPI document', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp({ env: { RAMPART_RATE_LIMIT_PER_MINUTE: '0' } });
  });
  afterAll(() => t?.close());

  it('answers every generated request without 5xx, with documented statuses and bodies, and no internals', async () => {
    process.stdout.write(`api fuzz: seed ${SEED} (replay with FUZZ_SEED=${SEED}), budget ${BUDGET_MS} ms${LONG ? ', long mode' : ''}\n`);
    const { problems, requests, operations } = await fuzzOpenApi({
      app: t.app,
      apiKey: t.orgA.apiKey.key,
      protectedIds: [t.orgA.apiKey.id, t.orgA.user.id, t.orgA.user.roleId, t.orgA.organization.id],
      seed: SEED,
      budgetMs: BUDGET_MS,
      numRunsPerOperation: LONG ? 100_000 : 300,
    });
    process.stdout.write(`api fuzz: ${requests} requests over ${operations} operations, ${problems.length} problems\n`);
    // One example per operation, status and reason: enough to reproduce, short enough to read.
    const distinct = new Map(problems.map((p) => [`${p.operation} ${p.status} ${p.reason}`, p]));
    expect([...distinct.values()]).toEqual([]);
    expect(operations).toBeGreaterThan(60);
  }, BUDGET_MS + 120_000);

  // The surfaces of agents as code, evaluations, coverage and the hunt's sources, as a low-privilege
  // user sees them (issue 41): refusals and partial views must be answers too, never a 5xx.
  it('answers the config, evaluation, coverage and hunt-source operations to low-privilege keys without 5xx', async () => {
    const surfaces = /^\/(api\/(config|evaluation|agents\/\{agentId\}\/evaluations|coverage|hunt|threats)|sources)/;
    const attacker = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.create', 'agent.read']);
    // The system Analyst role: every read, no manage.
    const admin = { authorization: `Bearer ${t.orgA.apiKey.key}` };
    const roleId = ((await t.app.inject({ url: '/api/roles', headers: admin })).json().roles as Array<{ id: string; name: string }>).find((r) => r.name === 'Analyst')!.id;
    const userId = (await t.app.inject({ method: 'POST', url: '/api/users', headers: admin, payload: { email: 'fuzz.analyst@a.test', roleId } })).json().id as string;
    const created = (await t.app.inject({ method: 'POST', url: '/api/api-keys', headers: admin, payload: { name: 'fuzz analyst', userId } })).json();
    const analyst = { userId, roleId, keyId: created.id as string, key: created.key as string };
    const all: unknown[] = [];
    for (const user of [attacker, analyst]) {
      const { problems, operations } = await fuzzOpenApi({
        app: t.app,
        apiKey: user.key,
        protectedIds: [user.keyId, user.userId, user.roleId, t.orgA.apiKey.id, t.orgA.user.id, t.orgA.user.roleId, t.orgA.organization.id],
        seed: SEED,
        budgetMs: LOW_BUDGET_MS,
        numRunsPerOperation: LONG ? 20_000 : 100,
        only: (p) => surfaces.test(p),
      });
      expect(operations).toBeGreaterThan(15);
      all.push(...new Map(problems.map((p) => [`${p.operation} ${p.status} ${p.reason}`, p])).values());
    }
    expect(all).toEqual([]);
  }, 2 * LOW_BUDGET_MS + 120_000);

  it('answers every structurally generated import (CycloneDX trees, osquery rows, CSV) with 200, 400 or 413, never 5xx', async () => {
    const problems: string[] = [];
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(importBody, async (body) => {
        const res = await t.app.inject({ method: 'POST', url: '/api/assets/import', headers: { authorization: `Bearer ${t.orgA.apiKey.key}` }, payload: body });
        requests++;
        const json = res.json();
        const ok =
          (res.statusCode === 200 && Number.isInteger(json.created) && Array.isArray(json.errors)) ||
          (res.statusCode === 400 && json.error === 'Validation failed') ||
          (res.statusCode === 413 && typeof json.error === 'string');
        if (!ok) problems.push(`${res.statusCode} ${res.body.slice(0, 200)} ← ${JSON.stringify(body).slice(0, 300)}`);
        return true;
      }),
      { seed: SEED, numRuns: LONG ? 20_000 : 400, interruptAfterTimeLimit: LONG ? 300_000 : 20_000, markInterruptAsFailure: false },
    );
    process.stdout.write(`import fuzz: ${requests} requests, ${problems.length} problems\n`);
    expect(problems.slice(0, 5)).toEqual([]);
    expect(requests).toBeGreaterThan(50);
  }, 120_000);
});
