import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { catalogFromJson } from '../../src/modules/intel/attack/attack-catalog.fns.js';

/**
 * GET /api/coverage/attack on a seeded intel set whose techniques are known, against detections
 * imported from real SigmaHQ rules plus a few registered by hand; Navigator layers validated field
 * by field against the layer format 4.5 and round-tripped.
 */
const sigma = (name: string) => fs.readFileSync(new URL(`../fixtures/sigma/${name}`, import.meta.url), 'utf8');
const catalog = catalogFromJson(JSON.parse(fs.readFileSync(new URL('../../src/modules/intel/attack/attack-data/enterprise-attack.json', import.meta.url), 'utf8')));

let t: TestContext;
let admin: Record<string, string>;
const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY);
const ids: Record<string, string> = {};

async function seedItems(organizationId: string) {
  const sourceId = uuidv7();
  const now = new Date();
  await t.database.db.insertInto('intelSources').values({ id: sourceId, organizationId, builtinKey: null, name: 'seeded', displayName: 'Seeded', kind: 'rss', apiType: null, feedUrl: 'https://seed.example/feed', serverUrl: null, collectionId: null, authType: null, username: null, apiKeyCiphertext: null, scheduleCron: '0 * * * *', maxEntries: 100, createdBy: null, createdAt: now, updatedAt: now }).execute();
  const item = async (key: string, o: { days: number; attack: Array<{ technique: string; subTechnique?: string }>; actors?: string[]; malware?: string[]; status?: string; duplicateOf?: string; published?: boolean }) => {
    const id = uuidv7();
    ids[key] = id;
    await t.database.db.insertInto('intelItems').values({
      id, organizationId, sourceId, externalId: key, title: `Report ${key}`, url: `https://seed.example/${key}`, publisher: 'Seed', publishedAt: o.published === false ? null : daysAgo(o.days),
      language: 'en', contentText: 'text', contentHtml: null, structuredIndicators: '[]', referenceUrls: '[]', tags: [], raw: null, contentHash: randomUUID(),
      createdAt: o.published === false ? daysAgo(o.days) : now, updatedAt: now, processedAt: now, status: o.status ?? 'processed', duplicateOf: o.duplicateOf ?? null,
      classification: JSON.stringify({
        attack: o.attack.map((a) => ({ technique: a.technique, subTechnique: a.subTechnique ?? '', techniqueName: '', confidence: 0.9 })),
        actor: (o.actors ?? []).map((name) => ({ name, confidence: 0.9 })),
        malware: (o.malware ?? []).map((name) => ({ name, confidence: 0.9 })),
      }),
    }).execute();
  };
  await item('i1', { days: 10, attack: [{ technique: 'T1059', subTechnique: 'T1059.001' }, { technique: 'T1003', subTechnique: 'T1003.001' }], actors: ['APT28'], malware: ['Mimikatz'] });
  await item('i2', { days: 20, attack: [{ technique: 'T1059' }, { technique: 'T1190' }], actors: ['Lazarus Group'] });
  await item('i3', { days: 30, attack: [{ technique: 'T1566', subTechnique: '001' }], actors: ['apt28'], malware: ['LockBit'] });
  await item('i5', { days: 5, attack: [{ technique: 'T1027' }], malware: ['LockBit'] });
  await item('i8', { days: 3, attack: [{ technique: 'T1486' }], actors: ['Wizard Spider'], malware: ['LockBit'] });
  await item('i9', { days: 40, attack: [{ technique: 'T1486' }], actors: ['FIN7'], malware: ['Conti'], published: false });
  await item('i10', { days: 60, attack: [{ technique: 'T1486' }, { technique: 'T1190' }], actors: ['Wizard Spider'] });
  // Not counted: outside the window, retracted, a duplicate.
  await item('old', { days: 200, attack: [{ technique: 'T1486' }, { technique: 'T1110' }], actors: ['APT29'] });
  await item('retracted', { days: 2, attack: [{ technique: 'T1110' }], status: 'retracted' });
  await item('dup', { days: 2, attack: [{ technique: 'T1110' }], duplicateOf: ids.i1 });
}

beforeAll(async () => {
  t = await createTestApp({ env: { RAMPART_BASE_URL: 'https://rampart.example' } });
  admin = bearer(t.orgA.apiKey.key);
  await seedItems(t.orgA.organization.id);
  const rules = ['proc_creation_win_powershell_base64_encoded_cmd.yml', 'proc_creation_win_hktl_mimikatz_command_line.yml', 'proc_creation_win_certutil_decode.yml', 'proc_creation_win_mshta_susp_execution.yml', 'proc_creation_lnx_base64_decode.yml'];
  const imported = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: admin, payload: { format: 'sigma', content: rules.map(sigma).join('\n---\n') } });
  expect(imported.json().created).toHaveLength(5);
  for (const d of [
    { name: 'Phishing attachment (lab)', attackTechniques: ['T1566.001'], status: 'experimental' },
    { name: 'Old exploit rule', attackTechniques: ['T1190'], status: 'deprecated' },
  ]) expect((await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: admin, payload: d })).statusCode).toBe(200);
});
afterAll(() => t.close());

const get = (url: string, headers = admin) => t.app.inject({ url, headers });
type Tech = { techniqueId: string; state: string; detections: Record<string, number>; intel: { items: number; actors: number; malware: number; lastSeenAt: string | null }; external: unknown[] };

describe('ATT&CK coverage', () => {
  it('computes each technique’s state, counts and per-tactic totals exactly', async () => {
    const res = await get('/api/coverage/attack?window=90d');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const by = new Map<string, Tech>(body.techniques.map((x: Tech) => [x.techniqueId, x]));
    expect(Object.fromEntries([...by].map(([id, x]) => [id, x.state]))).toEqual({
      T1059: 'covered', T1003: 'covered', T1027: 'covered', T1566: 'covered_experimental_only',
      T1190: 'gap', T1486: 'gap', T1140: 'unused', T1218: 'unused',
    });
    expect(by.get('T1059')).toEqual({
      techniqueId: 'T1059', name: 'Command and Scripting Interpreter', tactics: ['execution'], inCatalog: true, state: 'covered',
      detections: { total: 2, stable: 0, test: 2, experimental: 0, deprecated: 0 },
      intel: { items: 2, actors: 2, malware: 1, lastSeenAt: daysAgoIso(body, 'i1') },
      external: [],
      evidence: 'paper',
      matches: { detections: 0, events: 0, lastMatchedAt: null },
    });
    // Mimikatz names five sub-techniques of T1003: one detection for the parent.
    expect(by.get('T1003')!.detections).toEqual({ total: 1, stable: 0, test: 1, experimental: 0, deprecated: 0 });
    expect(by.get('T1566')!.detections).toEqual({ total: 1, stable: 0, test: 0, experimental: 1, deprecated: 0 });
    // The deprecated rule does not cover T1190.
    expect(by.get('T1190')).toMatchObject({ detections: { total: 1, deprecated: 1 }, intel: { items: 2, actors: 2, malware: 0 } });
    // An item without a publication date counts from when it was stored.
    expect(by.get('T1486')!.intel).toMatchObject({ items: 3, actors: 2, malware: 2 });
    expect(by.get('T1140')!.intel).toEqual({ items: 0, actors: 0, malware: 0, lastSeenAt: null });
    expect(by.has('T1110')).toBe(false);
    // No events matched: every technique a live detection covers is covered on paper only.
    expect(body.summary).toEqual({ covered: 3, coveredExperimentalOnly: 1, gap: 2, unused: 2, matched: 0, onPaper: 6 });
    // Intel names techniques: there is something to compare with (docs/coverage.md#no-intel-to-compare-with).
    expect(body.intelStatus).toMatchObject({ comparable: true, reason: null, message: null, techniques: 6 });

    const tactics = new Map<string, Record<string, unknown>>(body.tactics.map((x: { tactic: string }) => [x.tactic, x]));
    const inCatalog = (tactic: string) => [...catalog.techniques.values()].filter((x) => !x.id.includes('.') && x.tactics.includes(tactic)).length;
    expect(tactics.get('initial-access')).toEqual({ tactic: 'initial-access', name: 'Initial Access', techniques: inCatalog('initial-access'), covered: 0, coveredExperimentalOnly: 1, gap: 1, unused: 0 });
    expect(tactics.get('defense-evasion')).toMatchObject({ covered: 1, gap: 0, unused: 2 });
    expect(tactics.get('impact')).toMatchObject({ gap: 1 });
    expect(body.tactics.map((x: { tactic: string }) => x.tactic).slice(0, 4)).toEqual(['reconnaissance', 'resource-development', 'initial-access', 'execution']);

    // Top gaps: most items first, with the actors, malware and items behind each.
    expect(body.topGaps.map((g: Tech) => g.techniqueId)).toEqual(['T1486', 'T1190']);
    expect(body.topGaps[0]).toMatchObject({
      actors: [{ name: 'Wizard Spider', items: 2 }, { name: 'FIN7', items: 1 }],
      malware: [{ name: 'LockBit', items: 1 }, { name: 'Conti', items: 1 }].sort((a, b) => a.name.localeCompare(b.name)),
      recentItems: [{ id: ids.i8, title: 'Report i8' }, { id: ids.i9 }, { id: ids.i10 }].map((i) => expect.objectContaining(i)),
    });
  });

  it('filters by actor (an ATT&CK alias stands for the group) or malware, and by window', async () => {
    const apt28 = (await get('/api/coverage/attack?actor=Fancy%20Bear')).json();
    expect(apt28.actor).toBe('Fancy Bear');
    expect(Object.fromEntries(apt28.techniques.map((x: Tech) => [x.techniqueId, x.state]))).toEqual({
      T1059: 'covered', T1003: 'covered', T1566: 'covered_experimental_only', T1027: 'unused', T1140: 'unused', T1218: 'unused', T1190: 'unused',
    });
    expect(apt28.techniques.find((x: Tech) => x.techniqueId === 'T1059').intel).toMatchObject({ items: 1, actors: 1 });
    expect(apt28.topGaps).toEqual([]);

    const lockbit = (await get('/api/coverage/attack?malware=lockbit')).json();
    expect(lockbit.techniques.filter((x: Tech) => x.intel.items > 0).map((x: Tech) => x.techniqueId).sort()).toEqual(['T1027', 'T1486', 'T1566']);

    const week = (await get('/api/coverage/attack?window=7d')).json();
    expect(week.techniques.filter((x: Tech) => x.intel.items > 0).map((x: Tech) => x.techniqueId).sort()).toEqual(['T1027', 'T1486']);
    const year = (await get('/api/coverage/attack?window=365d')).json();
    expect(year.techniques.find((x: Tech) => x.techniqueId === 'T1110')).toMatchObject({ state: 'gap', intel: { items: 1, actors: 1 } });
  });

  it('answers a technique’s panel (a sub-technique id answers for its parent), 404 for one nothing knows', async () => {
    const res = await get('/api/coverage/attack/techniques/T1059.001');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ techniqueId: 'T1059', name: 'Command and Scripting Interpreter', state: 'covered', intel: { items: 2, actors: 2, malware: 1 } });
    expect(body.detections.map((d: { name: string }) => d.name).sort()).toEqual(['MSHTA Execution with Suspicious File Extensions', 'Suspicious Encoded PowerShell Command Line'].sort());
    expect(body.intel.actorNames.map((a: { name: string }) => a.name).sort()).toEqual(['APT28', 'Lazarus Group']);
    expect(body.intel.recentItems.map((i: { id: string }) => i.id)).toEqual([ids.i1, ids.i2]);

    const quiet = (await get('/api/coverage/attack/techniques/T1110')).json();
    expect(quiet).toMatchObject({ techniqueId: 'T1110', name: 'Brute Force', state: null, detections: [] });
    const unknown = await get('/api/coverage/attack/techniques/T9999');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'Technique not found' });
    const bad = await get('/api/coverage/attack/techniques/TA0001');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues[0]).toMatchObject({ path: 'techniqueId', location: 'params' });
  });

  it('answers 400 on a bad window, 403 naming the missing permission, and keeps organizations apart', async () => {
    const bad = await get('/api/coverage/attack?window=3months');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'Validation failed', issues: [{ path: 'window', message: 'must be a number of days, 1d to 3650d (90d)', code: 'invalid_format', location: 'query' }] });
    const tooLong = await get('/api/coverage/attack?window=4000d');
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().issues).toEqual([expect.objectContaining({ path: 'window', message: 'must be a number of days, 1d to 3650d (90d)', location: 'query' })]);
    const alertsOnly = await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.read']);
    const denied = await get('/api/coverage/attack', bearer(alertsOnly.key));
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['intel.read'] });
    const intelOnly = await userWithPermissions(t.database.db, t.orgA.organization.id, ['intel.read']);
    expect((await get('/api/coverage/attack/navigator-layer', bearer(intelOnly.key))).json()).toEqual({ error: 'Missing required permissions', missingPerms: ['alert.read'] });
    const other = (await get('/api/coverage/attack', bearer(t.orgB.apiKey.key))).json();
    expect(other.techniques).toEqual([]);
    expect(other.summary).toEqual({ covered: 0, coveredExperimentalOnly: 0, gap: 0, unused: 0, matched: 0, onPaper: 0 });
  });
});

function daysAgoIso(body: { techniques: Tech[] }, _key: string): string {
  // i1 was published 10 days before the seed; the answer gives the stored timestamp back.
  const t1059 = body.techniques.find((x) => x.techniqueId === 'T1059')!;
  const seen = new Date(t1059.intel.lastSeenAt as string).getTime();
  expect(Math.abs(seen - daysAgo(10).getTime())).toBeLessThan(60_000);
  return t1059.intel.lastSeenAt as string;
}

/**
 * The layer format 4.5 (mitre-attack/attack-navigator layers/spec/v4.5/layerformat.md), written
 * out here independently of the API's schema: every property, its type, its allowed values.
 */
const LAYER_KEYS = ['versions', 'name', 'description', 'domain', 'customDataURL', 'filters', 'sorting', 'layout', 'hideDisabled', 'techniques', 'gradient', 'legendItems', 'showTacticRowBackground', 'tacticRowBackground', 'selectTechniquesAcrossTactics', 'selectSubtechniquesWithParent', 'selectVisibleTechniques', 'metadata', 'links'];
const TECHNIQUE_KEYS = ['techniqueID', 'tactic', 'comment', 'enabled', 'score', 'color', 'metadata', 'links', 'showSubtechniques'];
const HEX = /^#[0-9a-fA-F]{6}$/;
function expectMetadata(list: unknown) {
  expect(Array.isArray(list)).toBe(true);
  for (const m of list as Array<Record<string, unknown>>) {
    if ('divider' in m) expect(m).toEqual({ divider: true });
    else expect(Object.keys(m).sort()).toEqual(['name', 'value']), expect(typeof m.name).toBe('string'), expect(typeof m.value).toBe('string');
  }
}
function expectLinks(list: unknown) {
  expect(Array.isArray(list)).toBe(true);
  for (const l of list as Array<Record<string, unknown>>) {
    expect(Object.keys(l).sort()).toEqual(['label', 'url']);
    expect(typeof l.label).toBe('string');
    expect(l.url).toMatch(/^https?:\/\//);
  }
}
function expectLayer45(layer: Record<string, any>) {
  for (const k of Object.keys(layer)) expect(LAYER_KEYS, `unknown layer property ${k}`).toContain(k);
  expect(typeof layer.name).toBe('string');
  expect(layer.domain).toBe('enterprise-attack');
  expect(Object.keys(layer.versions).sort()).toEqual(['attack', 'layer', 'navigator']);
  expect(layer.versions.layer).toBe('4.5');
  const [major, minor] = String(layer.versions.navigator).split('.').map(Number);
  expect(major! > 4 || (major === 4 && minor! >= 9)).toBe(true);
  expect(typeof layer.versions.attack).toBe('string');
  expect(typeof layer.description).toBe('string');
  expect([0, 1, 2, 3]).toContain(layer.sorting);
  expect(['side', 'flat', 'mini']).toContain(layer.layout.layout);
  for (const k of ['showID', 'showName', 'showAggregateScores', 'countUnscored']) expect(typeof layer.layout[k]).toBe('boolean');
  expect(['average', 'min', 'max', 'sum']).toContain(layer.layout.aggregateFunction);
  expect(['none', 'all', 'annotated']).toContain(layer.layout.expandedSubtechniques);
  for (const k of ['hideDisabled', 'showTacticRowBackground', 'selectTechniquesAcrossTactics', 'selectSubtechniquesWithParent', 'selectVisibleTechniques']) expect(typeof layer[k]).toBe('boolean');
  expect(layer.tacticRowBackground).toMatch(HEX);
  expect(layer.gradient.colors.length).toBeGreaterThanOrEqual(2);
  for (const c of layer.gradient.colors) expect(c).toMatch(HEX);
  expect(layer.gradient.maxValue).toBeGreaterThan(layer.gradient.minValue);
  for (const l of layer.legendItems) expect(Object.keys(l).sort()).toEqual(['color', 'label']), expect(l.color).toMatch(HEX);
  expectMetadata(layer.metadata);
  expectLinks(layer.links);
  for (const tech of layer.techniques) {
    for (const k of Object.keys(tech)) expect(TECHNIQUE_KEYS, `unknown technique property ${k}`).toContain(k);
    expect(tech.techniqueID).toMatch(/^T\d{4}(\.\d{3})?$/);
    expect(catalog.techniques.has(tech.techniqueID)).toBe(true);
    if ('tactic' in tech) expect(catalog.techniques.get(tech.techniqueID)!.tactics).toContain(tech.tactic);
    expect(typeof tech.score).toBe('number');
    if ('color' in tech) expect(tech.color).toMatch(HEX);
    expect(typeof tech.comment).toBe('string');
    expect(tech.enabled).toBe(true);
    expect(typeof tech.showSubtechniques).toBe('boolean');
    expectMetadata(tech.metadata);
    expectLinks(tech.links);
  }
}

describe('ATT&CK Navigator layers', () => {
  it('answers each view as a layer of format 4.5, field by field', async () => {
    const res = await get('/api/coverage/attack/navigator-layer?view=coverage');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="rampart-attack-coverage-90d.json"');
    const layer = res.json();
    expectLayer45(layer);
    expect(layer.name).toBe('Rampart — ATT&CK coverage (90d)');
    const t1059 = layer.techniques.find((x: { techniqueID: string }) => x.techniqueID === 'T1059');
    expect(t1059).toMatchObject({ score: 2, color: '#8ec843', enabled: true, showSubtechniques: false });
    expect(t1059.links).toEqual([{ label: 'ATT&CK', url: 'https://attack.mitre.org/techniques/T1059/' }, { label: 'Rampart coverage', url: 'https://rampart.example/coverage?technique=T1059' }]);
    expect(t1059.metadata[0]).toEqual({ name: 'state', value: 'covered' });
    expect(layer.techniques.find((x: { techniqueID: string }) => x.techniqueID === 'T1190')).toMatchObject({ score: 0, color: '#ff6666' });
    expect(layer.legendItems.map((l: { color: string }) => l.color)).toEqual(['#8ec843', '#ffe766', '#ff6666', '#bcbcbc']);

    const gaps = (await get('/api/coverage/attack/navigator-layer?view=gaps&actor=Wizard%20Spider')).json();
    expectLayer45(gaps);
    expect(gaps.techniques.map((x: { techniqueID: string; score: number }) => [x.techniqueID, x.score])).toEqual([['T1486', 2], ['T1190', 1]]);
    expect(gaps.metadata).toContainEqual({ name: 'actor', value: 'Wizard Spider' });
    const intel = (await get('/api/coverage/attack/navigator-layer?view=intel')).json();
    expectLayer45(intel);
    expect(intel.techniques.map((x: { techniqueID: string }) => x.techniqueID).sort()).toEqual(['T1003', 'T1027', 'T1059', 'T1190', 'T1486', 'T1566']);
    expect(intel.gradient).toEqual({ colors: ['#ffffff', '#ff6666'], minValue: 0, maxValue: 3 });
    expect((await get('/api/coverage/attack/navigator-layer?view=heatmap')).statusCode).toBe(400);
  });

  it('round-trips: an exported layer imports as declared coverage, is given back unchanged, shows apart, and re-import by name replaces', async () => {
    const exported = (await get('/api/coverage/attack/navigator-layer?view=coverage')).json();
    exported.name = 'Exported from Rampart';
    const imp = await t.app.inject({ method: 'POST', url: '/api/coverage/attack/navigator-layer', headers: admin, payload: exported });
    expect(imp.statusCode, imp.body).toBe(200);
    // Declared: enabled entries scored above 0 (the gaps are scored 0).
    expect(imp.json()).toMatchObject({ replaced: false, unknownTechniques: [], layer: { name: 'Exported from Rampart', techniques: 6 } });
    const id = imp.json().layer.id;
    expect((await get(`/api/coverage/attack/layers/${id}`)).json()).toEqual(exported);

    // A layer from another tool (DeTT&CT-like), with a sub-technique, a tactic and a field the API does not know.
    const dettect = {
      name: 'SOC detection (DeTT&CT)', domain: 'enterprise-attack', versions: { attack: '17', navigator: '5.1.0', layer: '4.5' }, description: 'Detection scores',
      techniques: [
        { techniqueID: 'T1486', tactic: 'impact', score: 3, comment: 'EDR ransomware rule', enabled: true, metadata: [{ name: 'detection score', value: '3' }, { divider: true }] },
        { techniqueID: 'T1190.001', score: 2 },
        { techniqueID: 'T1110', score: 0, comment: 'not covered' },
        { techniqueID: 'T1059', enabled: false },
      ],
      gradient: { colors: ['#ff6666', '#8ec843'], minValue: 0, maxValue: 5 }, legendItems: [], x_dettect: { version: '1.9' },
    };
    const d = await t.app.inject({ method: 'POST', url: '/api/coverage/attack/navigator-layer', headers: admin, payload: dettect });
    expect(d.statusCode, d.body).toBe(200);
    expect(d.json()).toMatchObject({ replaced: false, unknownTechniques: ['T1190.001'], layer: { techniques: 2 } });
    expect((await get(`/api/coverage/attack/layers/${d.json().layer.id}`)).json()).toEqual(dettect);

    const report = (await get('/api/coverage/attack')).json();
    const by = new Map<string, Tech>(report.techniques.map((x: Tech) => [x.techniqueId, x]));
    // Shown beside Rampart's own detections: the state of a gap stays a gap.
    expect(by.get('T1486')).toMatchObject({ state: 'gap', external: [{ layer: 'SOC detection (DeTT&CT)', techniqueId: 'T1486', score: 3, comment: 'EDR ransomware rule' }] });
    expect(by.get('T1190')).toMatchObject({ state: 'gap', external: [{ layer: 'SOC detection (DeTT&CT)', techniqueId: 'T1190.001', score: 2, comment: '' }] });
    expect(by.get('T1059')!.external).toEqual([expect.objectContaining({ layer: 'Exported from Rampart', score: 2 })]);

    const again = await t.app.inject({ method: 'POST', url: '/api/coverage/attack/navigator-layer', headers: admin, payload: { ...dettect, techniques: [{ techniqueID: 'T1003', score: 1 }] } });
    expect(again.json()).toMatchObject({ replaced: true, layer: { id: d.json().layer.id, techniques: 1 } });
    const layers = (await get('/api/coverage/attack/layers')).json().layers;
    expect(layers.map((l: { name: string; techniques: number }) => [l.name, l.techniques])).toEqual([['Exported from Rampart', 6], ['SOC detection (DeTT&CT)', 1]]);
    expect((await get('/api/coverage/attack')).json().techniques.find((x: Tech) => x.techniqueId === 'T1486').external).toEqual([]);
  });

  it('refuses a layer that is not format 4.x (400), needs alert.manage (403), keeps layers per organization (404)', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/api/coverage/attack/navigator-layer', headers: admin, payload: { name: 'x', domain: 'mitre-enterprise', techniques: [{ techniqueID: 'T59' }], gradient: { colors: ['#fff', '#000'], minValue: 5, maxValue: 1 } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues.map((i: { path: string }) => i.path).sort()).toEqual(['domain', 'gradient.maxValue', 'techniques.0.techniqueID']);
    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['alert.read', 'intel.read']);
    const denied = await t.app.inject({ method: 'POST', url: '/api/coverage/attack/navigator-layer', headers: bearer(reader.key), payload: { name: 'x', domain: 'enterprise-attack' } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Missing required permissions', missingPerms: ['alert.manage'] });
    const mine = (await get('/api/coverage/attack/layers')).json().layers[0].id;
    const otherOrg = bearer(t.orgB.apiKey.key);
    expect((await get(`/api/coverage/attack/layers/${mine}`, otherOrg)).statusCode).toBe(404);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/coverage/attack/layers/${mine}`, headers: otherOrg });
    expect(del.statusCode).toBe(404);
    expect(del.json()).toEqual({ error: 'Coverage layer not found' });
    expect((await t.app.inject({ method: 'DELETE', url: `/api/coverage/attack/layers/${mine}`, headers: admin })).json()).toEqual({ success: true });
    expect((await get(`/api/coverage/attack/layers/${mine}`)).statusCode).toBe(404);
  });
});
