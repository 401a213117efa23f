import type { Permission } from './permissions.js';

/**
 * Who is acting: a user, through one of their API keys, or an agent run acting for the user
 * who started it (or who created its trigger), where `apiKeyId` may be null.
 */
export interface Actor {
  type: 'user';
  userId: string;
  organizationId: string;
  apiKeyId: string | null;
  roleId: string;
  permissions: ReadonlySet<string>;
}

/** The operator at the CLI (org creation, bootstrap): outside any API key. */
export interface SystemActor {
  type: 'system';
  organizationId: string;
}

export type AnyActor = Actor | SystemActor;

export function hasPermission(actor: Actor, permission: Permission): boolean {
  return actor.permissions.has(permission);
}
