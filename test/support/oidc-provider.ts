import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { exportJWK, generateKeyPair } from 'jose';

/**
 * A real OpenID Provider for the tests: `oidc-provider` (the certified implementation), on
 * 127.0.0.1, with one confidential client and accounts the test controls. The person who logs in
 * at the next interaction is `nextLogin`; consent is implied (a grant for the client's scopes is
 * loaded for every account), so a sign-in is a chain of redirects a test can follow.
 * `jwksOverride` makes the provider publish another key set than the one it signs with (an ID
 * token "signed by another key", as a relying party sees it).
 */
export interface TestAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface TestIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, TestAccount>;
  nextLogin: string | null;
  jwksOverride: object | null;
  /** Follows the provider's redirects from an authorization URL to the redirect back to the client; answers that URL. */
  authorize(authorizationUrl: string, accountId: string): Promise<URL>;
  close(): Promise<void>;
}

export async function startOidcProvider(opts: { redirectUri: string; clientId?: string; clientSecret?: string }): Promise<TestIdentityProvider> {
  const clientId = opts.clientId ?? 'rampart-console';
  const clientSecret = opts.clientSecret ?? 'rampart-console-secret-0123456789';
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'signing-key-1', alg: 'RS256', use: 'sig' };

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const state: TestIdentityProvider = {
    issuer,
    clientId,
    clientSecret,
    accounts: new Map(),
    nextLogin: null,
    jwksOverride: null,
    authorize: async () => {
      throw new Error('not ready');
    },
    close: async () => {},
  };

  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [opts.redirectUri], response_types: ['code'], grant_types: ['authorization_code'], token_endpoint_auth_method: 'client_secret_basic' }],
    jwks: { keys: [signingKey] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    conformIdTokenClaims: false,
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    cookies: { keys: ['oidc-provider-test-cookie-key'] },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx, id) => {
      const account = state.accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid email profile groups');
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (req.url === '/jwks' && state.jwksOverride) {
      res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify(state.jwksOverride));
      return;
    }
    const m = /^\/interaction\/([^/?]+)/.exec(req.url ?? '');
    if (!m) return callback(req, res);
    // The login page: whoever the test chose logs in at once.
    provider
      .interactionFinished(req, res, { login: { accountId: state.nextLogin ?? '' } }, { mergeWithLastSubmission: false })
      .catch((err: Error) => {
        res.statusCode = 500;
        res.end(err.message);
      });
  });

  state.authorize = async (authorizationUrl, accountId) => {
    state.nextLogin = accountId;
    const jar = new Map<string, string>();
    let url = new URL(authorizationUrl);
    for (let hop = 0; hop < 10; hop++) {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const eq = pair!.indexOf('=');
        jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
      const location = res.headers.get('location');
      if (!location) throw new Error(`the provider answered ${res.status} without a redirect: ${(await res.text()).slice(0, 300)}`);
      url = new URL(location, url);
      if (url.href.startsWith(opts.redirectUri)) return url;
    }
    throw new Error('too many redirects at the provider');
  };
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** A public key set the provider never signs with, under the same key id as its real key. */
export async function foreignJwks(): Promise<object> {
  const { publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { keys: [{ ...(await exportJWK(publicKey)), kid: 'signing-key-1', alg: 'RS256', use: 'sig' }] };
}
