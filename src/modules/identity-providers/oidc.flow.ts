import { createHash } from 'node:crypto';
import type * as client from 'openid-client';
import type { Database, Queryable } from '../../platform/db/database.js';
import type { SecretBox } from '../../platform/secrets.js';
import type { Authenticator } from '../../platform/auth/authenticator.js';
import { writeAudit } from '../../platform/audit.js';
import { ConflictError } from '../../platform/http/errors.js';
import type { ConsoleSessionOpener } from '../sessions/index.js';
import { createDirectoryUser, findDirectoryUser, findDirectoryUserByEmail, updateDirectoryUser } from '../users/index.js';
import * as repo from './identity-providers.repo.js';
import type { ProviderRow } from './identity-providers.repo.js';
import { acceptedEmail, groupsOf, mayClaimExistingUser, roleFromGroups } from './identity-providers.fns.js';

/**
 * Console sign-in through an organization's OpenID Connect provider: authorization code flow
 * with PKCE (S256), `state` and `nonce`, all three kept server-side (oidc_login_states, used
 * once, 10 minutes) and the state also in a cookie of the browser that started (so a callback
 * URL planted in another browser — login CSRF — finds no cookie). openid-client does the
 * protocol: discovery, the `iss` response parameter (RFC 9207, mix-up), the code exchange and
 * the ID token's signature (issuer JWKS, re-fetched on an unknown `kid`: key rotation), issuer,
 * audience, expiry and nonce. What is ours: who the person is in Rampart and with what role.
 */
export const STATE_COOKIE = 'rampart_oidc_state';
export const LOGIN_STATE_TTL_MS = 10 * 60_000;
/** Discovery documents are kept this long per provider version (JWKS rotation is openid-client's). */
const DISCOVERY_TTL_MS = 10 * 60_000;

/**
 * openid-client (with oauth4webapi and jose under it: a 134 KB chunk of the build), loaded at the
 * first sign-in through a provider rather than compiled at every start for a flow most instances
 * never run (issue 50: `npm start` → ready < 1 s).
 */
let openidClient: Promise<typeof import('openid-client')> | null = null;
const loadOpenidClient = () => (openidClient ??= import('openid-client'));

export class SignInRefused extends Error {
  constructor(
    readonly reason: string,
    /** For the audit entry: a short code, never a token or a secret. */
    readonly code: string,
    readonly provider?: ProviderRow,
  ) {
    super(reason);
  }
}

const hashState = (state: string): Buffer => createHash('sha256').update(state, 'utf8').digest();

export interface OidcFlowDeps {
  db: Database;
  secrets: SecretBox;
  authenticator: Pick<Authenticator, 'invalidate'>;
  openSession: ConsoleSessionOpener;
  baseUrl: string;
  /** The guarded outbound fetch (SSRF policy, size and time limits). */
  fetch: typeof fetch;
  /** Plain-http issuers only where private networks are allowed (development, tests). */
  allowInsecureIssuers: boolean;
}

export function createOidcFlow(deps: OidcFlowDeps) {
  const { db } = deps;
  const redirectUri = `${deps.baseUrl}/auth/oidc/callback`;
  const configurations = new Map<string, { at: number; config: Promise<client.Configuration> }>();

  /** The provider's discovered configuration, per provider version (a change to it starts afresh). */
  function configurationOf(provider: ProviderRow): Promise<client.Configuration> {
    const key = `${provider.id}:${provider.updatedAt.getTime()}`;
    const hit = configurations.get(key);
    if (hit && hit.at > Date.now() - DISCOVERY_TTL_MS) return hit.config;
    for (const k of configurations.keys()) if (k.startsWith(`${provider.id}:`)) configurations.delete(k);
    const insecure = provider.issuer.startsWith('http:');
    if (insecure && !deps.allowInsecureIssuers) {
      return Promise.reject(new SignInRefused('This identity provider\'s issuer is not https; Rampart only talks to it when RAMPART_ALLOW_PRIVATE_NETWORKS=true.', 'insecure_issuer', provider));
    }
    const config = loadOpenidClient()
      .then((client) => client.discovery(new URL(provider.issuer), provider.clientId, undefined, client.ClientSecretBasic(deps.secrets.decrypt(provider.clientSecretCiphertext)), {
        [client.customFetch]: deps.fetch as client.CustomFetch,
        // Non-repudiation checks: the ID token's signature is verified against the issuer's JWKS
        // (openid-client otherwise trusts the TLS channel to the token endpoint, OIDC Core §3.1.3.7).
        execute: insecure ? [client.allowInsecureRequests, client.enableNonRepudiationChecks] : [client.enableNonRepudiationChecks],
        timeout: 10,
      }).then((c) => {
        c[client.customFetch] = deps.fetch as client.CustomFetch;
        return c;
      }));
    configurations.set(key, { at: Date.now(), config });
    // A failed discovery is not kept: the next sign-in tries again.
    config.catch(() => configurations.delete(key));
    return config;
  }

  async function refuse(provider: ProviderRow | undefined, code: string, reason: string, requestId: string): Promise<never> {
    if (provider) {
      await writeAudit(db, { actor: { type: 'system', organizationId: provider.organizationId }, requestId }, {
        action: 'identityProvider.signIn.refused',
        resourceType: 'identityProvider',
        resourceId: provider.id,
        metadata: { code, reason },
      });
    }
    throw new SignInRefused(reason, code, provider);
  }

  return {
    redirectUri,

    /** The provider's authorization URL and the state for the browser's cookie. */
    async start(providerId: string): Promise<{ url: string; state: string }> {
      const provider = await repo.findProviderById(db, providerId);
      if (!provider) throw new SignInRefused('This identity provider does not exist (any more). Ask your administrator for the current sign-in link.', 'unknown_provider');
      let config: client.Configuration;
      try {
        config = await configurationOf(provider);
      } catch (err) {
        if (err instanceof SignInRefused) throw err;
        throw new SignInRefused(`Rampart could not reach the identity provider ${provider.name} (${provider.issuer}). Try again later.`, 'discovery_failed', provider);
      }
      const client = await loadOpenidClient();
      const codeVerifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      await repo.insertLoginState(db, { stateHash: hashState(state), providerId: provider.id, codeVerifier, nonce, expiresAt: new Date(Date.now() + LOGIN_STATE_TTL_MS) });
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: provider.scopes.join(' '),
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url: url.href, state };
    },

    /**
     * The return from the provider: the state (as sent back, and as the browser's cookie holds
     * it) is taken once, the code exchanged and the ID token checked; then the user is found or
     * created, their role set from their groups, and a console session opened.
     */
    async finish(query: Record<string, string>, cookieState: string | null, requestId: string): Promise<{ cookie: string; userId: string }> {
      const state = query.state;
      if (!state || !cookieState || state !== cookieState) {
        return refuse(undefined, 'state_mismatch', 'This sign-in did not start in this browser, or its state was altered. Start again from the sign-in page.', requestId);
      }
      const pending = await repo.consumeLoginState(db, hashState(state));
      if (!pending) return refuse(undefined, 'state_unknown', 'This sign-in has expired or was already used. Start again from the sign-in page.', requestId);
      const provider = await repo.findProviderById(db, pending.providerId);
      if (!provider) return refuse(undefined, 'unknown_provider', 'This identity provider was removed while you were signing in.', requestId);
      if (query.error) {
        return refuse(provider, 'provider_error', `${provider.name} answered: ${query.error_description ?? query.error}`.slice(0, 500), requestId);
      }

      let claims: Record<string, unknown>;
      try {
        const [client, config] = await Promise.all([loadOpenidClient(), configurationOf(provider)]);
        const currentUrl = new URL(redirectUri);
        for (const [k, v] of Object.entries(query)) currentUrl.searchParams.set(k, v);
        const tokens = await client.authorizationCodeGrant(config, currentUrl, { pkceCodeVerifier: pending.codeVerifier, expectedState: state, expectedNonce: pending.nonce, idTokenExpected: true });
        claims = (tokens.claims() ?? {}) as Record<string, unknown>;
      } catch (err) {
        if (err instanceof SignInRefused) throw err;
        return refuse(provider, 'token_rejected', `The answer of ${provider.name} could not be verified, so nobody was signed in (${describe(err)}).`, requestId);
      }
      const subject = typeof claims.sub === 'string' ? claims.sub : '';
      if (!subject) return refuse(provider, 'no_subject', `${provider.name} did not identify you (no sub claim).`, requestId);

      let outcome: { userId: string; roleChanged: boolean };
      try {
        outcome = await db.transaction().execute((tx) => signIn(tx, provider, subject, claims, requestId));
      } catch (err) {
        if (err instanceof SignInRefused) return refuse(provider, err.code, err.reason, requestId);
        throw err;
      }
      // The user's API keys now carry their new role, in every process.
      if (outcome.roleChanged) await deps.authenticator.invalidate();
      const { cookie } = await deps.openSession({ organizationId: provider.organizationId, userId: outcome.userId }, requestId);
      return { cookie, userId: outcome.userId };
    },
  };

  /** Within one transaction: the person's user (linked, matched by verified email, or new) with the role their groups give. */
  async function signIn(tx: Queryable, provider: ProviderRow, subject: string, claims: Record<string, unknown>, requestId: string): Promise<{ userId: string; roleChanged: boolean }> {
    const orgId = provider.organizationId;
    const system = { actor: { type: 'system' as const, organizationId: orgId }, requestId };
    const groups = groupsOf(claims[provider.groupsClaim]);
    const mappedRoleId = roleFromGroups(groups, provider.roleMappings, provider.defaultRoleId);
    if (!mappedRoleId) throw new SignInRefused(`You are in none of the groups that give access to Rampart through ${provider.name}. Ask your administrator to add you to one.`, 'no_mapped_group');
    const [role] = await repo.rolesOf(tx, orgId, [mappedRoleId]);
    if (!role) throw new SignInRefused(`The role your groups give in Rampart no longer exists. Ask your administrator to fix the role mappings of ${provider.name}.`, 'role_missing');

    const link = await repo.findLinkBySubject(tx, provider.id, subject);
    let user = link ? await findDirectoryUser(tx, orgId, link.userId) : undefined;
    let created = false;
    if (!user) {
      const accepted = acceptedEmail(claims, provider.allowedEmailDomains);
      if ('refused' in accepted) throw new SignInRefused(accepted.refused, 'email_refused');
      user = await findDirectoryUserByEmail(tx, orgId, accepted.email);
      if (user) {
        const existingLink = await repo.findLinkOfUser(tx, user.id);
        if (existingLink && existingLink.providerId !== provider.id) {
          throw new SignInRefused(`The Rampart user ${user.email} signs in through another identity provider; ${provider.name} cannot sign them in.`, 'linked_elsewhere');
        }
        if (existingLink && existingLink.subject !== null && existingLink.subject !== subject) {
          throw new SignInRefused(`The Rampart user ${user.email} is linked to another account at ${provider.name}.`, 'linked_other_subject');
        }
        // Not yet this provider's (no SCIM link either): claimed only within the provider's allowed domains.
        if (!existingLink && !mayClaimExistingUser(user.email, provider.allowedEmailDomains)) {
          throw new SignInRefused(
            `A Rampart user ${user.email} already exists and was not created through ${provider.name}; it can be taken over by ${provider.name} only when its email domain is in the provider's allowed email domains. Ask your administrator.`,
            'claim_refused',
          );
        }
        if (existingLink) await repo.setLinkSubject(tx, provider.id, user.id, subject);
        else await repo.insertLink(tx, { providerId: provider.id, organizationId: orgId, userId: user.id, subject });
      } else {
        const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 255) : accepted.email.split('@')[0]!;
        const id = await createDirectoryUser(tx, { organizationId: orgId, email: accepted.email, name, roleId: role.id });
        await repo.insertLink(tx, { providerId: provider.id, organizationId: orgId, userId: id, subject });
        await writeAudit(tx, system, { action: 'user.create', resourceType: 'user', resourceId: id, metadata: { email: accepted.email, roleId: role.id, identityProviderId: provider.id, via: 'oidc' } });
        user = (await findDirectoryUser(tx, orgId, id))!;
        created = true;
      }
    }
    if (user.deactivatedAt) throw new SignInRefused(`Your Rampart user ${user.email} is deactivated.`, 'user_deactivated');

    let roleChanged = false;
    let roleKept: string | undefined;
    if (user.roleId !== role.id) {
      try {
        roleChanged = (await updateDirectoryUser(tx, orgId, user, { roleId: role.id })).roleChanged;
        if (roleChanged) await writeAudit(tx, system, { action: 'user.update', resourceType: 'user', resourceId: user.id, metadata: { changed: ['roleId'], roleId: role.id, identityProviderId: provider.id, via: 'oidc' } });
      } catch (err) {
        // The last active Super Admin keeps the role (the lockout rule): they still sign in.
        if (!(err instanceof ConflictError)) throw err;
        roleKept = 'last active Super Admin';
      }
    }
    await writeAudit(tx, { actor: { type: 'system', organizationId: orgId }, requestId }, {
      action: 'identityProvider.signIn',
      resourceType: 'user',
      resourceId: user.id,
      metadata: { identityProviderId: provider.id, created, roleId: roleKept ? user.roleId : role.id, roleChanged, ...(roleKept ? { roleKept } : {}) },
    });
    return { userId: user.id, roleChanged };
  }
}

export type OidcFlow = ReturnType<typeof createOidcFlow>;

/**
 * openid-client's error, for the page and the audit log. Its own message is generic ("unexpected
 * JWT claim value encountered"); the library error it wraps names the failed check (`"nonce"`),
 * never a token or a claim's value.
 */
function describe(err: unknown): string {
  const e = err as { message?: string; error?: string; error_description?: string };
  if (typeof e?.error === 'string') return `${e.error}${e.error_description ? `: ${e.error_description}` : ''}`.slice(0, 300);
  let inner: unknown = err;
  for (let depth = 0; depth < 3 && (inner as { cause?: unknown })?.cause instanceof Error; depth++) inner = (inner as { cause: Error }).cause;
  return ((inner as Error)?.message ?? e?.message ?? 'unknown error').slice(0, 300);
}
