import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';

/**
 * docs/security.md#who-reads-alert-content: every answer that can carry an alert's content (its
 * title, description, payload, timeline) needs `alert.read`, whatever else the operation needs.
 * The first test walks every operation of the OpenAPI document and decides from its 2xx schemas
 * alone whether it can carry alert content, so a new surface that answers alert content without
 * `alert.read` in its route's `config.permissions` fails here. The second is the attack of
 * issue 41 item 6: a dataset of cases made from alerts, read by a role without `alert.read`.
 */
let t: TestContext;
let admin: Record<string, string>;

/**
 * Components that are, or hold, alert content: the alert DTO and its timeline, and the
 * evaluation shapes that copy it (a dataset's cases hold their alert; an evaluation's results
 * hold each case's alert title). Reviewed by hand; the property rules below catch new shapes.
 */
const ALERT_COMPONENTS = new Set(['Alert', 'AlertTimelineEntry', 'EvaluationDataset', 'Evaluation']);
/** Properties that hold an alert when their schema is an object (not an id or a flag). */
const ALERT_PROPERTIES = /^(alert|alerts|latestAlert|activeHuntAlert|sourceAlert)$/;
/** Operations whose inline answer carries alert text no structural rule can see (reviewed). */
const INLINE_ALERT_TEXT = new Map([['compareEvaluations', 'changed[].title is the case\'s alert title']]);
/**
 * Operations that carry alert content only to callers holding `alert.read`, the service leaving
 * the alert fields empty for others (each proven through HTTP by the test named).
 */
const FILTERED_IN_SERVICE = new Map([
  ['getThreat', 'test/hunt/hunt-threats.test.ts'],
  ['dismissThreat', 'test/hunt/hunt-threats.test.ts'],
  ['restoreThreat', 'test/hunt/hunt-threats.test.ts'],
  ['reassessThreat', 'test/hunt/hunt-threats.test.ts'],
]);

/** Operations whose answer is only what the caller just wrote (reviewed: docs/security.md says why). */
const ECHOES_ITS_INPUT = new Map([['createAlertComment', 'answers the comment just written, no other timeline entry: alert.triage only']]);

type Schema = Record<string, unknown>;
type Operation = { operationId?: string; responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> };
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Why `schema` can carry alert content (the first reason found), or null. */
function alertContentIn(doc: Document, schema: unknown, seen = new Set<string>()): string | null {
  if (!schema || typeof schema !== 'object') return null;
  if (Array.isArray(schema)) {
    for (const s of schema) {
      const why = alertContentIn(doc, s, seen);
      if (why) return why;
    }
    return null;
  }
  const s = schema as Schema;
  if (typeof s.$ref === 'string') {
    const name = s.$ref.split('/').pop()!;
    if (ALERT_COMPONENTS.has(name)) return `component ${name}`;
    if (seen.has(name)) return null;
    seen.add(name);
    return alertContentIn(doc, doc.components.schemas[name], seen);
  }
  const props = (s.properties ?? {}) as Record<string, Schema>;
  if ('payload' in props && 'timeline' in props) return 'an object with payload and timeline';
  for (const [name, prop] of Object.entries(props)) {
    if (ALERT_PROPERTIES.test(name) && !isScalar(prop)) return `property ${name}`;
  }
  for (const [key, value] of Object.entries(s)) {
    if (key === 'description' || key === 'examples' || key === 'example') continue;
    const why = alertContentIn(doc, value, seen);
    if (why) return why;
  }
  return null;
}

/** An id, a count, a flag or a null: no content. */
function isScalar(prop: Schema): boolean {
  const types = [prop.type, ...((prop.anyOf ?? prop.oneOf ?? []) as Schema[]).map((p) => p.type)].flat().filter(Boolean);
  return types.length > 0 && types.every((type) => ['string', 'integer', 'number', 'boolean', 'null'].includes(type as string));
}

beforeAll(async () => {
  t = await createTestApp();
  admin = bearer(t.orgA.apiKey.key);
}, 60_000);
afterAll(async () => t?.close());

describe('every answer carrying alert content needs alert.read', () => {
  it('finds the alert-bearing operations structurally and each route requires alert.read', async () => {
    const doc = (await t.app.inject({ url: '/api/docs/openapi.json' })).json() as Document;
    const routes = new Map(t.app.registeredRoutes.map((r) => [`${r.method} ${r.url.replace(/:([A-Za-z]+)/g, '{$1}')}`, r]));
    const bearing: string[] = [];
    const unguarded: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        const schemas = Object.entries(op.responses ?? {})
          .filter(([status]) => status.startsWith('2'))
          .flatMap(([, r]) => Object.values(r.content ?? {}).map((c) => c.schema));
        const why = alertContentIn(doc, schemas) ?? (op.operationId && INLINE_ALERT_TEXT.has(op.operationId) ? INLINE_ALERT_TEXT.get(op.operationId)! : null);
        if (!why) continue;
        const where = `${method.toUpperCase()} ${path}`;
        bearing.push(op.operationId ?? where);
        if (op.operationId && (FILTERED_IN_SERVICE.has(op.operationId) || ECHOES_ITS_INPUT.has(op.operationId))) continue;
        const route = routes.get(where);
        expect(route, `${where} is a registered route`).toBeTruthy();
        if (!route!.permissions.includes('alert.read')) unguarded.push(`${where} (${op.operationId}): ${why}, permissions [${route!.permissions.join(', ')}]`);
      }
    }
    expect(unguarded, 'operations answering alert content without alert.read').toEqual([]);
    // The walk sees what it must: the alert's own reads and writes, datasets, cases, results.
    expect(bearing).toEqual(expect.arrayContaining([
      'listAlerts', 'getAlert', 'createAlert', 'updateAlert', 'setAlertStatus', 'assignAlert', 'listAlertTimeline', 'getAgentRunAlert', 'reportCodeDetectionHit',
      'getEvaluationDataset', 'createEvaluationDataset', 'replaceEvaluationDataset',
      'getEvaluation', 'createEvaluation', 'cancelEvaluation', 'compareEvaluations', 'getThreat',
    ]));
    // And only those: no false alarm on answers naming an alert by id or counting alerts.
    for (const id of ['bulkSetAlertStatus', 'listThreats', 'listEvaluationDatasets', 'listAgentEvaluations', 'getHuntAlertSettings', 'listAgentRuns']) expect(bearing).not.toContain(id);
    for (const id of [...FILTERED_IN_SERVICE.keys(), ...ECHOES_ITS_INPUT.keys()]) expect(bearing, `${id} is still alert-bearing (else drop it from the reviewed list)`).toContain(id);
  });
});

describe('evaluation datasets made from alerts (issue 41 item 6)', () => {
  let datasetId = '';
  let evaluationReader: Record<string, string>;
  let bothReader: Record<string, string>;

  beforeAll(async () => {
    const alert = await t.app.inject({
      method: 'POST',
      url: '/api/alerts',
      headers: admin,
      payload: { title: 'Impossible travel for alice', description: 'Sign-ins from two countries', severity: 'high', payload: { user_name: 'alice', src_ip: '198.51.100.7' } },
    });
    expect(alert.statusCode).toBe(200);
    const { id: alertId } = alert.json().alert;
    const closed = await t.app.inject({ method: 'POST', url: `/api/alerts/${alertId}/status`, headers: admin, payload: { status: 'closed_true_positive', reason: 'confirmed with alice' } });
    expect(closed.statusCode).toBe(200);
    const created = await t.app.inject({ method: 'POST', url: '/api/evaluation-datasets', headers: admin, payload: { name: 'From real alerts' } });
    datasetId = created.json().id;
    const added = await t.app.inject({ method: 'POST', url: `/api/evaluation-datasets/${datasetId}/cases/from-alerts`, headers: admin, payload: { alertIds: [alertId] } });
    expect(added.json()).toMatchObject({ added: 1 });
    evaluationReader = bearer((await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read', 'agent.manage', 'agent.execute'])).key);
    bothReader = bearer((await userWithPermissions(t.database.db, t.orgA.organization.id, ['agent.read', 'alert.read'])).key);
  });

  it('refuses the dataset to a role without alert.read, naming it', async () => {
    const denied = await t.app.inject({ url: `/api/evaluation-datasets/${datasetId}`, headers: evaluationReader });
    expect([denied.statusCode, denied.json()]).toEqual([403, { error: 'Missing required permissions', missingPerms: ['alert.read'] }]);
    expect(denied.body).not.toContain('Impossible travel');
    // A write answering the cases refuses too: it must not show what the GET refuses.
    const replaced = await t.app.inject({ method: 'PUT', url: `/api/evaluation-datasets/${datasetId}`, headers: evaluationReader, payload: { name: 'Renamed', cases: [] } });
    expect([replaced.statusCode, replaced.json()]).toEqual([403, { error: 'Missing required permissions', missingPerms: ['alert.read'] }]);
    const unchanged = await t.app.inject({ url: `/api/evaluation-datasets/${datasetId}`, headers: admin });
    expect(unchanged.json()).toMatchObject({ name: 'From real alerts', caseCount: 1 });
    // The list answers names and counts only: agent.read is enough.
    const list = await t.app.inject({ url: '/api/evaluation-datasets', headers: evaluationReader });
    expect(list.statusCode).toBe(200);
    expect(list.json().datasets.map((d: { id: string }) => d.id)).toContain(datasetId);
    expect(list.body).not.toContain('Impossible travel');
  });

  it('serves it to a role holding both agent.read and alert.read', async () => {
    const read = await t.app.inject({ url: `/api/evaluation-datasets/${datasetId}`, headers: bothReader });
    expect(read.statusCode).toBe(200);
    expect(read.json().cases).toEqual([
      expect.objectContaining({ alert: expect.objectContaining({ title: 'Impossible travel for alice', payload: { user_name: 'alice', src_ip: '198.51.100.7' } }), expected: { disposition: 'escalate' } }),
    ]);
  });
});
