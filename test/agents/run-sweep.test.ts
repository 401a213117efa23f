import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepAbandonedRuns } from '../../src/modules/runs/index.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { createAgent } from '../support/agents.js';

/**
 * The run sweep (issue 35): every run ends, whatever happened to its job. The job states are
 * the ones graphile-worker and the dead-worker sweep leave behind (attempts used up; a job gone;
 * a lock held by a worker that stopped long ago); no worker runs here, so nothing else moves.
 */
let t: TestContext;
let key: string;
let agentId: string;

beforeAll(async () => {
  t = await createTestApp();
  key = t.orgA.apiKey.key;
  agentId = await createAgent(t, key, { maxDurationMs: 1000 });
});
afterAll(async () => {
  await t?.close();
});

async function queueRun(): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async`, headers: bearer(key), payload: { input: 'x' } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().runId;
}

const get = async (runId: string) => (await t.app.inject({ url: `/api/agent-runs/${runId}`, headers: bearer(key) })).json();
const setRunning = (runId: string) => t.database.db.updateTable('agentRuns').set({ status: 'running', startedAt: new Date(), attemptCount: 1 }).where('id', '=', runId).execute();

describe('the run sweep', () => {
  it('ends runs no job will finish or far past their limit, and leaves the others alone', async () => {
    const [queued, exhausted, gone, overdue, interrupted, fresh] = [await queueRun(), await queueRun(), await queueRun(), await queueRun(), await queueRun(), await queueRun()];
    // Attempts used up (the last one failed), as graphile-worker leaves a job that failed for good.
    await setRunning(exhausted);
    await sql`UPDATE graphile_worker._private_jobs SET attempts = max_attempts, last_error = 'the worker stopped reporting' WHERE key = ${`agent-run:${exhausted}`}`.execute(t.database.db);
    // The job is gone (finished without ending its run, or permanently failed: its key cleared).
    await setRunning(gone);
    await sql`DELETE FROM graphile_worker._private_jobs WHERE key = ${`agent-run:${gone}`}`.execute(t.database.db);
    // Running, its attempt started (locked) long before its 1 s limit plus the grace; one of them interrupted meanwhile.
    for (const id of [overdue, interrupted]) {
      await setRunning(id);
      await sql`UPDATE graphile_worker._private_jobs SET attempts = 1, locked_at = now() - interval '10 minutes', locked_by = 'pool-gone' WHERE key = ${`agent-run:${id}`}`.execute(t.database.db);
    }
    expect((await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async/${interrupted}/interrupt`, headers: bearer(key) })).statusCode).toBe(200);
    // Running within its limit: its worker is alive.
    await setRunning(fresh);
    await sql`UPDATE graphile_worker._private_jobs SET attempts = 1, locked_at = now(), locked_by = 'pool-alive' WHERE key = ${`agent-run:${fresh}`}`.execute(t.database.db);

    // A grace of a minute, not 10 s: `fresh` must still be within its limit at the second pass
    // below, and on a loaded machine the steps between can take seconds.
    expect(await sweepAbandonedRuns(t.database.db, { graceMs: 60_000 })).toBe(4);

    expect(await get(queued)).toMatchObject({ status: 'waiting', finishedAt: null });
    expect(await get(fresh)).toMatchObject({ status: 'running', finishedAt: null });
    expect(await get(exhausted)).toMatchObject({ status: 'error', statusMessage: 'The run could not finish: its job failed for good (the worker stopped reporting)' });
    expect(await get(gone)).toMatchObject({ status: 'error', statusMessage: 'The run could not finish: its job failed for good (it is gone)' });
    expect(await get(overdue)).toMatchObject({ status: 'error', statusMessage: 'Time limit of 1s exceeded long ago, and the worker running it stopped reporting' });
    const stopped = await get(interrupted);
    expect(stopped).toMatchObject({ status: 'interrupted', statusMessage: 'Interrupted on request (Time limit of 1s exceeded long ago, and the worker running it stopped reporting)' });
    expect(stopped.finishedAt).not.toBeNull();
    // Ended runs answer like any other: interrupting one is a conflict.
    expect((await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/run-async/${gone}/interrupt`, headers: bearer(key) })).statusCode).toBe(409);
    // A second pass finds nothing more.
    expect(await sweepAbandonedRuns(t.database.db, { graceMs: 60_000 })).toBe(0);
  });
});
