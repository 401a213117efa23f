import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { configureModel, createAgent, waitForRun } from '../support/agents.js';
import { userWithPermissions } from '../support/actors.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';
import { until } from '../support/until.js';

/**
 * An imported Sigma correlation end to end (issue 44): a multi-document file (an `event_count`
 * correlation and its base rule, SigmaHQ's shape) through `POST /api/code-detections/import`,
 * events as Fluent Bit's `http` output sends them (`format json_lines`, gzip) to an `events`
 * trigger, matched by the service's own job catalog in a real worker, the alert routed to a
 * triage agent on an OpenAI-compatible model server; the same detection as a SIEM query.
 * (test/detect/detect-events.test.ts covers single rules and a correlation created by hand.)
 */
let t: TestContext;
let key: string;
let openai: FakeOpenAI;
let worker: WorkerRunner;
let agentId: string;

// SigmaHQ's correlation layout: the base rule first, the correlation naming it by `name`.
const SPRAYING = `title: Failed Logon From Any Source
id: 4a1b8f57-0d7e-4c3f-9c1f-3b6f0a7d2e11
name: failed_logon_4625
status: test
description: An account failed to log on (Windows Security 4625)
author: Rampart tests
date: 2026-11-29
tags:
    - attack.credential-access
    - attack.t1110.003
logsource:
    product: windows
    service: security
detection:
    selection:
        EventID: 4625
        LogonType:
            - 3
            - 10
    condition: selection
level: low
---
title: Password Spraying Burst Against One Account
id: 9d2c4e61-5b8a-4f0e-a7c3-2e1d0f9b8a77
status: test
description: Five failed network or RDP logons for one user within five minutes
author: Rampart tests
date: 2026-11-29
correlation:
    type: event_count
    rules:
        - failed_logon_4625
    group-by:
        - User
    timespan: 5m
    condition:
        gte: 5
level: high
`;

/**
 * Fluent Bit's `http` output with `format json_lines`: one record per line, its time under
 * `json_date_key` (`date`, a float of epoch seconds by default) beside the record's own keys.
 */
function fluentBitLine(record: Record<string, unknown>, epochSeconds: number): string {
  return JSON.stringify({ date: epochSeconds, ...record });
}
const BASE = Date.parse('2026-11-29T10:00:00Z') / 1000;
const failure = (user: string, offsetSeconds: number, logonType = 3) =>
  fluentBitLine({ EventID: 4625, Channel: 'Security', Computer: 'DC01.corp.example', User: user, LogonType: logonType, IpAddress: '198.51.100.23', Status: '0xc000006d' }, BASE + offsetSeconds + 0.125);

async function settled(): Promise<void> {
  // 15 s (what 300 tries 50 ms apart gave) bounds a hang.
  await until('every event batch to be matched', async () => (await t.database.db.selectFrom('detectEventBatches').select('id').limit(1).execute()).length === 0, { timeoutMs: 15_000, everyMs: 50 });
}

async function alertsOf(codeDetectionId: string) {
  const res = await t.app.inject({ url: '/api/alerts?limit=100', headers: bearer(key) });
  return (res.json().alerts as Array<{ id: string; codeDetectionId: string | null }>).filter((a) => a.codeDetectionId === codeDetectionId);
}

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
  key = t.orgA.apiKey.key;
  openai = await startFakeOpenAI();
  openai.setScript(() => ({ text: 'Five failures for one account from one address: likely spraying.' }));
  await configureModel(t, key, { name: 'fake', type: 'openai-compatible', baseUrl: openai.url, alias: 'default', modelId: 'local-model' });
  agentId = await createAgent(t, key, { name: 'Identity triage', toolNames: [] });
  const routes = await t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers: bearer(key), payload: { routes: [], defaultResponseAgentId: agentId } });
  expect(routes.statusCode, routes.body).toBe(200);
  worker = await startServiceWorker(t);
});
afterAll(async () => {
  await worker?.stop();
  await openai?.close();
  await t?.close();
});

describe('an imported correlation, from a log shipper to a triaged alert', () => {
  let detectionId: string;
  let post: (lines: string[]) => Promise<void>;

  it('imports the correlation and its base rule as one detection', async () => {
    const imported = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: bearer(key), payload: { format: 'sigma', content: SPRAYING } });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json().created).toHaveLength(1);
    detectionId = imported.json().created[0].id;
    const detection = (await t.app.inject({ url: `/api/code-detections/${detectionId}`, headers: bearer(key) })).json();
    expect(detection).toMatchObject({ name: 'Password Spraying Burst Against One Account', severity: 'high', attackTechniques: ['T1110.003'], attackTactics: ['credential-access'] });

    const fields = (await t.app.inject({ url: `/api/agents/${agentId}/trigger/events/fields`, headers: bearer(key) })).json().data;
    const triggerId = fields.webhookUrl.split('/').pop();
    const saved = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agentId}/trigger/save`,
      headers: bearer(key),
      payload: { source: 'events', triggerId, name: 'Fluent Bit: domain controllers', additionalFields: { logsource: { product: 'windows', service: 'security' } } },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    // Fluent Bit: `compress gzip`, `header Authorization Bearer <secret>`, `format json_lines`.
    post = async (lines) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/trigger/events/${triggerId}`,
        headers: { authorization: `Bearer ${fields.secret}`, 'content-type': 'application/json', 'content-encoding': 'gzip', 'user-agent': 'Fluent-Bit' },
        payload: gzipSync(`${lines.join('\n')}\n`),
      });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json()).toEqual({ accepted: lines.length });
      await settled();
    };
  });

  it('four failures in the window raise nothing; neither does the base rule alone', async () => {
    // carol: 4 matching failures within 5 minutes, a fifth outside the window, an interactive
    // logon (type 2) the base rule leaves out.
    await post([failure('carol', 0), failure('carol', 60), failure('carol', 120), failure('carol', 180, 2)]);
    await post([failure('carol', 240), failure('carol', 600)]);
    expect(await alertsOf(detectionId)).toEqual([]);
  });

  it('five failures for one user within five minutes raise one alert, routed to the triage agent', async () => {
    await post([failure('dave', 0), failure('dave', 30, 10), failure('erin', 31)]);
    await post([failure('dave', 60), failure('dave', 90), failure('dave', 120), failure('dave', 150)]);
    const alerts = await alertsOf(detectionId);
    expect(alerts).toHaveLength(1);
    const alert = (await t.app.inject({ url: `/api/alerts/${alerts[0]!.id}`, headers: bearer(key) })).json().alert;
    expect(alert).toMatchObject({
      title: 'Password Spraying Burst Against One Account',
      severity: 'high',
      createdBy: 'detection',
      codeDetectionId: detectionId,
      assignedAgentId: agentId,
      routing: { outcome: 'default' },
    });
    expect(alert.payload).toMatchObject({
      kind: 'sigma_correlation',
      correlation: { type: 'event_count', groupBy: ['User'], timespanSeconds: 300, rules: ['Failed Logon From Any Source'] },
      group: { User: 'dave' },
      firstSeen: '2026-11-29T10:00:00.125Z',
      lastSeen: '2026-11-29T10:02:00.125Z',
      matchedEvents: 5,
      attack: { techniques: ['T1110.003'], tactics: ['credential-access'] },
    });
    expect(alert.payload.events.map((e: { User: string; date: number }) => [e.User, e.date - BASE])).toEqual([
      ['dave', 0.125],
      ['dave', 30.125],
      ['dave', 60.125],
      ['dave', 90.125],
      ['dave', 120.125],
    ]);
    // The triage agent's run starts on the alert and is given the matched events.
    expect(alert.triageRunId).toEqual(expect.any(String));
    expect(await waitForRun(t, key, agentId, alert.triageRunId)).toEqual({ status: 'done' });
    expect(JSON.stringify(openai.requests.at(-1)!.body.messages)).toContain('DC01.corp.example');
    // dave's sixth failure starts a new window: no second alert.
    await post([failure('dave', 150)]);
    expect(await alertsOf(detectionId)).toHaveLength(1);
  });

  it('answers the correlation as a Splunk and an ES|QL query; Lucene and Kusto answer 422 naming it', async () => {
    const get = (target: string, headers = bearer(key)) => t.app.inject({ url: `/api/code-detections/${detectionId}/query?target=${target}`, headers });
    const splunk = await get('splunk');
    expect(splunk.statusCode, splunk.body).toBe(200);
    expect(splunk.json()).toEqual({
      target: 'splunk',
      pipeline: null,
      queries: ['EventID=4625 LogonType IN ("3", "10")\n\n| bin _time span=5m\n| stats count as event_count by _time User\n\n| search event_count >= 5'],
    });
    const esql = await get('esql');
    expect(esql.json().queries).toEqual([
      'from * metadata _id, _index, _version | where EventID==4625 and (LogonType in ("3", "10"))\n| eval timebucket=date_trunc(5minutes, @timestamp) | stats event_count=count() by timebucket, User\n| where event_count >= 5',
    ]);
    for (const target of ['elasticsearch-lucene', 'kusto']) {
      const refused = await get(target);
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toEqual({ error: expect.stringMatching(new RegExp(`^${target} cannot express correlation: `)), construct: 'correlation' });
    }
    const piped = await t.app.inject({ url: `/api/code-detections/${detectionId}/query?target=esql&pipeline=ecs_windows`, headers: bearer(key) });
    expect(piped.statusCode).toBe(422);
    expect(piped.json()).toEqual({ error: expect.any(String), construct: 'correlation with pipeline ecs_windows' });

    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, []);
    const denied = await get('splunk', bearer(reader.key));
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: expect.any(String), missingPerms: ['alert.read'] });
    const foreign = await get('splunk', bearer(t.orgB.apiKey.key));
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: 'Code detection not found' });
    const bad = await get('sql');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'Validation failed' });
  });
});
