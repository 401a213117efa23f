/**
 * The pure rules of signing in through an identity provider: defaults, issuer comparison, the
 * email and group checks, and the role a person's groups give them.
 */
export const DEFAULT_SCOPES = ['openid', 'email', 'profile'] as const;
export const DEFAULT_GROUPS_CLAIM = 'groups';

/** Issuers are compared exactly (OpenID Connect Discovery §4.3); only a trailing slash the user typed is dropped. */
export function normalizeIssuer(issuer: string): string {
  return issuer.replace(/\/+$/, '');
}

export function sameOrigin(a: string, b: string): boolean {
  return new URL(a).origin === new URL(b).origin;
}

/** The domain of an email address, lowercased, or null when it has none. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  return at > 0 && at < email.length - 1 ? email.slice(at + 1).toLowerCase() : null;
}

export type Refusal = { refused: string };

/**
 * Whether the provider vouches for the email: `email_verified: true` (OpenID Connect Core §5.1).
 * Microsoft Entra ID never sends `email_verified`; its optional claim `xms_edov: true` ("the
 * email's domain owner is verified": the email is in a domain the tenant verified) says the same
 * and is taken only where `email_verified` is absent, never over an explicit false.
 */
export function emailVerified(claims: Record<string, unknown>): boolean {
  if (claims.email_verified !== undefined) return claims.email_verified === true;
  return claims.xms_edov === true;
}

/**
 * The email a person may be signed in with, or why not: the provider must say it is verified
 * (`email_verified: true`, not merely present), and its domain must be allowed.
 */
export function acceptedEmail(claims: Record<string, unknown>, allowedDomains: readonly string[]): { email: string } | Refusal {
  const email = claims.email;
  if (typeof email !== 'string' || !email.includes('@')) return { refused: 'Your identity provider did not send an email address. Ask your administrator to release the email claim (scope "email") to Rampart.' };
  if (!emailVerified(claims)) return { refused: `Your identity provider does not vouch for the email address ${email} (email_verified is not true). Verify it at your identity provider, then sign in again.` };
  const domain = emailDomain(email);
  if (allowedDomains.length > 0 && (!domain || !allowedDomains.includes(domain))) {
    return { refused: `The email address ${email} is not in a domain allowed to sign in to this organization.` };
  }
  return { email };
}

/** The groups of a claim value: an array of strings (Okta, Entra, Keycloak), or one string. */
export function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  return [];
}

/**
 * The role a person's groups give them: the first mapping (in the provider's order) whose group
 * they are in; else the default role; else null (refused). Names are compared exactly (a
 * Keycloak group is `/analysts` with "Full group path" on: map it so, or turn the option off).
 */
export function roleFromGroups(groups: readonly string[], mappings: ReadonlyArray<{ group: string; roleId: string }>, defaultRoleId: string | null): string | null {
  const held = new Set(groups);
  for (const m of mappings) if (held.has(m.group)) return m.roleId;
  return defaultRoleId;
}

/**
 * Whether a provider may take over an existing Rampart user it has never signed in or
 * provisioned, on the strength of its word about the email: only for a domain the organization
 * listed in the provider's `allowedEmailDomains` (an organization that lists none has not said
 * which provider is authoritative for which addresses, so nobody's account is claimed).
 */
export function mayClaimExistingUser(email: string, allowedDomains: readonly string[]): boolean {
  const domain = emailDomain(email);
  return domain !== null && allowedDomains.includes(domain);
}
