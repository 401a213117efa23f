import { describe, expect, it } from 'vitest';
import { ValidationError } from '../http/errors.js';
import { assertSecretStaysWithOrigin, originOf, sameOrigin } from './secret-origin.js';

describe('origin of a URL a secret is sent to', () => {
  it('is scheme, host and port as the URL parser normalises them', () => {
    expect(originOf('https://API.Example.com:443/v1?x=1')).toBe('https://api.example.com');
    expect(sameOrigin('https://a.example/v1', 'https://a.example/v2?page=3')).toBe(true);
    expect(sameOrigin('http://a.example:80/', 'http://a.example/')).toBe(true);
    expect(sameOrigin('https://a.example/', 'http://a.example/')).toBe(false);
    expect(sameOrigin('https://a.example/', 'https://a.example:8443/')).toBe(false);
    expect(sameOrigin('https://a.example/', 'https://a.example.evil.test/')).toBe(false);
    expect(sameOrigin('https://a.example/', 'https://user@b.example/')).toBe(false);
    expect(originOf('ftp://a.example/')).toBeNull();
    expect(originOf('not a url')).toBeNull();
  });
});

describe('a stored secret and a moved URL', () => {
  const base = { secretField: 'apiKey', urlField: 'serverUrl', before: 'https://a.example/feed', stored: true, given: false };

  it('refuses to keep the secret for another origin, naming the field', () => {
    try {
      assertSecretStaysWithOrigin({ ...base, after: 'https://b.example/feed' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).body()).toEqual({
        error: 'Validation failed',
        issues: [{ path: 'apiKey', code: 'secret_required', location: 'body', message: 'must be given again: serverUrl now points at another origin (scheme, host or port), and a stored apiKey is sent only to the origin it was given for' }],
      });
    }
  });

  it('keeps it on the same origin, when the secret is given again or cleared, and when none is stored', () => {
    expect(() => assertSecretStaysWithOrigin({ ...base, after: 'https://a.example/other?x=1' })).not.toThrow();
    expect(() => assertSecretStaysWithOrigin({ ...base, after: 'https://b.example/', given: true })).not.toThrow();
    expect(() => assertSecretStaysWithOrigin({ ...base, after: 'https://b.example/', stored: false })).not.toThrow();
  });
});
