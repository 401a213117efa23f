import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.js';
import { bearer, createTestApp, type TestContext } from '../support/app.js';
import { startOidcProvider, type TestIdentityProvider } from '../support/oidc-provider.js';
import { freePort } from '../support/processes.js';

/**
 * Sign-in through the organization's identity provider in a real Chromium (issue 45), against a
 * real OpenID Provider (oidc-provider) started here: an administrator sets the provider up in
 * the console's settings, a person signs in from the organization's sign-in address, lands in
 * the console with the role of their group, loses it when the group goes, and a refused sign-in
 * is a page saying why. Rampart answers at `rampart.test` (mapped to 127.0.0.1 for Chromium
 * only) and the provider at 127.0.0.1: two sites, so the return from the provider is the
 * cross-site navigation it is in production (the session cookie is SameSite=Strict).
 * One server, one browser, one journey (see console-e2e.test.ts for the other screens).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) process.stderr.write(`console-oidc-e2e: skipped, ${CHROMIUM} is not installed (apt-get install -y chromium)\n`);
const SHOTS = path.resolve(import.meta.dirname, '../../screenshots');
const JOURNEY_MS = 180_000;

let t: TestContext;
let base: string;
let idp: TestIdentityProvider;
let browser: Browser;
const contexts: BrowserContext[] = [];


/** A browser of its own (its own cookies, at Rampart and at the provider): one person. */
async function person(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  page.on('dialog', (d) => {
    throw new Error(`unexpected dialog: ${d.message()}`);
  });
  return page;
}

/** The console session as the page's own scripts see it (the cookie is HttpOnly). */
async function sessionIn(page: Page): Promise<{ method: string; user: { email: string; name: string }; role: { name: string } }> {
  return page.evaluate<{ method: string; user: { email: string; name: string }; role: { name: string } }>("fetch('/api/session').then((r) => r.json())");
}

const counts = async () => ({
  users: Number((await t.database.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
  sessions: Number((await t.database.db.selectFrom('consoleSessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
});

describe.skipIf(!HAVE_CHROMIUM)('sign-in through the identity provider, in Chromium', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await buildConsole({ ifStale: true });
    const port = await freePort();
    base = `http://rampart.test:${port}`;
    t = await createTestApp({ env: { RAMPART_BASE_URL: base, RAMPART_ALLOW_PRIVATE_NETWORKS: 'true' } });
    await t.app.listen({ port, host: '127.0.0.1' });
    idp = await startOidcProvider({ redirectUri: `${base}/auth/oidc/callback` });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP rampart.test 127.0.0.1'],
    });
  }, 180_000);

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await idp?.close();
    await t?.close();
  }, 60_000);

  it('is set up in the settings, signs a person in with the role of their group, takes the role away with the group, and refuses with a page', async () => {
    const orgId = t.orgA.organization.id;
    const admin = await person();
    // The administrator signs in with their key and sets the provider up in Settings → Identity providers.
    await admin.goto(`${base}/sign-in`);
    await admin.getByLabel('API key').fill(t.orgA.apiKey.key);
    await admin.getByRole('button', { name: 'Sign in' }).click();
    await admin.getByRole('heading', { name: 'Insights' }).waitFor();
    await admin.goto(`${base}/settings/identity-providers`);
    await admin.getByText('No identity provider yet').waitFor();
    await admin.getByText(`${base}/sign-in?organization=${orgId}`).waitFor();
    const form = admin.getByRole('form', { name: 'New identity provider' });
    await form.getByLabel('Name').fill('Corp SSO');
    await form.getByLabel('Issuer').fill(idp.issuer);
    await form.getByLabel('Client id').fill(idp.clientId);
    await form.getByLabel('Client secret').fill(idp.clientSecret);
    await form.getByLabel('Allowed email domains').fill('corp.example');
    await form.getByRole('button', { name: 'Add mapping' }).click();
    await form.getByRole('group', { name: 'Mapping 1' }).getByLabel('Group').fill('soc-analysts');
    await form.getByRole('group', { name: 'Mapping 1' }).getByLabel('Role').selectOption({ label: 'Analyst' });
    await form.getByRole('button', { name: 'Add mapping' }).click();
    await form.getByRole('group', { name: 'Mapping 2' }).getByLabel('Group').fill('soc-admins');
    await form.getByRole('group', { name: 'Mapping 2' }).getByLabel('Role').selectOption({ label: 'Super Admin' });
    await form.getByRole('button', { name: 'Add identity provider' }).click();
    const card = admin.getByRole('listitem', { name: 'Corp SSO' });
    await card.getByText(`${base}/auth/oidc/callback`).waitFor();
    await card.getByText('are refused').waitFor();
    const [provider] = (await t.app.inject({ url: '/api/identity-providers', headers: bearer(t.orgA.apiKey.key) })).json().identityProviders;
    expect(provider).toMatchObject({ name: 'Corp SSO', issuer: idp.issuer, allowedEmailDomains: ['corp.example'], defaultRoleId: null, hasClientSecret: true });
    expect(provider.roleMappings.map((m: { group: string }) => m.group)).toEqual(['soc-analysts', 'soc-admins']);
    // The SCIM token is shown once.
    await card.getByRole('button', { name: 'Generate SCIM token' }).click();
    const shown = await card.getByRole('status').locator('code').textContent();
    expect(shown).toMatch(/^rsc_[A-Za-z0-9_-]{43}$/);
    await card.getByText('token issued').waitFor();
    expect((await t.app.inject({ url: '/scim/v2/Users', headers: { authorization: `Bearer ${shown}` } })).statusCode).toBe(200);
    await admin.screenshot({ path: path.join(SHOTS, 'settings-identity-providers.png'), fullPage: true });
    // Deleted from its card, after a second click that says what it means.
    const spare = await t.app.inject({ method: 'POST', url: '/api/identity-providers', headers: bearer(t.orgA.apiKey.key), payload: { name: 'Old SSO', issuer: 'https://old-sso.example.com', clientId: 'c', clientSecret: 's', roleMappings: [] } });
    expect(spare.statusCode).toBe(200);
    await admin.reload();
    const old = admin.getByRole('listitem', { name: 'Old SSO' });
    await old.getByRole('button', { name: 'Delete' }).click();
    await old.getByText('Nobody can sign in through Old SSO afterwards').waitFor();
    await old.getByRole('button', { name: 'Delete Old SSO for good' }).click();
    await old.waitFor({ state: 'detached' });
    expect((await t.app.inject({ url: `/api/identity-providers/${spare.json().id}`, headers: bearer(t.orgA.apiKey.key) })).statusCode).toBe(404);
    // Edited: the secret left empty is kept.
    await card.getByRole('button', { name: 'Edit' }).click();
    const edit = card.getByRole('form', { name: 'Edit Corp SSO' });
    expect(await edit.getByLabel('Client secret').inputValue()).toBe('');
    await edit.getByLabel('Scopes').fill('openid email profile groups');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await card.getByRole('button', { name: 'Edit' }).waitFor();

    // A person signs in from the organization's sign-in address.
    idp.accounts.set('nina-sub', { email: 'nina@corp.example', email_verified: true, name: 'Nina Analyst', groups: ['everyone', 'soc-analysts'] });
    const nina = await person();
    await nina.goto(`${base}/sign-in?organization=${orgId}`);
    idp.nextLogin = 'nina-sub';
    await nina.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    await nina.getByRole('heading', { name: 'Insights' }).waitFor({ timeout: 20_000 });
    await nina.locator('.who').getByText('Nina Analyst').waitFor();
    expect(await sessionIn(nina)).toMatchObject({ method: 'oidc', user: { email: 'nina@corp.example', name: 'Nina Analyst' }, role: { name: 'Analyst' } });
    // An Analyst reads the alerts, but cannot manage identity providers.
    await nina.getByRole('link', { name: 'Alerts' }).click();
    await nina.getByRole('heading', { name: 'Alerts' }).waitFor();
    await nina.goto(`${base}/settings/identity-providers`);
    await nina.getByText('Your role cannot manage identity providers').waitFor();
    await nina.screenshot({ path: path.join(SHOTS, 'oidc-signed-in.png'), fullPage: true });

    // Out of the mapped group: the next sign-in is refused with a page, the role is not kept by a new session.
    idp.accounts.set('nina-sub', { email: 'nina@corp.example', email_verified: true, name: 'Nina Analyst', groups: ['everyone'] });
    await nina.getByRole('button', { name: 'Sign out' }).click();
    await nina.getByRole('heading', { name: 'Sign in to Rampart' }).waitFor();
    const before = await counts();
    await nina.goto(`${base}/sign-in?organization=${orgId}`);
    await nina.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    await nina.getByRole('heading', { name: 'Sign-in refused' }).waitFor({ timeout: 20_000 });
    await nina.getByText(/You are in none of the groups that give access to Rampart through Corp SSO/).waitFor();
    expect(await counts()).toEqual(before);
    // The way back leads to the organization's sign-in screen.
    await nina.getByRole('link', { name: 'Back to sign-in' }).click();
    await nina.getByRole('link', { name: 'Sign in with Corp SSO' }).waitFor();

    // Moved to the admins' group: the next sign-in carries the new role.
    idp.accounts.set('nina-sub', { email: 'nina@corp.example', email_verified: true, name: 'Nina Analyst', groups: ['soc-admins'] });
    await nina.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    await nina.getByRole('heading', { name: 'Insights' }).waitFor({ timeout: 20_000 });
    expect((await sessionIn(nina)).role.name).toBe('Super Admin');

    // An unverified email: a page saying why, nobody created.
    idp.accounts.set('otto-sub', { email: 'otto@corp.example', email_verified: false, groups: ['soc-analysts'] });
    const otto = await person();
    const beforeOtto = await counts();
    await otto.goto(`${base}/sign-in?organization=${orgId}`);
    idp.nextLogin = 'otto-sub';
    await otto.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    await otto.getByRole('heading', { name: 'Sign-in refused' }).waitFor({ timeout: 20_000 });
    await otto.getByText(/does not vouch for the email address otto@corp\.example/).waitFor();
    await otto.screenshot({ path: path.join(SHOTS, 'oidc-refused.png'), fullPage: true });
    expect(await counts()).toEqual(beforeOtto);
    expect((await otto.context().cookies()).filter((c) => c.name === 'rampart_session')).toEqual([]);

    // API-key sign-in turned off in the settings: the sign-in screen offers only the provider, the route refuses keys.
    await admin.goto(`${base}/settings/identity-providers`);
    const allowKeys = admin.getByRole('checkbox', { name: 'Allow signing in to the console with an API key' });
    // Saved at once (the box follows the server's answer).
    await allowKeys.click();
    await expect.poll(async () => (await t.app.inject({ url: '/api/console-sign-in-settings', headers: bearer(t.orgA.apiKey.key) })).json().apiKeySignIn).toBe(false);
    // The administrator's own key session ended with it.
    await admin.goto(`${base}/insights`);
    await admin.getByRole('heading', { name: 'Sign in to Rampart' }).waitFor();
    await admin.goto(`${base}/sign-in?organization=${orgId}`);
    await admin.getByText('API-key sign-in to the console is off').waitFor();
    await admin.getByRole('link', { name: 'Sign in with Corp SSO' }).waitFor();
    expect(await admin.getByLabel('API key').count()).toBe(0);
    expect((await t.app.inject({ method: 'POST', url: '/api/session', payload: { apiKey: t.orgA.apiKey.key } })).statusCode).toBe(403);
    // Nina's provider session is unaffected.
    expect((await sessionIn(nina)).method).toBe('oidc');
  }, JOURNEY_MS);
});
