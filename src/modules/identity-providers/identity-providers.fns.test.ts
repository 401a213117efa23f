import { describe, expect, it } from 'vitest';
import { acceptedEmail, emailVerified, mayClaimExistingUser, roleFromGroups } from './identity-providers.fns.js';

describe('emailVerified', () => {
  it('takes email_verified: true, and Entra ID\'s xms_edov: true only where email_verified is absent', () => {
    expect(emailVerified({ email_verified: true })).toBe(true);
    expect(emailVerified({ email_verified: 'true' })).toBe(false);
    expect(emailVerified({ email_verified: false, xms_edov: true })).toBe(false);
    expect(emailVerified({ xms_edov: true })).toBe(true);
    expect(emailVerified({ xms_edov: 'true' })).toBe(false);
    expect(emailVerified({})).toBe(false);
  });
});

describe('acceptedEmail', () => {
  it('needs a verified email in an allowed domain', () => {
    expect(acceptedEmail({ email: 'a@corp.example', email_verified: true }, [])).toEqual({ email: 'a@corp.example' });
    expect(acceptedEmail({ email: 'a@corp.example', xms_edov: true }, ['corp.example'])).toEqual({ email: 'a@corp.example' });
    expect(acceptedEmail({ email: 'a@corp.example', email_verified: false }, [])).toHaveProperty('refused');
    expect(acceptedEmail({ email: 'a@other.example', email_verified: true }, ['corp.example'])).toHaveProperty('refused');
    expect(acceptedEmail({ email_verified: true }, [])).toHaveProperty('refused');
  });
});

describe('mayClaimExistingUser', () => {
  it('only for a domain the provider lists', () => {
    expect(mayClaimExistingUser('a@corp.example', ['corp.example'])).toBe(true);
    expect(mayClaimExistingUser('A@Corp.Example', ['corp.example'])).toBe(true);
    expect(mayClaimExistingUser('a@corp.example', [])).toBe(false);
    expect(mayClaimExistingUser('a@sub.corp.example', ['corp.example'])).toBe(false);
  });
});

describe('roleFromGroups', () => {
  it('takes the first mapping the person is in, else the default', () => {
    const mappings = [{ group: 'admins', roleId: 'r1' }, { group: 'soc', roleId: 'r2' }];
    expect(roleFromGroups(['soc', 'admins'], mappings, null)).toBe('r1');
    expect(roleFromGroups(['other'], mappings, 'r3')).toBe('r3');
    expect(roleFromGroups([], mappings, null)).toBeNull();
  });
});
