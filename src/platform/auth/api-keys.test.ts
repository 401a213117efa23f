import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, hashesMatch, keyFromValue, parseApiKey } from './api-keys.js';
import { missingPermissions, SYSTEM_ROLES } from './permissions.js';

describe('API keys', () => {
  it('are random, prefixed and stored only as a hash', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.key).not.toBe(b.key);
    expect(a.key).toMatch(/^rmp_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/);
    expect(parseApiKey(a.key)).toEqual({ prefix: a.prefix });
    expect(hashesMatch(a.hash, hashApiKey(a.key))).toBe(true);
    expect(hashesMatch(a.hash, hashApiKey(b.key))).toBe(false);
    expect(a.hash.toString('hex')).not.toContain(a.key);
  });

  it('rejects malformed keys', () => {
    expect(parseApiKey('rmp_short_x')).toBeNull();
    expect(parseApiKey('')).toBeNull();
    expect(() => keyFromValue('nope')).toThrow();
  });
});

describe('permissions', () => {
  it('names exactly the missing ones, in order', () => {
    expect(missingPermissions(new Set(['intel.read']), ['intel.read', 'intel.manage', 'audit.read'])).toEqual(['intel.manage', 'audit.read']);
  });

  it('gives the Analyst every read plus execute, tool use and triage', () => {
    const analyst = SYSTEM_ROLES.find((r) => r.name === 'Analyst')!;
    expect(analyst.permissions).toContain('agent.execute');
    expect(analyst.permissions).toContain('alert.triage');
    expect(analyst.permissions).toContain('destination.read');
    expect(analyst.permissions).not.toContain('destination.manage');
    expect(analyst.permissions).not.toContain('setting.apiKey.manage');
  });
});
