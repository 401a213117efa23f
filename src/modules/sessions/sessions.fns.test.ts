import { describe, expect, it } from 'vitest';
import { csrfTokenFor, isLinkToken, isSessionToken, newLinkToken, newSessionToken, readCookie, sessionCookie, sessionEndReason } from './sessions.fns.js';

describe('console session helpers', () => {
  it('makes distinct, well-formed tokens', () => {
    const a = newSessionToken();
    expect(isSessionToken(a)).toBe(true);
    expect(isLinkToken(a)).toBe(false);
    expect(isLinkToken(newLinkToken())).toBe(true);
    expect(newSessionToken()).not.toBe(a);
  });

  it('binds the CSRF token to its session', () => {
    const a = newSessionToken();
    expect(csrfTokenFor(a)).toBe(csrfTokenFor(a));
    expect(csrfTokenFor(a)).not.toBe(csrfTokenFor(newSessionToken()));
  });

  it('reads one cookie among several', () => {
    expect(readCookie('a=1; rampart_session=rms_x; b=2', 'rampart_session')).toBe('rms_x');
    expect(readCookie('xrampart_session=1', 'rampart_session')).toBeNull();
    expect(readCookie(undefined, 'rampart_session')).toBeNull();
  });

  it('writes an HttpOnly, SameSite=Strict cookie, Secure on https only', () => {
    expect(sessionCookie('t', { secure: false, maxAgeSeconds: 60 })).toBe('rampart_session=t; Path=/; HttpOnly; SameSite=Strict; Max-Age=60');
    expect(sessionCookie('t', { secure: true, maxAgeSeconds: 60 })).toMatch(/; Secure$/);
  });

  it('ends a session when revoked, past its absolute expiry, or idle too long', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    const live = { lastSeenAt: new Date(now - 60_000), expiresAt: new Date(now + 3_600_000), revokedAt: null };
    expect(sessionEndReason(live, 30 * 60_000, now)).toBeNull();
    expect(sessionEndReason({ ...live, revokedAt: new Date(now) }, 30 * 60_000, now)).toMatch(/signed out/);
    expect(sessionEndReason({ ...live, expiresAt: new Date(now) }, 30 * 60_000, now)).toMatch(/expired$/);
    expect(sessionEndReason(live, 60_000, now)).toMatch(/inactivity/);
  });
});
