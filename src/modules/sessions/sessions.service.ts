import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { Actor } from '../../platform/auth/actor.js';
import type { Authenticator } from '../../platform/auth/authenticator.js';
import { writeAudit } from '../../platform/audit.js';
import type { Database } from '../../platform/db/database.js';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../platform/http/errors.js';
import { secretsEqual } from '../../platform/auth/secrets-equal.js';
import {
  CSRF_HEADER,
  LAST_SEEN_WRITE_INTERVAL_MS,
  LOGIN_LINK_TTL_MS,
  SESSION_COOKIE,
  csrfTokenFor,
  hashToken,
  isLinkToken,
  isSafeMethod,
  isSessionToken,
  newLinkToken,
  newSessionToken,
  readCookie,
  sessionEndReason,
} from './sessions.fns.js';
import * as repo from './sessions.repo.js';
import { apiKeySignInAllowed } from './sign-in-settings.service.js';
import type { SessionRow } from './sessions.repo.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the request was authenticated by a console session cookie (not an API key). */
    consoleSession?: { id: string; token: string };
  }
}

export interface SessionsDeps {
  db: Database;
  authenticator: Authenticator;
  config: Pick<Config, 'sessionIdleMinutes' | 'sessionMaxHours' | 'baseUrl'>;
}

export interface SignedIn {
  token: string;
  session: ReturnType<typeof viewOf>;
}

function viewOf(row: SessionRow, token: string, idleMs: number) {
  return {
    id: row.id,
    method: row.method,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    idleTimeoutSeconds: idleMs / 1000,
    csrfToken: csrfTokenFor(token),
    organizationId: row.organizationId,
    user: { id: row.userId, email: row.email, name: row.name },
    role: { id: row.roleId, name: row.roleName },
    permissions: [...row.permissions].sort(),
  };
}

function actorOf(row: SessionRow): Actor {
  return {
    type: 'user',
    userId: row.userId,
    organizationId: row.organizationId,
    apiKeyId: row.apiKeyId,
    roleId: row.roleId,
    permissions: new Set(row.permissions),
  };
}

export const API_KEY_SIGN_IN_OFF =
  'This organization does not allow signing in to the console with an API key: sign in with its identity provider (the key still works for the API)';

const LINK_REFUSED = 'The sign-in link is invalid, expired or already used';

export function createSessionsService(deps: SessionsDeps) {
  const { db } = deps;
  const idleMs = deps.config.sessionIdleMinutes * 60_000;
  const maxMs = deps.config.sessionMaxHours * 3_600_000;

  async function open(input: Omit<repo.NewSession, 'tokenHash' | 'expiresAt'>, requestId: string): Promise<SignedIn> {
    const token = newSessionToken();
    const tokenHash = hashToken(token);
    const row = await db.transaction().execute(async (tx) => {
      await repo.insertSession(tx, { ...input, tokenHash, expiresAt: new Date(Date.now() + maxMs) });
      const opened = await repo.findSessionByHash(tx, tokenHash);
      if (!opened) throw new UnauthorizedError('The console session could not be opened');
      // A sign-in link's user may have been deactivated since it was printed.
      if (opened.deactivatedAt) throw new UnauthorizedError('The user of this console session is deactivated');
      await writeAudit(tx, { actor: actorOf(opened), requestId }, { action: 'session.create', resourceType: 'consoleSession', resourceId: opened.id, metadata: { method: input.method } });
      return opened;
    });
    return { token, session: viewOf(row, token, idleMs) };
  }

  /** The live session of a cookie token, or the 401 that says why it no longer works. */
  async function live(token: string): Promise<SessionRow> {
    const row = isSessionToken(token) ? await repo.findSessionByHash(db, hashToken(token)) : undefined;
    if (!row) throw new UnauthorizedError('The console session is not valid; sign in again');
    const now = Date.now();
    const ended = sessionEndReason(row, idleMs, now);
    if (ended) throw new UnauthorizedError(ended);
    if (row.deactivatedAt) throw new UnauthorizedError('The user of this console session is deactivated');
    if (row.keyRevokedAt) throw new UnauthorizedError('The API key this console session was opened with has been revoked');
    if (row.keyExpiresAt && row.keyExpiresAt.getTime() <= now) throw new UnauthorizedError('The API key this console session was opened with has expired');
    // The row is read on every request, so its own last-seen time says when to write it again.
    if (row.lastSeenAt.getTime() <= now - LAST_SEEN_WRITE_INTERVAL_MS) await repo.touchSession(db, row.id);
    return row;
  }

  function sessionOf(request: FastifyRequest): { id: string; token: string } {
    // A caller with an API key has no console session to show or end.
    if (!request.consoleSession) throw new NotFoundError('Console session');
    return request.consoleSession;
  }

  return {
    async signInWithKey(apiKey: string, requestId: string): Promise<SignedIn> {
      const actor = await deps.authenticator.authenticate(`Bearer ${apiKey}`);
      // The organization may send its people through its identity provider instead (the key still works for the API).
      if (!(await apiKeySignInAllowed(db, actor.organizationId))) {
        await writeAudit(db, { actor, requestId }, { action: 'session.refused', resourceType: 'apiKey', resourceId: actor.apiKeyId, metadata: { method: 'api_key', reason: 'api_key_sign_in_off' } });
        throw new ForbiddenError([], API_KEY_SIGN_IN_OFF);
      }
      return open({ organizationId: actor.organizationId, userId: actor.userId, apiKeyId: actor.apiKeyId, method: 'api_key' }, requestId);
    },

    /**
     * A session for a user an identity provider just vouched for (identity-providers' OIDC
     * callback, after it has checked the ID token and set the user's role): the same session as
     * a sign-in link opens, with `method: 'oidc'`.
     */
    async signInFromIdentityProvider(user: { organizationId: string; userId: string }, requestId: string): Promise<SignedIn> {
      return open({ organizationId: user.organizationId, userId: user.userId, apiKeyId: null, method: 'oidc' }, requestId);
    },

    async signInWithLink(linkToken: string, requestId: string): Promise<SignedIn> {
      const link = isLinkToken(linkToken) ? await repo.consumeLoginLink(db, hashToken(linkToken)) : undefined;
      if (!link) throw new UnauthorizedError(LINK_REFUSED);
      return open({ organizationId: link.organizationId, userId: link.userId, apiKeyId: null, method: 'login_link' }, requestId);
    },

    /**
     * The request hook's cookie authentication: null without a session cookie (the caller may
     * still use an API key), the session's actor otherwise. A state-changing request must
     * carry the session's CSRF token in `x-csrf-token` (403 otherwise).
     */
    async authenticate(request: FastifyRequest): Promise<Actor | null> {
      const token = readCookie(request.headers.cookie, SESSION_COOKIE);
      if (!token) return null;
      const row = await live(token);
      if (!isSafeMethod(request.method)) {
        const given = request.headers[CSRF_HEADER];
        if (typeof given !== 'string' || !secretsEqual(given, csrfTokenFor(token))) {
          throw new ForbiddenError([], `Missing or invalid CSRF token (send the session's csrfToken in the ${CSRF_HEADER} header)`);
        }
      }
      request.consoleSession = { id: row.id, token };
      return actorOf(row);
    },

    async current(request: FastifyRequest) {
      const { token } = sessionOf(request);
      return viewOf(await live(token), token, idleMs);
    },

    async signOut(request: FastifyRequest): Promise<void> {
      const { id } = sessionOf(request);
      const actor = request.actor!;
      await db.transaction().execute(async (tx) => {
        await repo.revokeSession(tx, id);
        await writeAudit(tx, { actor, requestId: request.id }, { action: 'session.revoke', resourceType: 'consoleSession', resourceId: id });
      });
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;

export class LoginLinkError extends Error {}

/** `rampart admin login-link --email E [--org ID]`: a one-time sign-in URL for an active user. */
export async function createLoginLink(
  db: Database,
  input: { email: string; organizationId?: string; baseUrl: string },
): Promise<{ url: string; expiresAt: Date; userId: string; organizationId: string }> {
  const users = await repo.findActiveUsersByEmail(db, input.email, input.organizationId);
  if (users.length === 0) throw new LoginLinkError(`no active user with the email ${input.email}${input.organizationId ? ' in that organization' : ''}`);
  if (users.length > 1) {
    throw new LoginLinkError(`${input.email} is a user of several organizations; choose one with --org (${users.map((u) => u.organizationId).join(', ')})`);
  }
  const user = users[0]!;
  const token = newLinkToken();
  const expiresAt = new Date(Date.now() + LOGIN_LINK_TTL_MS);
  await db.transaction().execute(async (tx) => {
    await repo.insertLoginLink(tx, { organizationId: user.organizationId, userId: user.id, tokenHash: hashToken(token), expiresAt });
    await writeAudit(tx, { actor: { type: 'system', organizationId: user.organizationId } }, { action: 'loginLink.create', resourceType: 'user', resourceId: user.id });
  });
  // In the fragment: browsers never send it to a server, so no access log or proxy sees the token.
  return { url: `${input.baseUrl}/sign-in#link=${token}`, expiresAt, userId: user.id, organizationId: user.organizationId };
}
