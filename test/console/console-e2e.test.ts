import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { createLoginLink } from '../../src/modules/sessions/index.js';
import { buildConsole } from '../../scripts/build-console.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { configureModel, createAgent } from '../support/agents.js';
import { createDestination, queue } from '../support/delivery.js';
import { seedIntel } from '../support/intel-data.js';
import { startServer } from '../support/fakes/http-server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fakes/openai-server.js';

/**
 * The web console in a real Chromium (Debian's /usr/bin/chromium driven by playwright-core):
 * one server, one worker pool, one browser for the whole file; the journeys run once.
 * Screenshots go to screenshots/ (gitignored). Without Chromium the file is skipped: install
 * it with `apt-get install -y chromium` (.ci/run does).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) process.stderr.write(`console-e2e: skipped, ${CHROMIUM} is not installed (apt-get install -y chromium)\n`);
const SHOTS = path.resolve(import.meta.dirname, '../../screenshots');
const JOURNEY_MS = 120_000;

let t: TestContext;
let base: string;
let key: string;
let openai: FakeOpenAI;
let worker: WorkerRunner;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const closers: Array<() => Promise<void>> = [];
const seeded = { alertId: '', agentId: '', itemId: '', destinationId: '', threatId: '', runId: '', dupAlertId: '', failingDestinationId: '' };
const DOCS_IMAGES = process.env.UPDATE_DOCS_SCREENSHOTS ? path.resolve(import.meta.dirname, '../../docs/images') : null;

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** A screenshot for docs/console.md (UPDATE_DOCS_SCREENSHOTS=1): the visible part, or one element, to keep the PNG small. */
async function docShot(name: string, selector?: string): Promise<void> {
  if (!DOCS_IMAGES) return;
  const file = path.join(DOCS_IMAGES, `console-${name}.png`);
  if (selector) await page.locator(selector).first().screenshot({ path: file });
  else await page.screenshot({ path: file });
}

/** Opens a console URL and waits for text that only real data can produce. */
async function visit(url: string, text: string | RegExp): Promise<void> {
  await page.goto(`${base}${url}`);
  await page.getByText(text).first().waitFor({ timeout: 15_000 });
}

/** Until no view of the page is loading any more (a page can load several at once: an agent's triggers and runs). */
async function loaded(): Promise<void> {
  await page.locator('main h1').first().waitFor();
  await expect.poll(() => page.getByText('Loading…').count(), { timeout: 15_000 }).toBe(0);
}

/** axe-core in the page (evaluated through the DevTools protocol: the page's CSP stays on). */
async function seriousViolations(): Promise<Array<{ id: string; impact: string; nodes: string[] }>> {
  const source = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  // Browser-side code as strings: the test program's types have no DOM.
  const result = await page.evaluate<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }>(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })",
  );
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
}

async function seed(): Promise<void> {
  const org = t.orgA.organization.id;
  const db = t.database.db;
  const intel = await seedIntel(db, org);
  seeded.itemId = intel.itemIds[0]!;
  seeded.agentId = await createAgent(t, key, { name: 'Phishing responder', description: 'Triages reported phishing', modelAlias: 'default', toolNames: ['get_alert', 'comment_on_alert'] });
  const alert = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: bearer(key), payload: { title: 'Impossible travel for bob@example.com', severity: 'high', payload: { user: 'bob@example.com', from: ['DE', 'BR'] } } });
  seeded.alertId = alert.json().alert.id;
  const routes = await t.app.inject({
    method: 'PUT',
    url: '/api/alert-triage-routes',
    headers: bearer(key),
    payload: { routes: [{ id: uuidv7(), name: 'Critical to the responder', enabled: true, conditions: [{ type: 'severity', severities: ['critical'] }], responseAgentId: seeded.agentId }], defaultResponseAgentId: null, huntResponseAgentId: null },
  });
  expect(routes.statusCode, routes.body).toBe(200);
  const receiver = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  closers.push(receiver.close);
  seeded.destinationId = await createDestination(t, key, { type: 'webhook', name: 'SOC webhook', config: { url: `${receiver.url}/hook`, authType: 'bearer' }, token: 'receiver-token', eventSubscriptions: ['agent.message'] });
  await queue(t, org, [seeded.destinationId]);
  seeded.threatId = uuidv7();
  await db.insertInto('huntThreats').values({ id: seeded.threatId, organizationId: org, canonicalKey: 'CVE-2026-1234', title: 'FortiOS SSL-VPN heap overflow', actorId: null, latestRunId: null, assessmentRunningExecutionId: null, latestAlertId: null, activeHuntAlertId: null, dismissedByUserId: null, dismissedReason: null, relevancyScore: 82, exposureScore: 40, createdAt: new Date(), updatedAt: new Date() }).execute();
  // Two assessment runs (relevancy 40 → 75, exposure possibly affected → compromise signal found) and a deliverable in review.
  const [firstRun, secondRun] = [uuidv7(), uuidv7()];
  const assessment = (id: string, at: string, relevancyScore: number, exposureScore: number, exposureState: string, diff: object, story: object) => ({
    id, organizationId: org, threatId: seeded.threatId, runAt: new Date(at), kind: 'reassess', trigger: 'schedule', relevancyScore, exposureScore, relevancyHeadline: `Relevancy ${relevancyScore}`,
    relevancyExplanation: JSON.stringify(['FortiOS is in the inventory']), exposureState, coverageState: 'none', hasFoundIoc: exposureState === 'compromise_signal_found', hasBlockingGap: false,
    exposureStory: JSON.stringify(story), diff: JSON.stringify(diff), relevancyExecutionId: null, exposureExecutionId: null,
  });
  await db.insertInto('huntThreatRuns').values([
    assessment(firstRun, '2026-11-01T10:00:00Z', 40, 30, 'possibly_affected', { prevRunId: null, beforeExposureScore: 0, afterExposureScore: 30, beforeExposureState: 'not_affected', afterExposureState: 'possibly_affected', beforeCoverageState: 'none', afterCoverageState: 'none', reasons: ['First assessment.'] }, { headline: 'FortiOS present, no sighting yet', summary: [], nextSteps: [], timeline: [] }),
    assessment(secondRun, '2026-11-02T10:00:00Z', 75, 90, 'compromise_signal_found', { prevRunId: firstRun, beforeExposureScore: 30, afterExposureScore: 90, beforeExposureState: 'possibly_affected', afterExposureState: 'compromise_signal_found', beforeCoverageState: 'none', afterCoverageState: 'none', reasons: ['Exposure score 30 → 90.'] }, {
      headline: '203.0.113.7 seen on vpn-gw-1', summary: ['A command-and-control address of the campaign was seen on the VPN gateway.'], nextSteps: ['Block 203.0.113.7 at the edge'],
      iocFindings: [{ iocType: 'ip', role: 'compromise', iocValue: '203.0.113.7', evidence: 'firewall log', affectedSystems: ['vpn-gw-1'], indicatorId: 'i-1', authoritative: true, platform: null }],
      timeline: [{ timestamp: '2026-11-02T09:00:00Z', description: '203.0.113.7 seen by firewall on vpn-gw-1' }],
    }),
  ]).execute();
  // The latest run's package matches (issue 28) and the CVE's EPSS score; a second threat without EPSS for the minEpss filter.
  const match = (assetIdentifier: string, version: string | null, verdict: string, evidence: string, advisoryId: string, affectedRange: string | null, fixedVersion: string | null) => ({
    assetId: uuidv7(), assetIdentifier, product: 'fortinet fortios', version, purl: null, cpe: 'cpe:2.3:o:fortinet:fortios', verdict, affectedRange, fixedVersion, evidence, advisoryId,
  });
  await sql`UPDATE hunt_threat_runs SET matches = ${JSON.stringify([
    match('vpn-gw-1', '7.2.4', 'affected', 'nvd', 'CVE-2026-1234', '>=7.2.0 <7.2.7', '7.2.7'),
    match('vpn-gw-2', '7.2.9', 'not_affected', 'nvd', 'CVE-2026-1234', '>=7.0.0 <7.0.14, >=7.2.0 <7.2.7', '7.2.7'),
  ])}::jsonb WHERE id = ${secondRun}`.execute(db);
  await sql`UPDATE hunt_threats SET latest_run_id = ${secondRun} WHERE id = ${seeded.threatId}`.execute(db);
  await sql`INSERT INTO intel_epss_scores (organization_id, cve, epss, percentile, model_version, score_date, updated_at) VALUES (${org}, 'CVE-2026-1234', 0.9431, 0.9987, 'v2025.03.14', '2026-11-24', now())`.execute(db);
  await db.insertInto('huntThreats').values({ id: uuidv7(), organizationId: org, canonicalKey: 'CVE-2026-5678', title: 'OpenSSH signal handler race', actorId: null, latestRunId: null, assessmentRunningExecutionId: null, latestAlertId: null, activeHuntAlertId: null, dismissedByUserId: null, dismissedReason: null, relevancyScore: 30, exposureScore: 0, createdAt: new Date(), updatedAt: new Date() }).execute();
  await db.insertInto('huntDeliverables').values({
    id: uuidv7(), organizationId: org, threatId: seeded.threatId, executionId: secondRun, kind: 'rule_proposal', pinning: 'ioc_pinned', pinnedIocs: JSON.stringify([{ type: 'ip', value: '203.0.113.7' }]),
    lifecycleStatus: 'review', intent: 'Detect the 1 indicator(s) of CVE-2026-1234 seen in the organization', targetProduct: 'sigma', targetLogSource: 'firewall', content: 'title: CVE-2026-1234 indicators',
    supersededById: null, proposalId: null, pullRequestUrl: null, createdAt: new Date(), updatedAt: new Date(),
  }).execute();
  // One alert and six duplicate signals of it (same dedupe key).
  for (let i = 0; i < 7; i++) {
    const dup = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: bearer(key), payload: { title: 'Repeated EDR detection on ws-042', severity: 'medium', dedupeKey: 'edr-ws-042', payload: { host: 'ws-042', detection: i } } });
    expect(dup.statusCode, dup.body).toBe(200);
    seeded.dupAlertId = dup.json().alert.id;
  }
  // A destination that has failed 11 times in a row (its receiver answers 503), retrying.
  seeded.failingDestinationId = await createDestination(t, key, { type: 'webhook', name: 'Broken SIEM', config: { url: 'https://siem.example/hook', authType: 'bearer' }, token: 'siem-token' });
  const deliveryId = uuidv7();
  const first = Date.now() - 11 * 60_000;
  await db.insertInto('destinationDeliveries').values({
    id: deliveryId, organizationId: org, destinationId: seeded.failingDestinationId, eventKind: 'alert.created', status: 'retrying', attemptCount: 11, responseStatus: 503, error: 'The webhook receiver answered HTTP 503',
    payload: '{}', runId: null, eventId: uuidv7(), destinationName: 'Broken SIEM', destinationType: 'webhook', responseExcerpt: 'upstream unavailable', nextAttemptAt: new Date(Date.now() + 3_600_000), firstAttemptAt: new Date(first), lastAttemptAt: new Date(first + 10 * 60_000), finishedAt: null, createdAt: new Date(first), updatedAt: new Date(),
  }).execute();
  await db.insertInto('destinationDeliveryAttempts').values(Array.from({ length: 11 }, (_, i) => ({
    id: uuidv7(), organizationId: org, deliveryId, destinationId: seeded.failingDestinationId, attempt: i + 1, outcome: 'retrying', responseStatus: 503, responseExcerpt: 'upstream unavailable', error: 'The webhook receiver answered HTTP 503', startedAt: new Date(first + i * 60_000), durationMs: 40 + i,
  }))).execute();
  const run = await t.app.inject({ method: 'POST', url: `/api/agents/${seeded.agentId}/run-sync`, headers: bearer(key), payload: { input: { question: 'Summarise today\'s alerts' } } });
  expect(run.statusCode, run.body).toBe(200);
  seeded.runId = run.json().runId;
}

describe.skipIf(!HAVE_CHROMIUM)('web console in Chromium', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await buildConsole({ ifStale: true });
    t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
    key = t.orgA.apiKey.key;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    openai = await startFakeOpenAI({ script: () => ({ text: 'Triage: the sign-in came from the admin jump host; benign.' }) });
    await configureModel(t, key, { name: 'fake', type: 'openai-compatible', baseUrl: openai.url, alias: 'default', modelId: 'local-model' });
    worker = await startServiceWorker(t, { deps: { baseUrl: base } });
    await seed();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.on('dialog', (d) => {
      throw new Error(`unexpected dialog: ${d.message()}`);
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await openai?.close();
    for (const close of closers) await close();
    await t?.close();
  }, 60_000);

  it('signs in with an API key: an HttpOnly session cookie, nothing in browser storage', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Sign in to Rampart' }).waitFor();
    await shot('sign-in');
    expect(await seriousViolations()).toEqual([]);
    await page.getByLabel('API key').fill('rmp_aaaaaaaa_' + 'a'.repeat(43));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('Invalid API key').waitFor();
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Insights' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/insights');
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'rampart_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    const stored = await page.evaluate<string>('JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie })');
    expect(stored).not.toContain('rmp_');
    expect(stored).not.toContain('rampart_session');
  }, JOURNEY_MS);

  it('renders every screen with the seeded data, with a screenshot of each', async () => {
    const screens: Array<[string, string, string | RegExp]> = [
      ['alerts', '/alerts', 'Impossible travel for bob@example.com'],
      ['alert-detail', `/alerts/${seeded.alertId}`, '"bob@example.com"'],
      ['intel-items', '/intel/items', 'LockBit affiliate exploits CVE-2026-1234 in FortiOS'],
      ['intel-item', `/intel/items/${seeded.itemId}`, 'Ransomware operators exploited the FortiOS flaw'],
      ['intel-sources', '/intel/sources', 'Seeded source'],
      ['intel-iocs', '/intel/iocs', '203.0.113.1'],
      ['agents', '/agents', 'Phishing responder'],
      ['agent-detail', `/agents/${seeded.agentId}`, 'Phishing responder'],
      ['run', `/agents/${seeded.agentId}/runs/${seeded.runId}`, 'Triage: the sign-in came from the admin jump host; benign.'],
      ['destinations', `/destinations/${seeded.destinationId}`, 'agent.message'],
      ['triage-routes', '/triage-routes', 'Matches when'],
      ['hunt', '/hunt', 'FortiOS SSL-VPN heap overflow'],
      ['threat', `/hunt/${seeded.threatId}`, 'CVE-2026-1234'],
      ['settings-users', '/settings/users', 'admin@a.test'],
      ['settings-roles', '/settings/roles', 'Super Admin'],
      ['settings-api-keys', '/settings/api-keys', 'Initial admin key'],
      ['settings-audit', '/settings/audit', 'Operator (CLI)'],
      ['insights', '/insights', 'Alerts per day by severity'],
      ['evaluations', `/evaluations?agentId=${seeded.agentId}`, 'Evaluations of this agent'],
    ];
    for (const [name, url, text] of screens) {
      await visit(url, text);
      await shot(name);
    }
    await visit('/triage-routes', 'Matches when');
    expect(await page.getByLabel('Name').first().inputValue()).toBe('Critical to the responder');
    // Filters live in the URL: a shared link opens the same view.
    await visit('/alerts?severity=low', 'No alerts match these filters.');
    await visit('/alerts?severity=high&search=travel', 'Impossible travel for bob@example.com');
    expect(await page.getByLabel('Severity').inputValue()).toBe('high');
  }, JOURNEY_MS);

  it('acts from the screens: bulk status change, every route condition, route simulation and a loop error on its route only, test-send, a destination created and edited, tools picked for an agent, the runs of a threat as text, dismiss and restore, role permissions, a new user', async () => {
    await visit('/alerts', 'Impossible travel for bob@example.com');
    await page.getByRole('checkbox', { name: 'Select RMP-1' }).check();
    await page.getByLabel('Set status').selectOption('escalated');
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await page.getByText('1 updated').waitFor();
    await page.getByRole('row', { name: /RMP-1/ }).locator('.badge.v-escalated').waitFor();

    await visit('/triage-routes', 'Matches when');
    await page.getByRole('region', { name: 'Simulate' }).getByLabel('Severity').selectOption('critical');
    await page.getByRole('button', { name: 'Simulate a sample alert' }).click();
    // The form's default source is `webhook`, a trigger type: routes apply only to triggers with routeAlerts (issue 26).
    await page.getByText(/^Assigned to the trigger's own agent\. A trigger's alert goes to the trigger's own agent unless the trigger has routeAlerts; for one that has: Route \d+ "Critical to the responder" matched/).waitFor();
    // The editor says which origins the routes apply to.
    const origins = page.getByRole('region', { name: 'Which alerts these routes apply to' });
    await origins.getByText(/^A trigger's alert/).waitFor();
    await origins.getByText(/^Hunt alerts/).waitFor();
    // A trigger's alert goes to its agent; with routeAlerts (switched on its agent's page) through the routes. Simulate takes the trigger (createdBy, triggerId).
    const fields = await t.app.inject({ url: `/api/agents/${seeded.agentId}/trigger/webhook/fields`, headers: bearer(key) });
    const senderId = fields.json().data.webhookUrl.split('/').pop();
    expect((await t.app.inject({ method: 'POST', url: `/api/agents/${seeded.agentId}/trigger/save`, headers: bearer(key), payload: { source: 'webhook', triggerId: senderId, name: 'EDR sender', createAlert: true } })).statusCode).toBe(200);
    const simulateAs = async (expected: RegExp) => {
      await visit('/triage-routes', 'Matches when');
      const form = page.getByRole('region', { name: 'Simulate' });
      await form.getByLabel('Severity').selectOption('critical');
      await form.getByLabel('Created by').selectOption('trigger');
      await form.getByRole('combobox', { name: /^Trigger/ }).selectOption(senderId);
      await form.getByRole('button', { name: 'Simulate a sample alert' }).click();
      await form.getByRole('status').getByText(expected).waitFor();
    };
    await simulateAs(/^Assigned to the trigger's agent "Phishing responder"\./);
    await visit(`/agents/${seeded.agentId}`, 'EDR sender');
    await page.getByText(/^Off \(default\): each alert this trigger creates is assigned to this agent/).first().waitFor();
    const routeSwitch = page.getByRole('listitem').filter({ hasText: 'EDR sender' }).getByRole('checkbox', { name: 'Route its alerts through the triage routes' });
    await routeSwitch.check();
    // Disabled while the change is saved; enabled and still checked once the answer is in the list.
    await expect.poll(async () => [await routeSwitch.isEnabled(), await routeSwitch.isChecked()]).toEqual([true, true]);
    await expect.poll(async () => (await t.app.inject({ url: `/api/agents/${seeded.agentId}/trigger`, headers: bearer(key) })).json().triggers.find((x: { id: string }) => x.id === senderId).routeAlerts).toBe(true);
    await simulateAs(/^Route matched: "Critical to the responder" → "Phishing responder"\./);
    await shot('triage-simulate-trigger');
    // Every condition type a route accepts is edited here: sources, a code detection, its log table.
    const detection = await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: bearer(key), payload: { name: 'Okta MFA fatigue', severity: 'high', logTable: { source: 'okta', stream: 'system_log' } } });
    expect(detection.statusCode, detection.body).toBe(200);
    await visit('/triage-routes', 'Okta MFA fatigue');
    const conditions = page.getByRole('group', { name: 'Conditions of Critical to the responder' });
    // Sources are picked from the ones alerts can have, not typed.
    await conditions.getByRole('group', { name: 'Source is one of' }).getByRole('checkbox', { name: 'webhook', exact: true }).check();
    await conditions.getByRole('group', { name: 'Source is one of' }).getByRole('checkbox', { name: 'detection', exact: true }).check();
    await conditions.getByRole('checkbox', { name: 'Okta MFA fatigue' }).check();
    await conditions.getByLabel('Log table').selectOption({ label: 'okta · system_log' });
    await page.getByRole('button', { name: 'Save routes' }).click();
    await page.getByText('Saved.').waitFor();
    const savedConditions = (await t.app.inject({ url: '/api/alert-triage-routes', headers: bearer(key) })).json().routes[0].conditions;
    expect(savedConditions).toHaveLength(4);
    expect(savedConditions).toEqual(expect.arrayContaining([
      { type: 'severity', severities: ['critical'] },
      { type: 'source', sources: ['webhook', 'detection'] },
      { type: 'codeDetection', codeDetectionIds: [detection.json().id] },
      { type: 'logTable', source: 'okta', stream: 'system_log' },
    ]));
    // The simulation takes a code detection and a log table too: all four conditions must match.
    const simulate = page.getByRole('region', { name: 'Simulate' });
    await simulate.getByLabel('Severity').selectOption('critical');
    await simulate.getByRole('textbox', { name: 'Source' }).fill('detection');
    await simulate.getByLabel('Code detection').selectOption({ label: 'Okta MFA fatigue' });
    await page.getByRole('button', { name: 'Simulate a sample alert' }).click();
    await simulate.getByText(/^No route matched and no default agent: left unassigned\./).waitFor();
    await simulate.getByLabel('Log table').selectOption({ label: 'okta · system_log' });
    await page.getByRole('button', { name: 'Simulate a sample alert' }).click();
    await simulate.getByText(/^Route matched: "Critical to the responder" → "Phishing responder"\./).waitFor();
    // A route that would send an alert-making agent's own alerts back to it: the loop error is shown on that route.
    const alertMakerId = await createAgent(t, key, { name: 'Alert maker', modelAlias: 'default', toolNames: ['create_alert'] });
    await visit('/triage-routes', 'Matches when');
    await page.getByRole('button', { name: 'Add route' }).click();
    const added = page.getByRole('listitem', { name: 'Route 2: Route 2' });
    await added.getByRole('combobox', { name: /^Agent/ }).selectOption({ label: 'Alert maker' });
    await page.getByRole('button', { name: 'Save routes' }).click();
    await added.getByRole('alert').getByText(/^Routing loop: agent "Alert maker"/).waitFor();
    // …and only there: the general error line does not repeat it.
    expect(await page.getByRole('alert').filter({ hasText: 'Routing loop' }).count()).toBe(1);
    await shot('triage-loop-error');

    await visit(`/destinations/${seeded.destinationId}`, 'agent.message');
    await page.getByRole('button', { name: 'Send a test message' }).click();
    await page.getByText(/^Test delivered/).waitFor();
    // Destinations are created and edited here; the token is write-only: never prefilled, and left empty it is kept.
    await visit('/destinations/new', 'SOC webhook');
    const create = page.getByRole('form', { name: 'New destination' });
    await create.getByLabel('Type').selectOption('webhook');
    await create.getByLabel('Name', { exact: true }).fill('Case system');
    await create.getByLabel('URL').fill('http://127.0.0.1:9/hook');
    await create.getByLabel('Authentication').selectOption('header');
    await create.getByLabel('Header name').fill('X-Api-Key');
    await create.getByLabel('Token').fill('case-token-1');
    await create.getByLabel(/^Event subscriptions/).fill('alert.created');
    await create.getByRole('button', { name: 'Create destination' }).click();
    const edit = page.getByRole('form', { name: 'Edit Case system' });
    await edit.waitFor();
    const createdId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await edit.getByLabel(/^Token/).inputValue()).toBe('');
    expect(await edit.getByLabel('Header name').inputValue()).toBe('X-Api-Key');
    await edit.getByLabel('Name', { exact: true }).fill('Case system EU');
    await edit.getByRole('button', { name: 'Save destination' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await t.app.inject({ url: `/api/output-destinations/${createdId}`, headers: bearer(key) })).json()).toMatchObject({
      name: 'Case system EU', type: 'webhook', config: { url: 'http://127.0.0.1:9/hook', authType: 'header', headerName: 'X-Api-Key' }, token: 'case-token-1', eventSubscriptions: ['alert.created'],
    });
    await shot('destination-edit');

    // An agent's tools are picked from the list the API gives (built-in tools and MCP servers), not typed.
    await visit(`/agents/${seeded.agentId}`, 'Phishing responder');
    const tools = page.getByRole('group', { name: 'Built-in' });
    expect(await tools.getByRole('checkbox', { name: 'get_alert' }).isChecked()).toBe(true);
    expect(await tools.getByRole('checkbox', { name: 'set_alert_status' }).isChecked()).toBe(false);
    await tools.getByRole('checkbox', { name: 'set_alert_status' }).check();
    await page.getByRole('button', { name: 'Save agent' }).click();
    await page.getByRole('form', { name: 'Agent' }).getByText('Saved.').waitFor();
    expect((await t.app.inject({ url: `/api/agents/${seeded.agentId}`, headers: bearer(key) })).json().toolNames).toEqual(['get_alert', 'comment_on_alert', 'set_alert_status']);
    await shot('agent-tools');

    // The agent's history (issue 30 §3): the save above is the newest version; its diff shows the tool added; restoring the one before (confirmed) appends another.
    const saved = (await t.app.inject({ url: `/api/agents/${seeded.agentId}`, headers: bearer(key) })).json().version as number;
    const history = page.getByRole('region', { name: 'History' });
    await history.getByRole('button', { name: `Changes from v${saved - 1}` }).click();
    const diff = page.getByRole('region', { name: `Changes from v${saved - 1} to v${saved}` });
    await diff.getByText('toolNames').waitFor();
    expect(await diff.locator('.diff-added').allTextContents()).toContain('+ added:   "set_alert_status"');
    await shot('agent-history');
    await history.getByRole('button', { name: `Restore v${saved - 1}` }).click();
    await history.getByRole('button', { name: `Confirm restore of v${saved - 1}` }).click();
    await history.getByText(`v${saved + 1} (current)`).waitFor();
    expect((await t.app.inject({ url: `/api/agents/${seeded.agentId}`, headers: bearer(key) })).json()).toMatchObject({ version: saved + 1, toolNames: ['get_alert', 'comment_on_alert'] });
    expect(await page.getByRole('group', { name: 'Built-in' }).getByRole('checkbox', { name: 'set_alert_status' }).isChecked()).toBe(false);
    const sources = (await t.app.inject({ url: `/api/agents/${seeded.agentId}/versions?limit=2`, headers: bearer(key) })).json().versions.map((v: { source: string }) => v.source);
    expect(sources).toEqual(['restore', 'console']);

    // The agent form edits the output schema (checked as typed), the limits of a run and the declared inputs.
    await visit(`/agents/${alertMakerId}`, 'Alert maker');
    const agentForm = page.getByRole('form', { name: 'Agent' });
    await agentForm.getByLabel(/^Output schema/).fill('{"type": "array"}');
    await agentForm.getByText('The schema must have "type": "object".').waitFor();
    expect(await agentForm.getByRole('button', { name: 'Save agent' }).isDisabled()).toBe(true);
    await agentForm.getByLabel(/^Output schema/).fill('{"type": "object", "properties": {"verdict": {"type": "string"}}, "required": ["verdict"]}');
    await agentForm.getByLabel(/^Steps/).fill('6');
    await agentForm.getByLabel(/^Time/).fill('120');
    await agentForm.getByRole('button', { name: 'Add input' }).click();
    await agentForm.getByRole('group', { name: 'Input 1' }).getByLabel('Name').fill('alertId');
    await agentForm.getByRole('group', { name: 'Input 1' }).getByRole('checkbox', { name: 'Required' }).check();
    await agentForm.getByRole('button', { name: 'Save agent' }).click();
    await agentForm.getByText('Saved.').waitFor();
    expect((await t.app.inject({ url: `/api/agents/${alertMakerId}`, headers: bearer(key) })).json()).toMatchObject({
      maxSteps: 6, maxDurationMs: 120_000, inputs: [{ name: 'alertId', type: 'string', required: true }],
      structuredOutputSchema: { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] }, toolNames: ['create_alert'],
    });
    await docShot('agent-form');

    await visit(`/hunt/${seeded.threatId}`, 'CVE-2026-1234');
    // The latest run's matches as a table (issue 28), EPSS with its percentile.
    const matches = page.getByRole('region', { name: 'Matches' });
    await matches.getByRole('row', { name: /vpn-gw-1 fortinet fortios .*7\.2\.4 affected >=7\.2\.0 <7\.2\.7 7\.2\.7 NVD CVE-2026-1234/ }).waitFor();
    await matches.getByRole('row', { name: /vpn-gw-2 .*7\.2\.9 not affected/ }).waitFor();
    await page.locator('.facts').getByText('94.3 %').first().waitFor();
    await page.locator('.facts').getByText('(percentile 100, scored 2026-11-24)').first().waitFor();
    await docShot('threat-matches', 'section[aria-labelledby="matches"]');
    // Assessment runs read as text: what changed, the exposure story, the deliverable's status; no raw JSON.
    await page.getByRole('region', { name: 'What changed' }).getByText('estate relevancy 40 → 75').waitFor();
    await page.getByText('exposure possibly affected → compromise signal found').waitFor();
    await page.getByText('Exposure story: 203.0.113.7 seen on vpn-gw-1').click();
    await page.getByText('Block 203.0.113.7 at the edge').waitFor();
    await page.getByText('203.0.113.7 (ip, compromise) on vpn-gw-1: firewall log').waitFor();
    await page.getByText('203.0.113.7 seen by firewall on vpn-gw-1').waitFor();
    expect(await page.getByText(/prevRunId|"iocFindings"/).count()).toBe(0);
    await page.getByRole('listitem').filter({ hasText: 'Detect the 1 indicator(s) of CVE-2026-1234' }).locator('.badge.v-review').waitFor();
    await shot('threat-runs');
    await page.getByLabel('Reason').fill('Not our VPN vendor');
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await page.locator('.facts .badge.v-dismissed').waitFor();
    await page.getByText('Not our VPN vendor').waitFor();
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('button', { name: 'Dismiss' }).waitFor();
    await shot('threat-restored');

    const role = await t.app.inject({ method: 'POST', url: '/api/roles', headers: bearer(key), payload: { name: 'Responder', permissions: ['alert.read'] } });
    expect(role.statusCode, role.body).toBe(200);
    await visit('/settings/roles', 'Permissions of Responder');
    const perms = page.getByRole('group', { name: 'Permissions of Responder' });
    await perms.getByRole('checkbox', { name: 'alert.triage' }).check();
    await expect.poll(async () => (await t.app.inject({ url: `/api/roles/${role.json().id}/perms`, headers: bearer(key) })).json().permissions).toEqual(['alert.read', 'alert.triage']);
    await visit('/settings/users', 'admin@a.test');
    const newUser = page.getByRole('form', { name: 'New user' });
    await newUser.getByLabel('Email').fill('carol@a.test');
    await newUser.getByLabel('Name').fill('Carol');
    await newUser.getByLabel('Role').selectOption({ label: 'Responder' });
    await newUser.getByRole('button', { name: 'Add user' }).click();
    await page.getByRole('cell', { name: 'carol@a.test' }).waitFor();
  }, JOURNEY_MS);

  it('hunt alert settings: the band, EPSS gates and the KEV switch saved through the API, shown again after a reload', async () => {
    const url = '/api/hunt/alert-creation-settings';
    const before = (await t.app.inject({ url, headers: bearer(key) })).json();
    await visit('/hunt', 'Alert settings');
    const form = page.getByRole('form', { name: 'Hunt alert settings' });
    await form.getByLabel('Alert from exposure band').selectOption('critical');
    await form.getByLabel('Minimum EPSS probability (%)').fill('10');
    await form.getByLabel('Alert on CISA KEV CVEs whatever the band and EPSS').check();
    await form.getByRole('button', { name: 'Save alert settings' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    expect((await t.app.inject({ url, headers: bearer(key) })).json()).toEqual({ ...before, minimumExposureBand: 'critical', minimumEpssProbability: 0.1, alertOnKnownExploited: true });
    await page.reload();
    const again = page.getByRole('form', { name: 'Hunt alert settings' });
    await expect.poll(() => again.getByLabel('Alert from exposure band').inputValue()).toBe('critical');
    expect(await again.getByLabel('Minimum EPSS probability (%)').inputValue()).toBe('10');
    expect(await again.getByLabel('Alert on CISA KEV CVEs whatever the band and EPSS').isChecked()).toBe(true);
    await shot('hunt-alert-settings');
    const reset = await t.app.inject({ method: 'PUT', url, headers: bearer(key), payload: before });
    expect(reset.statusCode, reset.body).toBe(200);
  }, JOURNEY_MS);

  it('hunt board: the KEV badge and column from a linked CISA KEV record, and the KEV filter', async () => {
    const db = t.database.db;
    const org = t.orgA.organization.id;
    const kev = { format: 'cisa_kev', id: 'CVE-2026-1234', aliases: [], affected: [], exploited: { dateAdded: '2026-11-03', dueDate: '2026-11-24', knownRansomwareUse: true } };
    // A KEV record of its own, linked to the threat, so the items the other screens show stay as seeded.
    const sourceId = (await sql<{ id: string }>`SELECT id FROM intel_sources WHERE organization_id = ${org} ORDER BY created_at LIMIT 1`.execute(db)).rows[0]!.id;
    const kevItemId = (await sql<{ id: string }>`
      INSERT INTO intel_items (id, organization_id, source_id, external_id, title, language, content_text, content_hash, status, vulnerability, published_at, created_at, updated_at, processed_at)
      VALUES (gen_random_uuid(), ${org}, ${sourceId}, 'kev-CVE-2026-1234', 'CISA KEV: CVE-2026-1234', 'en', '', md5('kev-CVE-2026-1234'), 'processed', ${JSON.stringify(kev)}::jsonb, now() - interval '30 days', now(), now(), now())
      RETURNING id`.execute(db)).rows[0]!.id;
    await db.insertInto('huntThreatItems').values({ organizationId: org, threatId: seeded.threatId, itemId: kevItemId, linkedAt: new Date() }).execute();
    try {
      await visit('/hunt?knownExploited=true', 'FortiOS SSL-VPN heap overflow');
      const row = page.getByRole('row', { name: /FortiOS SSL-VPN heap overflow/ });
      await row.locator('.badge.v-known_exploited').getByText('KEV').waitFor();
      await row.locator('.badge.v-ransomware').waitFor();
      await row.getByText('added 2026-11-03, due 2026-11-24').waitFor();
      expect(await page.getByText('OpenSSH signal handler race').count()).toBe(0);
      await visit('/hunt?knownExploited=false', 'OpenSSH signal handler race');
      expect(await page.getByText('FortiOS SSL-VPN heap overflow').count()).toBe(0);
    } finally {
      await db.deleteFrom('huntThreatItems').where('threatId', '=', seeded.threatId).where('itemId', '=', kevItemId).execute();
      await sql`DELETE FROM intel_items WHERE id = ${kevItemId}`.execute(db);
    }
  }, JOURNEY_MS);

  it('Insights: the charts of the seeded figures, each with a table that says what GET /api/insights says', async () => {
    const api = (await t.app.inject({ url: '/api/insights?window=30d', headers: bearer(key) })).json();
    await visit('/insights', 'Alerts per day by severity');
    await loaded();
    expect(await page.locator('canvas').count()).toBeGreaterThanOrEqual(6);
    // The severity chart's table: one row per day, the API's counts.
    const rows = await page.locator('table[data-chart="alerts-severity"] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    expect(rows).toEqual(api.alerts.perDay.map((d: { day: string; low: number; medium: number; high: number; critical: number }) => [d.day.slice(5), String(d.low), String(d.medium), String(d.high), String(d.critical)]));
    const open = await page.locator('table[data-chart="open-status"] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    expect(open).toEqual(api.alerts.open.byStatus.map((x: { status: string; count: number }) => [x.status.replace('_', ' '), String(x.count)]));
    const deliveries = await page.locator('table[data-chart="deliveries"] tbody tr').evaluateAll((trs) => trs.map((tr) => tr.children[0]!.textContent));
    expect(deliveries).toEqual(api.deliveries.byDestination.map((x: { destinationName: string }) => x.destinationName));
    expect(deliveries).toContain('Broken SIEM');
    const summary = page.getByRole('definition').first();
    expect(await summary.textContent()).toBe(String(api.alerts.perDay.reduce((n: number, d: { total: number }) => n + d.total, 0)));
    await docShot('insights');
    // "Show table" makes a chart's table visible for everyone.
    await page.getByRole('figure', { name: 'Alerts per day by severity' }).getByRole('button', { name: 'Show table' }).click();
    await page.locator('table[data-chart="alerts-severity"]').waitFor({ state: 'visible' });
    // The window is in the URL.
    await page.getByLabel('Window').selectOption('7d');
    await expect.poll(() => page.locator('table[data-chart="alerts-severity"] tbody tr').count()).toBe(7);
    expect(new URL(page.url()).searchParams.get('window')).toBe('7d');
  }, JOURNEY_MS);

  it('ATT&CK coverage: the matrix coloured by state with the API\'s counts, a technique\'s panel, a Navigator layer downloaded', async () => {
    // Intel naming techniques nothing else here names (credential forging), and code detections covering some of them.
    const org = t.orgA.organization.id;
    const sourceId = (await sql<{ id: string }>`SELECT id FROM intel_sources WHERE organization_id = ${org} ORDER BY created_at LIMIT 1`.execute(t.database.db)).rows[0]!.id;
    const named = [
      ['Certificate theft wave 1', 'T1649', 'APT29'], ['Certificate theft wave 2', 'T1649', 'APT29'], ['Certificate theft wave 3', 'T1649', null],
      ['Kerberoasting spree', 'T1558.003', 'FIN7'], ['MFA bombing of helpdesks', 'T1621', null],
    ] as const;
    await sql`
      INSERT INTO intel_items (id, organization_id, source_id, external_id, title, language, content_text, content_hash, status, classification, published_at, created_at, updated_at, processed_at)
      SELECT gen_random_uuid(), ${org}, ${sourceId}, 'coverage-' || r.title, r.title, 'en', '', md5(r.title), 'processed',
        jsonb_build_object('attack', jsonb_build_array(jsonb_build_object('technique', split_part(r.tid, '.', 1), 'subTechnique', CASE WHEN r.tid LIKE '%.%' THEN r.tid ELSE '' END)),
          'actor', CASE WHEN r.actor IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object('name', r.actor)) END, 'malware', '[]'::jsonb),
        now() - interval '1 day', now(), now(), now()
      FROM json_to_recordset(${JSON.stringify(named.map(([title, tid, actor]) => ({ title, tid, actor })))}::json) AS r(title text, tid text, actor text)`.execute(t.database.db);
    const detectionIds: string[] = [];
    for (const [name, attackTechniques, status] of [['Kerberoast RC4 tickets', ['T1558.003'], 'stable'], ['Okta push spam', ['T1621'], 'experimental'], ['Forged SAML tokens', ['T1606.002'], 'test']] as const) {
      const made = await t.app.inject({ method: 'POST', url: '/api/code-detections', headers: bearer(key), payload: { name, severity: 'high', attackTechniques, status } });
      expect(made.statusCode, made.body).toBe(200);
      detectionIds.push(made.json().id);
    }
    const api = (await t.app.inject({ url: '/api/coverage/attack?window=90d', headers: bearer(key) })).json();
    await visit('/coverage', 'Matrix');
    await loaded();
    // A cell reads "○ T1558 …" when a detection covers it on paper only, "● …" when one matched events.
    const cell = (id: string) => page.locator('.coverage-cell').filter({ hasText: new RegExp(`^(?:[●○] )?${id} `) }).first();
    for (const [id, state, label, detections, items] of [
      ['T1649', 'gap', 'Gap', 0, 3], ['T1558', 'covered', 'Covered', 1, 1], ['T1621', 'covered_experimental_only', 'Experimental only', 1, 1], ['T1606', 'unused', 'Not seen in intel', 1, 0],
    ] as const) {
      expect(await cell(id).getAttribute('class')).toContain(`cov-${state}`);
      // No events were sent: a technique with detections is covered on paper only (docs/coverage.md#evidence).
      const evidence = detections ? 'on paper only: no detection matched events' : 'no detection';
      expect(await cell(id).getAttribute('title')).toBe(`${label}: ${detections} detection(s), ${items} intel item(s); ${evidence}`);
      expect(api.techniques.find((x: { techniqueId: string }) => x.techniqueId === id)).toMatchObject({ state, detections: { total: detections }, intel: { items } });
    }
    expect(await page.locator('.kpis dd').allTextContents()).toEqual([api.summary.covered, api.summary.coveredExperimentalOnly, api.summary.gap, api.summary.unused, api.summary.matched, api.summary.onPaper].map(String));
    await shot('coverage');
    // A gap's panel: no detection, the intel behind it with its actor; the selection is in the URL.
    await cell('T1649').click();
    const panel = page.locator('section.panel');
    await panel.getByRole('heading', { name: /^T1649 Steal or Forge Authentication Certificates/ }).waitFor();
    await panel.getByText('No detection covers it.').waitFor();
    await panel.getByText('Intel (3 items, 1 actors, 0 malware)').waitFor();
    await panel.getByText(/Actors: APT29 \(2\)\./).waitFor();
    await panel.getByRole('link', { name: 'Certificate theft wave 3' }).waitFor();
    expect(new URL(page.url()).searchParams.get('technique')).toBe('T1649');
    // A covered technique's panel lists the detection that covers its sub-technique.
    await cell('T1558').click();
    await panel.getByRole('row', { name: /Kerberoast RC4 tickets stable high T1558\.003/ }).waitFor();
    await shot('coverage-technique');
    // The coverage layer, downloaded as the browser gets it: Navigator 4.5, the states' colours and the detections as scores.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'coverage', exact: true }).click()]);
    const layer = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
    expect(layer).toMatchObject({ domain: 'enterprise-attack', versions: { layer: '4.5' } });
    const byId = new Map(layer.techniques.map((x: { techniqueID: string }) => [x.techniqueID, x]));
    expect(byId.get('T1558')).toMatchObject({ score: 1, color: '#8ec843' });
    expect(byId.get('T1649')).toMatchObject({ score: 0, color: '#ff6666' });
    expect(byId.get('T1621')).toMatchObject({ score: 1, color: '#ffe766' });
    // The later journeys read the intel list and the detections as the file's seed left them.
    await sql`DELETE FROM intel_items WHERE organization_id = ${org} AND external_id LIKE 'coverage-%'`.execute(t.database.db);
    for (const id of detectionIds) expect((await t.app.inject({ method: 'DELETE', url: `/api/code-detections/${id}`, headers: bearer(key) })).statusCode).toBe(200);
  }, JOURNEY_MS);

  it('shows what the API knows instead of misleading: a failing destination\'s failures and attempts, run ids told apart, a run\'s header and its transcript once, the two relevance scores named apart, markdown rendered safely', async () => {
    await visit('/destinations', 'Broken SIEM');
    const broken = page.getByRole('row', { name: /Broken SIEM/ });
    await broken.locator('.badge.v-retrying').waitFor();
    await broken.getByRole('cell', { name: '11', exact: true }).waitFor();
    await broken.getByText('The webhook receiver answered HTTP 503').waitFor();
    await docShot('destinations');
    await page.getByRole('link', { name: 'Broken SIEM' }).click();
    await page.getByText('11 attempts').click();
    expect(await page.locator('details.attempts li').count()).toBe(11);
    await page.locator('details.attempts li').first().getByText('HTTP 503').waitFor();

    // Two runs of the same minute read apart: the random tail of the UUIDv7, with copy.
    const second = await t.app.inject({ method: 'POST', url: `/api/agents/${seeded.agentId}/run-sync`, headers: bearer(key), payload: { input: 'again' } });
    const ids = [seeded.runId, second.json().runId as string];
    await visit(`/agents/${seeded.agentId}`, 'Phishing responder');
    for (const id of ids) expect(await page.getByRole('link', { name: `…${id.slice(-8)}` }).getAttribute('title')).toBe(id);
    expect(ids[0]!.slice(-8)).not.toBe(ids[1]!.slice(-8));
    await page.getByRole('button', { name: `Copy run id ${ids[0]}` }).waitFor();

    await visit(`/agents/${seeded.agentId}/runs/${seeded.runId}`, 'Transcript');
    const head = page.locator('dl.run-head');
    await head.getByText('Phishing responder').waitFor();
    await head.locator('.badge.v-done').waitFor();
    await head.getByText(/\d+ \(\d+ in, \d+ out\)/).waitFor();
    // The answer appears once (under Output); the transcript points to it.
    expect(await page.getByText('Triage: the sign-in came from the admin jump host; benign.').count()).toBe(1);
    await page.getByText('The final answer (under Output).').waitFor();
    await docShot('run');

    await visit('/intel/items', 'LockBit affiliate exploits CVE-2026-1234 in FortiOS');
    await page.getByText('general relevance 90').waitFor();
    await visit('/hunt', 'FortiOS SSL-VPN heap overflow');
    await page.getByRole('columnheader', { name: 'Estate relevancy' }).waitFor();
    await page.getByText('OpenSSH signal handler race').waitFor();
    // minEpss: only threats whose CVE has an EPSS score at least this; the filter is in the URL.
    await page.getByLabel('Min EPSS').selectOption('0.5');
    await expect.poll(() => page.getByText('OpenSSH signal handler race').count()).toBe(0);
    await page.getByText('FortiOS SSL-VPN heap overflow').waitFor();
    expect(new URL(page.url()).searchParams.get('minEpss')).toBe('0.5');

    // Markdown from people and agents: rendered, with no HTML and no javascript: link.
    await visit(`/alerts/${seeded.alertId}`, '"bob@example.com"');
    await page.getByRole('textbox', { name: 'Comment', exact: true }).fill('**Checked** the [sign-in logs](https://logs.example/q?u=bob) and [this](javascript:window.__pwned=1) <img src=x onerror="window.__pwned=2">');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.locator('.timeline strong', { hasText: 'Checked' }).waitFor();
    expect(await page.locator('.timeline a[href="https://logs.example/q?u=bob"]').getAttribute('rel')).toBe('noopener noreferrer');
    expect(await page.evaluate<number>(`document.querySelectorAll('main a[href^="javascript:" i], main img').length`)).toBe(0);
    await page.getByText('<img src=x onerror="window.__pwned=2">').waitFor();
    // Every timeline entry names who acted.
    expect(await page.locator('.timeline li', { hasText: 'Checked' }).locator('.actor').textContent()).toBe(t.orgA.user.name || t.orgA.user.email);
  }, JOURNEY_MS);

  it('alert views: duplicates folded on the timeline, a duplicates column, closed alerts hidden unless asked, j/k/Enter/e from the keyboard', async () => {
    await visit(`/alerts/${seeded.dupAlertId}`, 'Repeated EDR detection on ws-042');
    const folded = page.locator('.timeline .dupes summary');
    await folded.getByText(/^6 duplicates, last at/).waitFor();
    await folded.click();
    await page.locator('.timeline .dupes li').nth(5).getByText('"detection": 6').waitFor();
    await docShot('alert-timeline', 'section:has(> #timeline)');

    await visit('/alerts', 'Repeated EDR detection on ws-042');
    expect(await page.getByRole('row', { name: /Repeated EDR detection/ }).innerText()).toMatch(/\t×6\t/);
    // Closed alerts are hidden by default; the status filter shows them.
    const closed = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: bearer(key), payload: { title: 'Already handled phish', severity: 'low' } });
    await t.app.inject({ method: 'POST', url: `/api/alerts/${closed.json().alert.id}/status`, headers: bearer(key), payload: { status: 'closed_benign' } });
    await visit('/alerts', 'Repeated EDR detection on ws-042');
    expect(await page.getByText('Already handled phish').count()).toBe(0);
    await page.getByLabel('Status').first().selectOption('all');
    await page.getByText('Already handled phish').waitFor();
    expect(new URL(page.url()).searchParams.get('status')).toBe('all');
    await visit('/alerts?search=Repeated%20EDR', 'Repeated EDR detection on ws-042');
    // j selects the first row, e escalates it, Enter opens it.
    await page.locator('main h1').click();
    await page.keyboard.press('j');
    await page.locator('tr.cursor', { hasText: 'Repeated EDR detection' }).waitFor();
    await page.keyboard.press('e');
    await page.getByRole('row', { name: /Repeated EDR detection/ }).locator('.badge.v-escalated').waitFor();
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /Repeated EDR detection on ws-042/ }).waitFor();
  }, JOURNEY_MS);

  it('pages a queue of 10,000 alerts on the server, 50 rows at a time', async () => {
    await sql`
      INSERT INTO alerts (id, organization_id, number, title, description, severity, status, source_category, source_name, trigger_type, created_by, payload, created_at, updated_at)
      SELECT gen_random_uuid(), ${t.orgA.organization.id}, 100000 + g, 'Bulk alert ' || g, 'Generated', (ARRAY['low', 'medium', 'high', 'critical'])[1 + g % 4], 'open',
        'trigger', 'bulk', 'webhook', 'trigger', '{}'::jsonb, now() - interval '1 day' - (g || ' seconds')::interval, now()
      FROM generate_series(1, 10000) g`.execute(t.database.db);
    const requests: string[] = [];
    page.on('request', (r) => { if (new URL(r.url()).pathname === '/api/alerts') requests.push(r.url()); });
    await visit('/alerts', /in all/);
    // The queue shows the alerts not closed unless asked.
    const total = (await t.app.inject({ url: '/api/alerts?limit=1&status=open,in_progress,escalated', headers: bearer(key) })).json().totalCount as number;
    expect(total).toBeGreaterThanOrEqual(10_000);
    await page.getByText(`Page 1 of ${Math.ceil(total / 50)} · ${total} in all`).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(50);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText(`Page 2 of ${Math.ceil(total / 50)}`).waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    expect(await page.locator('tbody tr').count()).toBe(50);
    expect(requests.every((u) => new URL(u).searchParams.get('limit') === '50')).toBe(true);
    await shot('alerts-10k');
  }, JOURNEY_MS);

  it('analyst journey: an alert arrives by webhook, is routed, its triage run is watched, and it is closed with a comment', async () => {
    // The trigger is made in the console, which shows the webhook URL and secret once.
    await visit(`/agents/${seeded.agentId}`, 'Phishing responder');
    await page.getByRole('form', { name: 'New trigger' }).getByLabel('Name').fill('GuardDuty');
    await page.getByRole('button', { name: 'Add trigger' }).click();
    const notice = page.locator('.notice');
    await notice.waitFor();
    const codes = await notice.locator('code').allTextContents();
    const [webhookUrl, secret] = codes as [string, string];
    expect(webhookUrl).toMatch(/\/api\/trigger\/webhook\/[0-9a-f-]{36}$/);
    await shot('trigger-created');

    const finding = { detail: { id: 'gd-777', type: 'UnauthorizedAccess:EC2/SSHBruteForce', title: '198.51.100.23 is brute forcing SSH on i-0abc', severity: 8 }, 'detail-type': 'GuardDuty Finding', source: 'aws.guardduty' };
    const delivered = await fetch(new URL(new URL(webhookUrl).pathname, base), { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, body: JSON.stringify(finding) });
    expect(delivered.status, await delivered.clone().text()).toBeLessThan(300);

    await visit('/alerts', '198.51.100.23 is brute forcing SSH on i-0abc');
    await page.getByRole('link', { name: /198\.51\.100\.23 is brute forcing SSH/ }).click();
    await page.getByText(/^trigger: /).waitFor();
    // The triage run, watched by polling, ends.
    await page.locator('.triage .badge.v-done').waitFor({ timeout: 30_000 });
    await shot('analyst-triaged');

    await page.getByRole('textbox', { name: 'Comment', exact: true }).fill('Known pentest from the red team; no action.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.getByText('Known pentest from the red team; no action.').waitFor();
    await page.getByRole('form', { name: 'Change status' }).getByLabel('Status').selectOption('closed_benign');
    await page.getByRole('form', { name: 'Change status' }).getByLabel('Reason').fill('Authorised test');
    await page.getByRole('button', { name: 'Set status' }).click();
    await page.locator('.facts .badge.v-closed_benign').waitFor();
    await shot('analyst-closed');

    const alerts = (await t.app.inject({ url: '/api/alerts?search=brute%20forcing', headers: bearer(key) })).json().alerts;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ status: 'closed_benign', routing: { outcome: 'trigger' }, assignedAgentId: seeded.agentId });
    const view = (await t.app.inject({ url: `/api/alerts/${alerts[0].id}`, headers: bearer(key) })).json();
    expect(view.timeline.map((e: { kind: string }) => e.kind)).toEqual(expect.arrayContaining(['comment', 'triage_finished']));
  }, JOURNEY_MS);

  it('intel journey: add a local RSS source, sync it, read an item with highlighted indicators, find one in IOC search', async () => {
    const feed = `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Local research</title><link>https://research.example/</link>
<item><guid>r-1</guid><title>Loader campaign uses fresh infrastructure</title><link>https://research.example/r-1</link><pubDate>Tue, 10 Nov 2026 04:00:00 +0000</pubDate>
<description><![CDATA[<p>The loader beacons to 45.77.12.9 and fetches its payload from update-check[.]net. Internal host 10.0.0.5 was also seen.</p>]]></description></item>
</channel></rss>`;
    const server = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(feed));
    closers.push(server.close);

    await visit('/intel/sources', 'Seeded source');
    const form = page.getByRole('form', { name: 'Add an RSS source' });
    await form.getByLabel('Name').fill('Local research');
    await form.getByLabel('Feed URL').fill(`${server.url}/feed.xml`);
    await form.getByRole('button', { name: 'Add RSS source' }).click();
    const row = page.getByRole('row', { name: /Local research/ });
    await row.waitFor();
    await page.getByRole('button', { name: 'Sync Local research now' }).click();
    await row.locator('.badge.v-ok').waitFor({ timeout: 30_000 });
    await shot('intel-synced');

    await visit('/intel/items?search=loader', 'Loader campaign uses fresh infrastructure');
    await page.getByRole('link', { name: 'Loader campaign uses fresh infrastructure' }).click();
    const ip = page.locator('mark.ioc', { hasText: '45.77.12.9' });
    await ip.waitFor({ timeout: 15_000 });
    expect(await ip.getAttribute('data-type')).toBe('ipv4');
    expect(await page.locator('mark.ioc[data-type="domain"]').textContent()).toBe('update-check[.]net');
    expect(await page.locator('.rejected', { hasText: '10.0.0.5' }).getAttribute('title')).toMatch(/^not kept \(ipv4\): /);
    // Each mark is exactly its span of the text the API returned.
    const itemId = new URL(page.url()).pathname.split('/').pop()!;
    const detail = (await t.app.inject({ url: `/items/${itemId}`, headers: bearer(key) })).json();
    const marks = await page.locator('mark.ioc').allTextContents();
    expect(marks).toEqual(detail.annotatedText.indicators.map((i: { start: number; end: number }) => detail.annotatedText.text.slice(i.start, i.end)));
    await shot('intel-reader');

    await page.getByRole('link', { name: '45.77.12.9' }).click();
    await page.getByRole('cell', { name: '45.77.12.9' }).waitFor();
    expect(new URL(page.url()).searchParams.get('search')).toBe('45.77.12.9');
    await expect(page.getByRole('button', { name: /^unchecked \d+$/ }).isVisible()).resolves.toBe(true);
    await shot('intel-ioc-search');
  }, JOURNEY_MS);

  it('shows a hostile feed item inert: no script runs, no handler fires, no javascript: link', async () => {
    const id = uuidv7();
    const sourceId = (await t.database.db.selectFrom('intelItems').select('sourceId').where('id', '=', seeded.itemId).executeTakeFirstOrThrow()).sourceId;
    const hostile = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> <a href="javascript:window.__pwned = 3">click</a> <svg onload="window.__pwned = 4"></svg> evil.example.com';
    await t.database.db.insertInto('intelItems').values({
      id, organizationId: t.orgA.organization.id, sourceId, externalId: 'hostile', title: `<img src=x onerror="window.__pwned = 5">Hostile <script>window.__pwned = 6</script>`,
      url: 'javascript:window.__pwned = 7', publisher: '<b onmouseover="window.__pwned = 8">pub</b>', publishedAt: new Date(), language: 'en', contentText: hostile, contentHtml: hostile,
      structuredIndicators: '[]', referenceUrls: '[]', tags: [], raw: null, contentHash: id, createdAt: new Date(), updatedAt: new Date(), processedAt: new Date(),
      severity: 'high', relevance: 50, platforms: [], summary: `<script>window.__pwned = 9</script>`, tldr: '<img src=x onerror="window.__pwned = 10">', classification: '{}', iocs: '{}', canonicalKey: null,
    }).execute();
    for (const url of [`/intel/items/${id}`, '/intel/items?search=Hostile']) {
      await visit(url, /Hostile <script>window.__pwned = 6<\/script>/);
      await page.mouse.move(10, 10);
      const state = await page.evaluate(`({
        pwned: window.__pwned ?? null,
        inlineScripts: document.querySelectorAll('script:not([src])').length,
        jsLinks: document.querySelectorAll('a[href^="javascript:" i]').length,
        handlers: [...document.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
        images: document.querySelectorAll('main img, main svg').length,
      })`);
      expect(state, url).toEqual({ pwned: null, inlineScripts: 0, jsLinks: 0, handlers: 0, images: 0 });
    }
    await expect(page.getByText('<script>window.__pwned = 1</script>', { exact: false }).count()).resolves.toBe(0); // list view shows the tldr, not the text
    await visit(`/intel/items/${id}`, /Hostile/);
    await page.getByText('<script>window.__pwned = 1</script>', { exact: false }).first().waitFor();
    await shot('xss-inert');
  }, JOURNEY_MS);

  // One test per screen, each with its own time budget: 15 axe scans in one test outran a single
  // budget on a loaded machine (2 cores at load 25), which is no accessibility finding.
  const axeScreens: Array<[string, () => string]> = [
    ['insights', () => '/insights'],
    ['a run', () => `/agents/${seeded.agentId}/runs/${seeded.runId}`],
    ['an alert with duplicates', () => `/alerts/${seeded.dupAlertId}`],
    ['the alert queue', () => '/alerts'],
    ['an alert', () => `/alerts/${seeded.alertId}`],
    ['an intel item', () => `/intel/items/${seeded.itemId}`],
    ['IOC search', () => '/intel/iocs'],
    ['API keys', () => '/settings/api-keys'],
    ['the hunt', () => '/hunt'],
    ['a threat', () => `/hunt/${seeded.threatId}`],
    ['triage routes', () => '/triage-routes'],
    ['a destination', () => `/destinations/${seeded.destinationId}`],
    ['a new destination', () => '/destinations/new'],
    ['an agent', () => `/agents/${seeded.agentId}`],
    ['evaluations', () => `/evaluations?agentId=${seeded.agentId}`],
  ];
  it.each(axeScreens)('has no serious accessibility violations (axe) on %s', async (_name, path) => {
    const url = path();
    await page.goto(`${base}${url}`);
    await loaded();
    expect({ url, violations: await seriousViolations() }).toEqual({ url, violations: [] });
  }, JOURNEY_MS);

  it('has no serious accessibility violations (axe) in the other theme', async () => {
    await page.goto(`${base}/alerts`);
    const toggle = page.getByRole('button', { name: /Switch to (light|dark) theme/ });
    const before = await page.evaluate<string>('document.documentElement.dataset.theme');
    await toggle.click();
    const after = await page.evaluate<string>('document.documentElement.dataset.theme');
    expect(after).not.toBe(before);
    await page.getByText('Impossible travel for bob@example.com').waitFor();
    expect(await seriousViolations()).toEqual([]);
    await shot(`alerts-${after}`);
    for (const url of ['/insights', `/destinations/${seeded.failingDestinationId}`, `/alerts/${seeded.dupAlertId}`, '/hunt', `/hunt/${seeded.threatId}`, '/triage-routes', `/agents/${seeded.agentId}`]) {
      await page.goto(`${base}${url}`);
      await loaded();
      expect({ url, theme: after, violations: await seriousViolations() }).toEqual({ url, theme: after, violations: [] });
    }
    await page.goto(`${base}/insights`);
    await loaded();
    await shot(`insights-${after}`);
  }, JOURNEY_MS);

  it('works at 390 px and from the keyboard', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [name, url] of [['alerts-phone', '/alerts'], ['item-phone', `/intel/items/${seeded.itemId}`], ['alert-phone', `/alerts/${seeded.alertId}`]] as const) {
      await page.goto(`${base}${url}`);
      await loaded();
      expect(await page.evaluate<number>('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(390);
      await shot(name);
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.goto(`${base}/alerts`);
    await page.getByText('Impossible travel for bob@example.com').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate<string>('document.activeElement?.id')).toBe('main');
    // Tab order reaches the rows' links; Enter opens one.
    for (let i = 0; i < 40 && !(await page.evaluate<boolean>("document.activeElement?.tagName === 'A' && document.activeElement.textContent.includes('Impossible travel')")); i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /Impossible travel for bob@example.com/ }).waitFor();
  }, JOURNEY_MS);

  it('signs in from a one-time link, and signing out ends the session', async () => {
    const link = await createLoginLink(t.database.db, { email: 'admin@a.test', baseUrl: base });
    const fresh = await browser.newContext();
    const other = await fresh.newPage();
    await other.goto(link.url);
    await other.getByRole('heading', { name: 'Insights' }).waitFor();
    expect(new URL(other.url()).hash).toBe('');
    const reuse = await fresh.newPage();
    await fresh.clearCookies();
    await reuse.goto(link.url);
    await reuse.getByText('The sign-in link is invalid, expired or already used').waitFor();
    await fresh.close();

    const cookie = (await context.cookies()).find((c) => c.name === 'rampart_session')!;
    await page.goto(`${base}/alerts`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Rampart' }).waitFor();
    const after = await fetch(`${base}/api/alerts`, { headers: { cookie: `rampart_session=${cookie.value}` } });
    expect(after.status).toBe(401);
  }, JOURNEY_MS);
});
