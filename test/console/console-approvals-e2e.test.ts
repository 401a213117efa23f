import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { z } from 'zod';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { createGuardedClient } from '../../src/platform/outbound/index.js';
import { buildToolSet } from '../../src/modules/tools/toolset.js';
import { TOOLS } from '../../src/composition.js';
import { buildConsole } from '../../scripts/build-console.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { userWithPermissions } from '../support/actors.js';
import { configureModel, createAgent, startRunWorker, waitForRun } from '../support/agents.js';
import { startFakeOpenAI, type FakeOpenAI, type OpenAIRequest } from '../support/fakes/openai-server.js';
import { startFakeMcp, type FakeMcp } from '../support/fakes/mcp-server.js';

/**
 * The console's Approvals (issue 43, docs/approvals.md#in-the-console) in a real Chromium, against
 * the real API, the real run worker, a real MCP server (the SDK's own) with a destructive
 * `isolate_host`, and a scripted model: the queue, approving from it, the run page's panel,
 * denying with a comment, a request decided meanwhile, a user who may not decide, the alert
 * page's panel and the agent form's tool policies. Each screen is checked with axe and for the
 * text a person reads in it (what its screenshot shows). See console-e2e.test.ts for the rest.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) process.stderr.write(`console-approvals-e2e: skipped, ${CHROMIUM} is not installed (apt-get install -y chromium)\n`);
const SHOTS = path.resolve(import.meta.dirname, '../../screenshots');
const STEP_MS = 120_000;

let t: TestContext;
let base: string;
let key: string;
let openai: FakeOpenAI;
let mcp: FakeMcp;
let worker: WorkerRunner;
let browser: Browser;
const contexts: BrowserContext[] = [];
let page: Page;
const seeded = { agentId: '', alertId: '', alertDisplayId: '', alertRunId: '' };

/** The scripted model: asks to isolate the host its input names, then reports what the tool answered. */
function model(req: OpenAIRequest) {
  const messages = req.body.messages ?? [];
  const last = messages.at(-1);
  if (last?.role === 'tool') return { text: `Outcome for the host: ${typeof last.content === 'string' ? last.content : JSON.stringify(last.content)}` };
  const said = messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
  const host = /\b(?:ws|web|db)-\d+\b/.exec(said)?.[0] ?? 'unknown-host';
  return { text: `${host} beacons to a known C2 every 60 s; isolating it stops the spread.`, toolCalls: [{ name: 'mcp__edr__isolate_host', args: { hostname: host, ticket: 'INC-4411', options: { keepManagement: true } } }] };
}

const isolateCalls = () => mcp.calls.filter((c) => c.name === 'isolate_host');

const DOCS_IMAGES = process.env.UPDATE_DOCS_SCREENSHOTS ? path.resolve(import.meta.dirname, '../../docs/images') : null;

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `approvals-${name}.png`), fullPage: true });
}

/** docs/approvals.md's image (UPDATE_DOCS_SCREENSHOTS=1): the visible part of the screen, to keep the PNG small. */
async function docShot(name: string): Promise<void> {
  if (DOCS_IMAGES) await page.screenshot({ path: path.join(DOCS_IMAGES, `console-${name}.png`) });
}

/** The text of the page's main part as a person reads it (innerText: what is rendered, not hidden). */
const mainText = () => page.locator('main').innerText();

async function seriousViolations(): Promise<Array<{ id: string; impact: string; nodes: string[] }>> {
  const source = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const result = await page.evaluate<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }>(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })",
  );
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
}

async function signedIn(apiKey: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const p = await context.newPage();
  p.on('dialog', (d) => {
    throw new Error(`unexpected dialog: ${d.message()}`);
  });
  await p.goto(`${base}/sign-in`);
  await p.getByLabel('API key').fill(apiKey);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Insights' }).waitFor({ timeout: 20_000 });
  return p;
}

/** A run of the agent on `input`, paused on its isolate_host request; returns the run and the request. */
async function pausedRun(input: string): Promise<{ runId: string; approvalId: string }> {
  const started = await t.app.inject({ method: 'POST', url: `/api/agents/${seeded.agentId}/run-async`, headers: bearer(key), payload: { input } });
  expect(started.statusCode, started.body).toBe(200);
  const runId = started.json().runId as string;
  expect((await waitForRun(t, key, seeded.agentId, runId, ['awaiting_approval', 'done', 'error'], 30_000)).status).toBe('awaiting_approval');
  const [approval] = (await t.app.inject({ url: `/api/approvals?runId=${runId}`, headers: bearer(key) })).json().approvals;
  return { runId, approvalId: approval.id };
}

const approvalOf = async (id: string) => (await t.app.inject({ url: `/api/approvals/${id}`, headers: bearer(key) })).json();

describe.skipIf(!HAVE_CHROMIUM)('Approvals in the console, in Chromium', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await buildConsole({ ifStale: true });
    t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
    key = t.orgA.apiKey.key;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    openai = await startFakeOpenAI({ script: model });
    mcp = await startFakeMcp({
      tools: [{
        name: 'isolate_host',
        description: 'Isolate a host from the network',
        inputSchema: { hostname: z.string(), ticket: z.string().optional(), options: z.object({ keepManagement: z.boolean() }).optional() },
        annotations: { destructiveHint: true },
        handler: ({ hostname }) => ({ content: [{ type: 'text', text: `${String(hostname)} isolated` }] }),
      }],
    });
    await configureModel(t, key, { name: 'fake', type: 'openai-compatible', baseUrl: openai.url, alias: 'default', modelId: 'local-model' });
    const server = await t.app.inject({ method: 'POST', url: '/api/mcp-servers', headers: bearer(key), payload: { name: 'edr', url: mcp.url } });
    expect(server.statusCode, server.body).toBe(200);
    const deps = { db: t.database.db, secrets: t.secrets, http: createGuardedClient({ allowPrivateNetworks: true, retries: 0 }), logger: pino({ level: 'silent' }), catalog: TOOLS };
    worker = await startRunWorker(t, (ctx, names) => buildToolSet(deps, ctx, names));
    seeded.agentId = await createAgent(t, key, { name: 'EDR responder', toolNames: ['mcp:edr/*'] });
    // An alert triaged by the agent: its run asks to isolate the host the alert names.
    const alert = await t.app.inject({ method: 'POST', url: '/api/alerts', headers: bearer(key), payload: { title: 'C2 beacon from ws-17', severity: 'high', payload: { host: 'ws-17' } } });
    expect(alert.statusCode, alert.body).toBe(200);
    seeded.alertId = alert.json().alert.id;
    seeded.alertDisplayId = alert.json().alert.displayId;
    const assigned = await t.app.inject({ method: 'POST', url: `/api/alerts/${seeded.alertId}/assign`, headers: bearer(key), payload: { agentId: seeded.agentId } });
    expect(assigned.statusCode, assigned.body).toBe(200);
    seeded.alertRunId = (await t.app.inject({ url: `/api/alerts/${seeded.alertId}`, headers: bearer(key) })).json().alert.triageRunId;
    expect((await waitForRun(t, key, seeded.agentId, seeded.alertRunId, ['awaiting_approval', 'done', 'error'], 30_000)).status).toBe('awaiting_approval');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await signedIn(key);
  }, 240_000);

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await worker?.stop();
    await openai?.close();
    await mcp?.close();
    await t?.close();
  }, 60_000);

  it('the queue lists the pending request as the model asked it; approving from the queue runs the call once with exactly those arguments', async () => {
    const [request] = (await t.app.inject({ url: `/api/approvals?runId=${seeded.alertRunId}`, headers: bearer(key) })).json().approvals;
    expect(isolateCalls()).toEqual([]);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    const card = page.getByRole('article', { name: 'Approval request: mcp:edr/isolate_host' });
    await card.waitFor();
    // What a person reads before deciding: tool, arguments as formatted JSON, reason, agent, alert, times.
    const text = await card.innerText();
    expect(text).toContain('mcp:edr/isolate_host');
    expect(text).toContain('pending');
    expect(await card.locator('pre.json').innerText()).toBe(JSON.stringify({ hostname: 'ws-17', ticket: 'INC-4411', options: { keepManagement: true } }, null, 2));
    expect(text).toContain('ws-17 beacons to a known C2 every 60 s; isolating it stops the spread.');
    await card.getByRole('link', { name: 'EDR responder' }).waitFor();
    await card.getByRole('link', { name: seeded.alertDisplayId }).waitFor();
    expect(text).toMatch(/Requested\n[^\n]+ \((now|\d+ seconds? ago|\d+ minutes? ago)\)/);
    expect(text).toMatch(/Expires\n[^\n]+ \(in \d+ minutes\)/);
    expect(await card.getByRole('link', { name: 'mcp:edr/isolate_host' }).getAttribute('href')).toBe(`/approvals/${request.id}`);
    expect(await seriousViolations()).toEqual([]);
    await shot('queue');
    await docShot('approvals');

    await card.getByLabel(/Comment/).fill('Confirmed with the desktop team');
    await card.getByRole('button', { name: 'Approve' }).click();
    // Approved: the request leaves the pending queue.
    await page.getByText('No request waits for a decision.').waitFor({ timeout: 15_000 });
    expect((await waitForRun(t, key, seeded.agentId, seeded.alertRunId, undefined, 30_000)).status).toBe('done');
    expect(isolateCalls()).toEqual([expect.objectContaining({ arguments: { hostname: 'ws-17', ticket: 'INC-4411', options: { keepManagement: true } } })]);
    const decided = await approvalOf(request.id);
    expect(decided).toMatchObject({ status: 'executed', decidedVia: 'console', comment: 'Confirmed with the desktop team', decidedBy: { name: expect.any(String) } });

    // The status filter shows it decided: who, from where, the outcome.
    await page.getByLabel('Status').selectOption('executed');
    const done = page.getByRole('article', { name: 'Approval request: mcp:edr/isolate_host' });
    await done.getByText('Approved: the call ran once, with the arguments shown.').waitFor();
    const doneText = await done.innerText();
    expect(doneText).toContain(`Decided by\n${decided.decidedBy.name}`);
    expect(doneText).toContain('from the console');
    expect(doneText).toContain('Confirmed with the desktop team');
    expect(new URL(page.url()).search).toBe('?status=executed');
    await shot('queue-decided');
  }, STEP_MS);

  it('the run page shows the run\'s request in a panel; denying there with a comment gives the model the denial and the run goes on', async () => {
    const { runId, approvalId } = await pausedRun('Contain db-7 now');
    await page.goto(`${base}/agents/${seeded.agentId}/runs/${runId}`);
    const panel = page.getByRole('region', { name: /Approvals/ });
    await panel.getByText('1 pending').waitFor({ timeout: 15_000 });
    const text = await mainText();
    expect(text).toContain('awaiting approval');
    expect(text).toContain('The run waits for a decision (Approvals above)');
    const card = panel.getByRole('article', { name: 'Approval request: mcp:edr/isolate_host' });
    expect(await card.innerText()).toContain('db-7 beacons to a known C2 every 60 s');
    expect(await card.locator('pre.json').innerText()).toContain('"hostname": "db-7"');
    expect(await seriousViolations()).toEqual([]);
    await shot('run-panel');

    await card.getByLabel(/Comment/).fill('db-7 is the payroll database; block the C2 at the edge instead');
    await card.getByRole('button', { name: 'Deny' }).click();
    await card.getByText('Denied: the tool was not called; the model was told why.').waitFor({ timeout: 15_000 });
    expect(await card.innerText()).toContain('db-7 is the payroll database; block the C2 at the edge instead');
    expect((await waitForRun(t, key, seeded.agentId, runId, undefined, 30_000)).status).toBe('done');
    expect(isolateCalls()).toHaveLength(1);
    const denied = await approvalOf(approvalId);
    expect(denied).toMatchObject({ status: 'denied', decidedVia: 'console' });
    // The model was given the denial, and its answer is the run's output on the page.
    const answer = `Outcome for the host: denied by ${denied.decidedBy.name}: db-7 is the payroll database; block the C2 at the edge instead`;
    await page.getByRole('region', { name: 'Output' }).getByText(answer).waitFor({ timeout: 15_000 });
    await shot('run-denied');
  }, STEP_MS);

  it('a request decided meanwhile (here through the API) answers with a message saying by whom, not an error page', async () => {
    const { approvalId } = await pausedRun('Contain web-3');
    await page.goto(`${base}/approvals/${approvalId}`);
    const card = page.getByRole('article', { name: 'Approval request: mcp:edr/isolate_host' });
    await card.getByRole('button', { name: 'Approve' }).waitFor();
    const other = await t.app.inject({ method: 'POST', url: `/api/approvals/${approvalId}/deny`, headers: bearer(key), payload: { comment: 'handled by the on-call' } });
    expect(other.statusCode, other.body).toBe(200);
    await card.getByRole('button', { name: 'Approve' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'Already decided' });
    await notice.waitFor();
    expect(await notice.innerText()).toMatch(/^Already decided by .+ at .+: denied\. Nothing was changed\.$/);
    await page.getByText('Denied: the tool was not called; the model was told why.').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect((await approvalOf(approvalId)).status).toBe('denied');
    expect(isolateCalls()).toHaveLength(1);
    await shot('already-decided');
  }, STEP_MS);

  it('a user without approval.decide reads the queue with the buttons off and the reason said', async () => {
    const { approvalId } = await pausedRun('Contain ws-88');
    const reader = await userWithPermissions(t.database.db, t.orgA.organization.id, ['approval.read', 'agent.read', 'alert.read']);
    const previous = page;
    page = await signedIn(reader.key);
    try {
      await page.goto(`${base}/approvals`);
      const card = page.getByRole('article', { name: 'Approval request: mcp:edr/isolate_host' });
      await card.waitFor();
      expect(await card.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
      expect(await card.getByRole('button', { name: 'Deny' }).isDisabled()).toBe(true);
      expect(await card.innerText()).toContain('You cannot decide: your role lacks the permission approval.decide.');
      expect(await card.getByRole('button', { name: 'Approve' }).getAttribute('aria-describedby')).toBe(`decide-reason-${approvalId}`);
      expect(await seriousViolations()).toEqual([]);
      await shot('no-decide');
    } finally {
      page = previous;
    }
    const denied = await t.app.inject({ method: 'POST', url: `/api/approvals/${approvalId}/deny`, headers: bearer(key), payload: {} });
    expect(denied.statusCode).toBe(200);
  }, STEP_MS);

  it('the alert page shows its run\'s request and what became of it', async () => {
    await page.goto(`${base}/alerts/${seeded.alertId}`);
    const panel = page.getByRole('region', { name: /Approvals/ });
    const card = panel.getByRole('article', { name: 'Approval request: mcp:edr/isolate_host' });
    await card.getByText('Approved: the call ran once, with the arguments shown.').waitFor({ timeout: 15_000 });
    const text = await card.innerText();
    expect(text).toContain('from the console');
    expect(text).toContain('Confirmed with the desktop team');
    // The alert's own page does not link the alert again; the run is linked.
    expect(await card.getByRole('link', { name: seeded.alertDisplayId }).count()).toBe(0);
    expect(await card.getByRole('link', { name: `…${seeded.alertRunId.slice(-8)}` }).getAttribute('href')).toBe(`/agents/${seeded.agentId}/runs/${seeded.alertRunId}`);
    expect(await seriousViolations()).toEqual([]);
    await shot('alert-panel');
  }, STEP_MS);

  it('Insights: the approvals pending, the time to a decision and per agent and tool what people decided, as GET /api/insights says', async () => {
    const { approvals } = (await t.app.inject({ url: '/api/insights?window=7d', headers: bearer(key) })).json();
    // Four requests, each decided by a person: approved once (executed), denied three times.
    expect(approvals).toMatchObject({ pending: 0, timeToDecision: { count: 4 }, byAgentTool: [{ agentName: 'EDR responder', toolName: 'mcp:edr/isolate_host', requests: 4, approved: 1, denied: 3, expired: 0, pending: 0 }] });
    await page.goto(`${base}/insights?window=7d`);
    const section = page.getByRole('region', { name: 'Approvals' });
    await section.getByText('Requests per agent and tool').waitFor({ timeout: 15_000 });
    const kpis = await section.getByRole('definition').allInnerTexts();
    expect(kpis.slice(0, 1)).toEqual(['0']);
    expect(await section.innerText()).toContain('Time to decision p50');
    await section.getByRole('button', { name: 'Show table' }).click();
    const row = section.getByRole('row', { name: /EDR responder · mcp:edr\/isolate_host/ });
    // Row headings are upper-cased by CSS: the text itself, then the figures as shown.
    expect(await row.locator('th').textContent()).toBe('EDR responder · mcp:edr/isolate_host');
    expect(await row.locator('td').allInnerTexts()).toEqual(['1', '3', '0', '0']);
    expect(await seriousViolations()).toEqual([]);
    await shot('insights');
  }, STEP_MS);

  it('the agent form edits a policy per tool and the approval settings, and saving keeps them', async () => {
    await page.goto(`${base}/agents/${seeded.agentId}`);
    const form = page.getByRole('form', { name: 'Agent' });
    await form.getByRole('group', { name: 'Tool policies' }).waitFor();
    // The server's wildcard, with its default said; one tool of it by name.
    const wildcard = form.getByRole('combobox', { name: 'mcp:edr/*', exact: true });
    expect(await wildcard.locator('option:checked').innerText()).toBe('default: allow for tools the server marks read-only, approve for the others');
    await form.getByLabel('Tool name').fill('isolate_host');
    await form.getByRole('button', { name: 'Add a policy for this tool' }).click();
    expect(await form.getByRole('combobox', { name: 'mcp:edr/isolate_host', exact: true }).inputValue()).toBe('approve');
    await wildcard.selectOption('allow');
    await form.getByLabel(/A request waits \(minutes/).fill('30');
    await form.getByLabel(/Require a second person/).check();
    expect(await seriousViolations()).toEqual([]);
    await form.getByRole('button', { name: 'Save agent' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    const agent = (await t.app.inject({ url: `/api/agents/${seeded.agentId}`, headers: bearer(key) })).json();
    expect(agent.toolPolicies).toEqual({ 'mcp:edr/*': 'allow', 'mcp:edr/isolate_host': 'approve' });
    expect(agent.approvalSettings).toEqual({ expiresAfterSeconds: 1800, approverRoleIds: [], approverUserIds: [], requireSecondPerson: true });
    await page.reload();
    expect(await form.getByRole('combobox', { name: 'mcp:edr/isolate_host', exact: true }).inputValue()).toBe('approve');
    expect(await form.getByLabel(/Require a second person/).isChecked()).toBe(true);
    await shot('agent-form');
  }, STEP_MS);
});
