import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../src/platform/jobs/runner.js';
import { buildConsole } from '../../scripts/build-console.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startServiceWorker } from '../support/worker.js';
import { hasShared, sharedPath } from '../support/shared-dir.js';
import { until } from '../support/until.js';

/**
 * The console's detection page (issue 44 item 5, docs/detections.md#the-console-page) in a real
 * Chromium, against the real API and the real detect worker: a real SigmaHQ rule
 * (shared/fixtures/sigma, Detection Rule License 1.1, author: Mikhail Larin, oscd.community) with
 * tests, auditd EXECVE events posted so it matches, then the page as a person reads it: title and
 * level, the tests' results, last match and today's count, the noisiest field, the Splunk query
 * and its copy button, ES|QL's refusal naming the construct; axe-clean. See console-e2e.test.ts
 * for the other screens.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) process.stderr.write(`console-detections-e2e: skipped, ${CHROMIUM} is not installed (apt-get install -y chromium)\n`);
const SHOTS = path.resolve(import.meta.dirname, '../../screenshots');
const STEP_MS = 120_000;

const RULE_FILE = 'fixtures/sigma/rules/rules/linux/auditd/execve/lnx_auditd_susp_histfile_operations.yml';
const HAVE_RULE = hasShared(RULE_FILE);
if (!HAVE_RULE) process.stderr.write(`console-detections-e2e: skipped, ${sharedPath(RULE_FILE)} is absent (the team's shared folder)\n`);
const RULE = HAVE_RULE ? fs.readFileSync(sharedPath(RULE_FILE), 'utf8') : '';

/** An auditd EXECVE record as auditbeat / Vector's `journald`-less file source ship it: the arguments as a0…aN. */
const execve = (args: string[], serial: number) => ({
  type: 'EXECVE',
  argc: String(args.length),
  ...Object.fromEntries(args.map((a, i) => [`a${i}`, a])),
  msg: `audit(1764403200.${String(serial).padStart(3, '0')}:${4200 + serial}):`,
  host: 'web-07',
});
const READ_HISTORY = execve(['cat', '/root/.bash_history'], 1);
const READ_HOSTS = execve(['cat', '/etc/hosts'], 2);

// The rule as a detection-as-code repository keeps it: SigmaHQ's text and its tests.
const RULE_WITH_TESTS = `${RULE.trimEnd()}
tests:
  - name: reading a shell history matches
    event: ${JSON.stringify(READ_HISTORY)}
    expect: match
  - name: reading another file does not
    event: ${JSON.stringify(READ_HOSTS)}
    expect: no_match
`;

let t: TestContext;
let base: string;
let key: string;
let worker: WorkerRunner;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let detectionId: string;

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `detections-${name}.png`), fullPage: true });
}

async function seriousViolations(): Promise<Array<{ id: string; impact: string; nodes: string[] }>> {
  const source = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const result = await page.evaluate<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }>(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })",
  );
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
}

/** Until the worker has matched every batch (a state, not a time). */
async function matched(): Promise<void> {
  // 30 s (what 600 tries 50 ms apart gave) bounds a hang.
  await until('every event batch to be matched', async () => (await t.database.db.selectFrom('detectEventBatches').select('id').limit(1).execute()).length === 0, { timeoutMs: 30_000, everyMs: 50 });
}

describe.skipIf(!HAVE_CHROMIUM || !HAVE_RULE)('the detection page in the console, in Chromium', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await buildConsole({ ifStale: true });
    t = await createTestApp();
    key = t.orgA.apiKey.key;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    worker = await startServiceWorker(t, { concurrency: 1 });

    const imported = await t.app.inject({ method: 'POST', url: '/api/code-detections/import', headers: bearer(key), payload: { format: 'sigma', content: RULE_WITH_TESTS } });
    expect(imported.statusCode, imported.body).toBe(200);
    detectionId = imported.json().created[0].id;
    // Three matching events (one batch), one that does not match.
    const events = [READ_HISTORY, execve(['cp', '/home/deploy/.zsh_history', '/tmp/h'], 3), execve(['rm', '-f', '/root/.bash_history'], 4), READ_HOSTS];
    const posted = await t.app.inject({ method: 'POST', url: '/api/events?product=linux&service=auditd', headers: { ...bearer(key), 'content-type': 'application/x-ndjson' }, payload: events.map((e) => JSON.stringify(e)).join('\n') });
    expect(posted.statusCode, posted.body).toBe(202);
    await matched();

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    // The copy button writes to the clipboard; the test reads it back.
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    page = await context.newPage();
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Insights' }).waitFor({ timeout: 20_000 });
  }, 240_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await worker?.stop();
    await t?.close();
  }, 60_000);

  it('from the Detections list to the page: level, tests and their result, last match, today\'s count, the noisiest field', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Detections' }).click();
    await page.getByRole('heading', { name: 'Detections', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Suspicious History File Operations - Linux' }).click();
    await page.getByRole('heading', { name: 'Suspicious History File Operations - Linux', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/detections/${detectionId}`);

    expect(await page.locator('dl.facts').innerText()).toMatch(/Level\s+medium\s+Severity of its alerts\s+medium\s+Status\s+test/);
    expect(await page.locator('dl.facts').innerText()).toContain('linux / auditd');

    // Tests: both pass, each event's matched selections shown.
    const tests = page.getByRole('region', { name: 'Tests' });
    await tests.getByText('2 of 2 tests pass').waitFor();
    const rows = tests.locator('tbody tr');
    expect(await rows.nth(0).innerText()).toMatch(/reading a shell history matches\s+match\s+passed\s+Event 1: matched \(execve, history\)/i);
    expect(await rows.nth(1).innerText()).toMatch(/reading another file does not\s+no match\s+passed\s+Event 1: not matched \(execve\)/i);
    await tests.getByRole('button', { name: 'Run again' }).click();
    await tests.getByText('2 of 2 tests pass').waitFor();

    // Matches: the last match (a time, not "never"), 3 in the window, 3 today in the chart's table.
    const matches = page.getByRole('region', { name: 'Matches' });
    const summary = matches.locator('dl.kpis');
    await summary.locator('time').first().waitFor();
    expect(await summary.innerText()).toMatch(/Last match\s+\S.+\s+Matches, last 30 days\s+3/);
    await matches.getByRole('button', { name: 'Show table' }).click();
    const today = new Date().toISOString().slice(0, 10);
    expect(await matches.locator('table[data-chart="matches-per-day"] tr', { hasText: today }).innerText()).toBe(`${today}\t3`);
    expect(await matches.locator('table[data-chart="matches-per-day"] tbody tr').count()).toBe(30);
    // The latest matched events, linked to their alert.
    expect(await matches.getByRole('link', { name: 'Open alert' }).count()).toBe(3);

    // The noisiest rule field: the rule's only field, in all three matched events.
    const noisy = matches.locator('table').filter({ has: page.getByRole('columnheader', { name: 'Field' }) });
    expect(await noisy.locator('tbody tr').first().innerText()).toBe('type\tEXECVE\t3\texecve');

    // The source, read-only and monospaced.
    const source = page.getByLabel('Rule text (read-only)');
    expect(await source.innerText()).toContain("- name: reading a shell history matches");
    expect(await source.evaluate((el) => (globalThis as unknown as { getComputedStyle: (e: unknown) => { fontFamily: string } }).getComputedStyle(el).fontFamily)).toMatch(/mono/i);
    expect(await seriousViolations()).toEqual([]);
    await shot('page');
  }, STEP_MS);

  it('the Splunk query, copied as the API writes it; ES|QL\'s refusal names the construct', async () => {
    const api = (await t.app.inject({ url: `/api/code-detections/${detectionId}/query?target=splunk`, headers: bearer(key) })).json();
    const splunk = page.getByLabel('Splunk (SPL) query', { exact: true });
    await splunk.waitFor();
    expect(await splunk.innerText()).toBe(api.queries[0]);
    expect(api.queries[0]).toContain('type="EXECVE"');
    await page.getByRole('button', { name: 'Copy the Splunk (SPL) query' }).click();
    await page.getByRole('button', { name: 'Copy the Splunk (SPL) query' }).getByText('Copied').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(api.queries[0]);

    await page.getByLabel('Language').selectOption('esql');
    const refusal = page.getByRole('region', { name: 'Query in your SIEM' }).getByRole('alert');
    await refusal.waitFor();
    const esql = (await t.app.inject({ url: `/api/code-detections/${detectionId}/query?target=esql`, headers: bearer(key) })).json();
    expect((await refusal.innerText()).split(/\n+/)).toEqual([`Elasticsearch (ES|QL) cannot take this rule: ${esql.construct}.`, esql.error]);
    expect(esql.construct).toBe('keywords');
    expect(new URL(page.url()).searchParams.get('target')).toBe('esql');

    // A pipeline that cannot place the rule: Splunk's CIM data models have no data set for auditd.
    await page.getByLabel('Language').selectOption('splunk');
    await page.getByLabel('Pipeline').selectOption('splunk_cim_data_model');
    await refusal.getByText('Splunk (SPL) cannot take this rule: pipeline splunk_cim_data_model.').waitFor();
    expect(new URL(page.url()).searchParams.get('pipeline')).toBe('splunk_cim_data_model');
    expect(await seriousViolations()).toEqual([]);
    await shot('refusal');
  }, STEP_MS);
});
