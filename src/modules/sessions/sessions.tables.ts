import type { Generated } from 'kysely';
import type { Timestamp, NullableTimestamp } from '../../platform/db/schema.js';

/**
 * The sessions module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    consoleSessions: ConsoleSessionsTable;
    consoleLoginLinks: ConsoleLoginLinksTable;
    consoleSignInSettings: ConsoleSignInSettingsTable;
    consoleAddress: ConsoleAddressTable;
  }
}

export interface ConsoleSessionsTable {
  id: string;
  organizationId: string;
  userId: string;
  apiKeyId: string | null;
  method: 'api_key' | 'login_link' | 'oidc';
  tokenHash: Buffer;
  createdAt: Timestamp;
  lastSeenAt: Timestamp;
  expiresAt: Timestamp;
  revokedAt: NullableTimestamp;
}

export interface ConsoleSignInSettingsTable {
  organizationId: string;
  apiKeySignIn: Generated<boolean>;
  updatedAt: Timestamp;
}

export interface ConsoleLoginLinksTable {
  id: string;
  organizationId: string;
  userId: string;
  tokenHash: Buffer;
  createdAt: Timestamp;
  expiresAt: Timestamp;
  usedAt: NullableTimestamp;
}

/** One row (migration 0050): the address the serving process answers at, for admin commands. */
export interface ConsoleAddressTable {
  id: Generated<boolean>;
  baseUrl: string;
  updatedAt: Generated<Date>;
}
