import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { uuidv7 } from 'uuidv7';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { buildConsole } from '../../scripts/build-console.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { configureModel, createAgent } from '../support/agents.js';
import { startServer } from '../support/fakes/http-server.js';
import { startFakeOpenAI, type FakeOpenAI, type OpenAIRequest, type ScriptedTurn } from '../support/fakes/openai-server.js';
import { startFakeMcp, type FakeMcp } from '../support/fakes/mcp-server.js';
import { syncRunner } from '../support/sync.js';

/**
 * Issue 47 as a new team reads the console (Chromium at 1,440 × 900, the size the issue was
 * filed at): item 4 (restoring a code-managed agent: the document to paste, or a forced restore),
 * 8 (an evaluation's "Sandboxed calls" shows the calls that really ran, with their effect),
 * 9 (the confusion matrix's header and readable labels), 12 (coverage with no intel to compare
 * with), 13 (every ATT&CK tactic reachable, Exfiltration and Impact included) and 16 (the run
 * transcript's JSON as indented, collapsible code blocks). Each with a screenshot in screenshots/
 * and assertions on the text a person reads. Skipped without Chromium (console-e2e.test.ts).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);
const SHOTS = path.resolve(import.meta.dirname, '../../screenshots');
const JOURNEY_MS = 120_000;
/** A GuardDuty finding as EventBridge delivers it (test/fixtures/guardduty, see its README). */
const GUARDDUTY = JSON.parse(fs.readFileSync(new URL('../fixtures/guardduty/ssh-brute-force.eventbridge.json', import.meta.url), 'utf8'));
/** A SigmaHQ rule naming an ATT&CK id newer than the shipped catalog (test/fixtures/sigma, DRL 1.1). */
const CLOUDTRAIL_RULE = fs.readFileSync(new URL('../fixtures/sigma/aws_cloudtrail_disable_logging.yml', import.meta.url), 'utf8');

let t: TestContext;
let base: string;
let key: string;
let openai: FakeOpenAI;
let mcp: FakeMcp;
let worker: WorkerRunner;
let browser: Browser;
let page: Page;
const closers: Array<() => Promise<void>> = [];

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `newteam-${name}.png`), fullPage: true });
}

async function visit(url: string, text: string | RegExp): Promise<void> {
  await page.goto(`${base}${url}`);
  await page.getByText(text).first().waitFor({ timeout: 15_000 });
}

/** The evaluated agent: escalates E1 after looking the host up twice (a read-only MCP tool that really runs), closes B1 as a false positive. */
function agentTurn(req: OpenAIRequest): ScriptedTurn {
  const messages = req.body.messages ?? [];
  if (messages.some((m) => m.role === 'tool')) return { text: 'Triage done.', usage: { inputTokens: 100, outputTokens: 10 } };
  const user = String(messages.find((m) => m.role === 'user')?.content ?? '');
  if (user.includes('E1 ')) {
    return {
      toolCalls: [
        { name: 'mcp__inventory__lookup_asset', args: { hostname: 'web-01.corp.example' } },
        { name: 'mcp__inventory__lookup_asset', args: { hostname: 'web-02.corp.example' } },
        { name: 'set_alert_status', args: { status: 'escalated', reason: 'SSH brute force against an exposed host' } },
      ],
      usage: { inputTokens: 100, outputTokens: 20 },
    };
  }
  return { toolCalls: [{ name: 'set_alert_status', args: { status: 'closed_false_positive', reason: 'scanner noise' } }], usage: { inputTokens: 100, outputTokens: 20 } };
}

describe.skipIf(!HAVE_CHROMIUM)('issue 47 in the console (Chromium)', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await buildConsole({ ifStale: true });
    t = await createTestApp({ env: { RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
    key = t.orgA.apiKey.key;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    openai = await startFakeOpenAI({ script: agentTurn });
    await configureModel(t, key, { name: 'fake', type: 'openai-compatible', baseUrl: openai.url, alias: 'default', modelId: 'local-model' });
    mcp = await startFakeMcp({
      tools: [{ name: 'lookup_asset', description: 'Look up an asset', inputSchema: { hostname: z.string() }, annotations: { readOnlyHint: true }, handler: () => ({ content: [{ type: 'text', text: 'web-01: owner=platform' }] }) }],
    });
    expect((await t.app.inject({ method: 'POST', url: '/api/mcp-servers', headers: bearer(key), payload: { name: 'inventory', url: mcp.url } })).statusCode).toBe(200);
    worker = await startServiceWorker(t, { deps: { baseUrl: base } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    page = await context.newPage();
    page.on('dialog', (d) => {
      throw new Error(`unexpected dialog: ${d.message()}`);
    });
    await page.goto(`${base}/`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Insights' }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await openai?.close();
    await mcp?.close();
    for (const close of closers) await close();
    await t?.close();
  }, 60_000);

  it('item 12: coverage says there is no intel to compare with, naming the failing source and its error, instead of "No gap"', async () => {
    const feed = await startServer((_req, res) => {
      res.statusCode = 503;
      res.end('maintenance');
    });
    closers.push(feed.close);
    const source = await t.app.inject({ method: 'POST', url: '/sources', headers: bearer(key), payload: { kind: 'rss', name: 'Vendor advisories', feedUrl: `${feed.url}/feed.xml` } });
    expect(source.statusCode, source.body).toBe(200);
    const { state } = await syncRunner(t.database.db, { secrets: t.secrets }).sync(t.orgA.organization.id, source.json().id);
    expect(state.lastStatus).toBe('error');

    await visit('/coverage', 'Matrix');
    const notice = page.getByRole('status').filter({ has: page.getByRole('heading', { name: 'No intel to compare with' }) });
    await notice.waitFor();
    await notice.getByText(/^The intel names no ATT&CK technique: 1 of \d+ sources failed their last sync\./).waitFor();
    await notice.getByRole('list', { name: 'Failing sources' }).getByText(`Vendor advisories: ${state.lastError}`).waitFor();
    expect(state.lastError).toMatch(/503/);
    // The gaps section says the same, never "No gap".
    const gaps = page.getByRole('region', { name: 'Top gaps' });
    await gaps.getByText(/^No intel to compare with: 1 source of \d+ failed to sync \(Vendor advisories: /).waitFor();
    expect(await page.getByText('No gap: every technique the intel names is covered.').count()).toBe(0);
    await shot('coverage-no-intel');
  }, JOURNEY_MS);

  it('item 13 (and 14): every tactic is a column, Exfiltration and Impact reachable by a tactic link and by the keyboard; a rule newer than the catalog counts, marked', async () => {
    // Intel naming a technique of each end of the matrix, and a SigmaHQ rule naming T1685.002.
    const org = t.orgA.organization.id;
    const now = new Date();
    const sourceId = uuidv7();
    await t.database.db.insertInto('intelSources').values({ id: sourceId, organizationId: org, builtinKey: null, name: 'seeded', displayName: 'Seeded reports', kind: 'rss', apiType: null, feedUrl: 'https://seed.example/feed', serverUrl: null, collectionId: null, authType: null, username: null, apiKeyCiphertext: null, scheduleCron: '0 * * * *', maxEntries: 100, createdBy: null, createdAt: now, updatedAt: now }).execute();
    for (const [title, technique] of [['Recon of VPN portals', 'T1595'], ['Exfiltration to cloud storage', 'T1567'], ['Ransomware encrypts file shares', 'T1486']] as const) {
      await t.database.db.insertInto('intelItems').values({
        id: uuidv7(), organizationId: org, sourceId, externalId: randomUUID(), title, url: 'https://seed.example/r', publisher: 'Seed', publishedAt: now, language: 'en', contentText: 'text', contentHtml: null,
        structuredIndicators: '[]', referenceUrls: '[]', tags: [], raw: null, contentHash: randomUUID(), createdAt: now, updatedAt: now, processedAt: now, status: 'processed', duplicateOf: null,
        classification: JSON.stringify({ attack: [{ technique, subTechnique: '', techniqueName: '', confidence: 0.9 }], actor: [], malware: [] }),
      }).execute();
    }
    const imported = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: bearer(key), payload: { format: 'sigma', content: CLOUDTRAIL_RULE } });
    expect(imported.json().created).toHaveLength(1);
    const api = (await t.app.inject({ url: '/api/coverage/attack', headers: bearer(key) })).json();
    expect(api.tactics).toHaveLength(14);

    await visit('/coverage', 'Matrix');
    const matrix = page.getByRole('region', { name: 'ATT&CK matrix, scrolls sideways' });
    const headings = await matrix.getByRole('heading', { level: 3 }).allTextContents();
    expect(headings).toEqual([...api.tactics.map((x: { name: string }) => x.name), 'Unknown to the catalog (v18.1)']);
    expect(headings).toEqual(expect.arrayContaining(['Exfiltration', 'Impact']));
    // The cue says how to reach what does not fit.
    await page.getByRole('navigation', { name: 'Tactics' }).getByText(/^15 columns — the matrix scrolls sideways/).waitFor();
    // Intel now names techniques: the notice is only the failing source's warning.
    await page.getByRole('heading', { name: 'Some intel sources are failing' }).waitFor();
    // T1685 is counted, marked unknown to the catalog.
    await matrix.getByRole('button', { name: /T1685 unknown to the catalog \(v18\.1\)/ }).waitFor();
    await shot('coverage-matrix-start');

    const inView = async (name: string) => {
      const box = await matrix.getByRole('heading', { name, exact: true }).boundingBox();
      return box !== null && box.x >= 0 && box.x + box.width <= 1440;
    };
    expect(await inView('Impact')).toBe(false);
    // By the keyboard: the region takes the focus and the arrow keys scroll it to the end.
    await matrix.focus();
    const scrollLeft = () => page.evaluate<number>("document.querySelector('.coverage-matrix').scrollLeft");
    await page.keyboard.press('End');
    for (let i = 0; i < 60 && !(await inView('Impact')); i++) await page.keyboard.press('ArrowRight');
    expect(await scrollLeft()).toBeGreaterThan(0);
    expect(await inView('Impact')).toBe(true);
    expect(await inView('Exfiltration')).toBe(true);
    await matrix.getByRole('button', { name: /T1486 Data Encrypted for Impact/ }).waitFor({ state: 'visible' });
    await shot('coverage-matrix-impact');
    // By a tactic link: back to the first column, then straight to Exfiltration.
    await page.getByRole('navigation', { name: 'Tactics' }).getByRole('button', { name: 'Reconnaissance' }).click();
    await expect.poll(() => inView('Reconnaissance')).toBe(true);
    await page.getByRole('navigation', { name: 'Tactics' }).getByRole('button', { name: 'Exfiltration' }).click();
    await expect.poll(() => inView('Exfiltration')).toBe(true);
    await matrix.getByRole('button', { name: /T1567 Exfiltration Over Web Service/ }).click();
    await page.locator('section.panel').getByRole('heading', { name: /^T1567 Exfiltration Over Web Service/ }).waitFor();
  }, JOURNEY_MS);

  it('items 8, 9 and 16: an evaluation lists the sandboxed calls that really ran, the confusion matrix reads in words, the transcript shows the finding as collapsible code', async () => {
    const agentId = await createAgent(t, key, { name: 'Cloud triage', modelAlias: 'default', toolNames: ['set_alert_status', 'mcp:inventory/*'] });
    const alertCase = (title: string, disposition: string) => ({
      alert: { title: `${title} SSH brute force`, severity: 'high', source: 'GuardDuty', payload: { ...GUARDDUTY, detail: { ...GUARDDUTY.detail, title: `${title} SSH brute force` } } },
      expected: { disposition },
    });
    const dataset = await t.app.inject({ method: 'POST', url: '/api/evaluation-datasets', headers: bearer(key), payload: { name: 'GuardDuty findings', cases: [alertCase('E1', 'escalate'), alertCase('B1', 'benign')] } });
    expect(dataset.statusCode, dataset.body).toBe(200);
    const started = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/evaluations`, headers: bearer(key), payload: { datasetId: dataset.json().id } });
    expect(started.statusCode, started.body).toBe(202);
    const evaluationId = started.json().id as string;
    await expect.poll(async () => (await t.app.inject({ url: `/api/evaluations/${evaluationId}`, headers: bearer(key) })).json().status, { timeout: 60_000 }).toBe('done');
    const evaluation = (await t.app.inject({ url: `/api/evaluations/${evaluationId}`, headers: bearer(key) })).json();
    const e1 = evaluation.cases.find((c: { title: string }) => c.title.startsWith('E1'));
    expect(e1.toolCalls.map((c: { toolName: string; effect: string }) => `${c.toolName}:${c.effect}`)).toEqual(['mcp__inventory__lookup_asset:called', 'mcp__inventory__lookup_asset:called', 'set_alert_status:shadow']);
    expect(mcp.calls.map((c) => c.name)).toEqual(['lookup_asset', 'lookup_asset']);

    await visit(`/evaluations/${evaluationId}`, 'Sandboxed calls');
    // Item 8: the read-only MCP tool that reached its server twice is listed, with what it did.
    const row = page.getByRole('row', { name: /E1 SSH brute force/ });
    await row.getByText('mcp__inventory__lookup_asset').waitFor();
    expect((await row.getByRole('listitem').allTextContents()).map((s) => s.trim())).toEqual([
      'mcp__inventory__lookup_asset × 2 (ran (read-only))',
      expect.stringMatching(/^set_alert_status \(.+\)$/),
    ]);
    // Item 9: the confusion matrix's header is plain text (no U+FF3C), its labels words, not enum names.
    const confusion = page.getByRole('table', { name: 'Confusion matrix: rows expected, columns verdict' });
    const header = await confusion.locator('thead th').allTextContents();
    expect(header).toEqual(['Expected (rows) / verdict (columns)', 'Escalate', 'False positive', 'Benign', 'No verdict']);
    expect(await confusion.locator('tbody th').allTextContents()).toEqual(['Escalate', 'False positive', 'Benign']);
    const text = await confusion.textContent();
    expect(text).not.toMatch(/FALSE_POSITIVE|false_positive|\uFF3C/);
    await shot('evaluation');

    // Item 16: the case's run transcript shows the finding as an indented code block that folds.
    await row.getByRole('link').last().click();
    // The alert is one block, the finding (its payload) another.
    await page.locator('details.json-block').first().waitFor();
    expect(await page.locator('details.json-block').count()).toBeGreaterThanOrEqual(2);
    const block = page.locator('details.json-block').filter({ hasText: 'UnauthorizedAccess:EC2/SSHBruteForce' }).first();
    await block.waitFor();
    expect(await block.locator('summary').textContent()).toMatch(/^JSON \(\d+ fields\)$/);
    const code = block.locator('pre.code-block');
    const json = (await code.textContent())!;
    // The EventBridge event indented two spaces per level.
    expect(json).toMatch(/\n +"detail-type": "GuardDuty Finding"/);
    expect(json).toMatch(/\n( +)"detail": \{\n\1 +"/);
    expect(json).toContain('"type": "UnauthorizedAccess:EC2/SSHBruteForce"');
    expect(await page.evaluate<string>("getComputedStyle(document.querySelector('details.json-block pre.code-block')).fontFamily")).toMatch(/mono/i);
    await shot('run-transcript-json');
    await block.locator('summary').click();
    await expect.poll(() => code.isVisible()).toBe(false);
    await block.locator('summary').click();
    await expect.poll(() => code.isVisible()).toBe(true);
  }, JOURNEY_MS);

  it('item 4: restoring a code-managed agent shows the version\'s document to paste, or restores it here marked as drifted', async () => {
    const doc = (systemPrompt: string) => ({ apiVersion: 'rampart/v1', kind: 'Agent', metadata: { name: 'cloud-responder' }, spec: { systemPrompt, maxSteps: 5 } });
    for (const prompt of ['You triage cloud findings.', 'You triage cloud findings and check the region.']) {
      const applied = await t.app.inject({ method: 'POST', url: '/api/config/apply', headers: bearer(key), payload: { documents: [doc(prompt)], source: 'c0ffee1' } });
      expect(applied.statusCode, applied.body).toBe(200);
    }
    const agent = ((await t.app.inject({ url: '/api/agents?limit=200', headers: bearer(key) })).json().agents as Array<{ id: string; name: string }>).find((a) => a.name === 'cloud-responder')!;
    await visit(`/agents/${agent.id}`, 'History');
    const history = page.getByRole('region', { name: 'History' });
    await history.getByRole('button', { name: 'Restore v1' }).click();
    const ask = page.getByRole('group', { name: 'Restore v1 of an agent managed by code' });
    await ask.getByText(/^This agent is managed by code: put v1's document in its file and run rampart apply/).waitFor();
    const yaml = ask.getByLabel('v1 as an Agent document (YAML)');
    await yaml.getByText(/kind: Agent/).waitFor();
    expect(await yaml.textContent()).toContain('systemPrompt: You triage cloud findings.');
    await ask.getByText(/^Restoring here instead is an emergency change: the agent is marked as drifted from code/).waitFor();
    await shot('agent-restore-code-managed');
    await ask.getByRole('button', { name: 'Restore v1 here anyway' }).click();
    await history.getByText('v3').first().waitFor();
    const restored = (await t.app.inject({ url: `/api/agents/${agent.id}`, headers: bearer(key) })).json();
    expect(restored).toMatchObject({ version: 3, systemPrompt: 'You triage cloud findings.', managedBy: 'code', driftedFromCodeAt: expect.any(String) });
    // No error shown: the 409 the issue met is not what the console gets.
    expect(await page.getByRole('alert').count()).toBe(0);
  }, JOURNEY_MS);
});
