import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';

/** Issue 19 item 3: whoever changes a trigger or its agent owns its runs' permissions. */
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('no confused deputy through triggers', () => {
  it("a trigger's runs act as whoever last changed the trigger or its agent", async () => {
    const admin = bearer(t.orgA.apiKey.key);
    const agent = (await t.app.inject({ method: 'POST', url: '/api/agents', headers: admin, payload: { name: 'Checker', systemPrompt: 'x', toolNames: ['record_indicator_check'] } })).json().id;
    const { secret, webhookUrl } = (await t.app.inject({ url: `/api/agents/${agent}/trigger/webhook/fields`, headers: admin })).json().data;
    const id = webhookUrl.split('/').pop();
    await t.app.inject({ method: 'POST', url: `/api/agents/${agent}/trigger/save`, headers: admin, payload: { triggerId: id, source: 'webhook', createAlert: false } });
    const fire = async (s: string) => {
      const res = await t.app.inject({ method: 'POST', url: `/api/trigger/webhook/${id}`, headers: { 'content-type': 'application/json', 'x-rampart-secret': s }, payload: '{}' });
      expect(res.statusCode, res.body).toBe(200);
      return (await t.database.db.selectFrom('agentRuns').select('actorUserId').where('id', '=', res.json().executionId).executeTakeFirstOrThrow()).actorUserId;
    };
    expect(await fire(secret)).toBe(t.orgA.user.id);

    // An agent manager without intel.manage rotates the secret: the runs are now theirs, not the admin's.
    const deputy = await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read', 'agent.manage']);
    const rotated = await t.app.inject({ method: 'POST', url: `/api/agents/${agent}/trigger/${id}/rotate-secret`, headers: bearer(deputy.key) });
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(await fire(rotated.json().secret)).toBe(deputy.userId);

    // The admin changes the agent afterwards: the admin's again.
    await t.app.inject({ method: 'PUT', url: `/api/agents/${agent}`, headers: admin, payload: { name: 'Checker', systemPrompt: 'y', toolNames: ['record_indicator_check'] } });
    expect(await fire(rotated.json().secret)).toBe(t.orgA.user.id);
  });
});
