import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * The pure parts of console sessions: tokens, their hashes, the CSRF token bound to a session,
 * the cookie header and the expiry rules.
 */
export const SESSION_COOKIE = 'rampart_session';
export const CSRF_HEADER = 'x-csrf-token';
/** A sign-in link works once, for this long after `rampart admin login-link` printed it. */
export const LOGIN_LINK_TTL_MS = 15 * 60_000;
/** `lastSeenAt` is written at most this often per session (the idle timeout's precision). */
export const LAST_SEEN_WRITE_INTERVAL_MS = 60_000;

const SESSION_TOKEN = /^rms_[A-Za-z0-9_-]{43}$/;
const LINK_TOKEN = /^rml_[A-Za-z0-9_-]{43}$/;

export function newSessionToken(): string {
  return `rms_${randomBytes(32).toString('base64url')}`;
}

export function newLinkToken(): string {
  return `rml_${randomBytes(32).toString('base64url')}`;
}

export const isSessionToken = (value: string): boolean => SESSION_TOKEN.test(value);
export const isLinkToken = (value: string): boolean => LINK_TOKEN.test(value);

/** Tokens carry 256 random bits: a fast hash is enough, and the row is found by its hash. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * The CSRF token is derived from the session token, so it is bound to the session without being
 * stored: another session's token, or a token guessed by a cross-site page, never matches.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('rampart-console-csrf').digest('base64url');
}

/** The value of one cookie in a `Cookie` header, or null. */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** HttpOnly (no script reads it), SameSite=Strict (no cross-site request carries it), Secure on https. */
export function sessionCookie(token: string, opts: { secure: boolean; maxAgeSeconds: number }): string {
  const attrs = [`${SESSION_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${opts.maxAgeSeconds}`];
  if (opts.secure) attrs.push('Secure');
  return attrs.join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', { secure, maxAgeSeconds: 0 });
}

export interface SessionTimes {
  lastSeenAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

/** Why a session no longer signs anyone in, or null while it does. */
export function sessionEndReason(s: SessionTimes, idleMs: number, now: number): string | null {
  if (s.revokedAt) return 'The console session was signed out';
  if (s.expiresAt.getTime() <= now) return 'The console session has expired';
  if (s.lastSeenAt.getTime() + idleMs <= now) return 'The console session expired after inactivity';
  return null;
}

/** Methods that change state need the CSRF header (the safe ones never change anything). */
export const isSafeMethod = (method: string): boolean => method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
