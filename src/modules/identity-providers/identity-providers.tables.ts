import type { Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, Json } from '../../platform/db/schema.js';

/**
 * The identity-providers module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    identityProviders: IdentityProvidersTable;
    identityProviderLinks: IdentityProviderLinksTable;
    oidcLoginStates: OidcLoginStatesTable;
    scimGroups: ScimGroupsTable;
    scimGroupMembers: ScimGroupMembersTable;
  }
}

/** Migration 0135: OpenID Connect providers per organization (issue 45). */
export interface IdentityProvidersTable {
  id: string;
  organizationId: string;
  name: string;
  issuer: string;
  clientId: string;
  clientSecretCiphertext: string;
  scopes: string[];
  groupsClaim: string;
  allowedEmailDomains: string[];
  roleMappings: Json<Array<{ group: string; roleId: string }>>;
  defaultRoleId: string | null;
  scimTokenHash: Buffer | null;
  scimTokenCreatedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface IdentityProviderLinksTable {
  providerId: string;
  organizationId: string;
  userId: string;
  subject: string | null;
  scimExternalId: string | null;
  scimUserName: string | null;
  createdAt: Generated<Date>;
}

export interface OidcLoginStatesTable {
  stateHash: Buffer;
  providerId: string;
  codeVerifier: string;
  nonce: string;
  createdAt: Generated<Date>;
  expiresAt: Timestamp;
}

export interface ScimGroupsTable {
  id: string;
  providerId: string;
  displayName: string;
  externalId: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ScimGroupMembersTable {
  groupId: string;
  userId: string;
}
