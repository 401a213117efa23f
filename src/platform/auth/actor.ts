import type { Permission } from './permissions.js';

/** Who is making a request: a user acting through one of their API keys. */
export interface Actor {
  type: 'user';
  userId: string;
  organizationId: string;
  apiKeyId: string;
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
