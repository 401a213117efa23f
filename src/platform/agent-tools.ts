import type { Logger } from 'pino';
import type { Tool } from 'ai';
import type { Actor } from './auth/actor.js';
import type { Permission } from './auth/permissions.js';
import type { Database } from './db/database.js';
import type { EventBus } from './events.js';
import type { GuardedClient } from './outbound/guarded-client.js';
import type { SecretBox } from './secrets.js';

/**
 * What an agent tool is, below every module: the tools module builds a run's tool set from the
 * catalog the composition root assembles out of the modules' manifests (`tools`), so a module
 * above `tools` (alerts) declares its tools like any other, and `tools` imports none of them.
 */

/** Who a run's tools act for, and for which run. */
export interface ToolRunContext {
  organizationId: string;
  /** The user the run acts for, with their permissions: every tool call is checked against them. */
  actor: Actor;
  runId: string;
  agentId: string;
  /** The alert the run triages, if any: the alert tools' default `alertId`. */
  alertId?: string | null;
  /** Aborted when the run is interrupted or times out. */
  signal: AbortSignal;
  /** Written to the audit log of what the tools change. */
  requestId: string;
}

/** What a tool factory gets from the process: the run job's own dependencies. */
export interface ToolDeps {
  db: Database;
  secrets: SecretBox;
  http: GuardedClient;
  logger: Logger;
  /** The process's domain events (a tool's change emits them: an alert tool's `alert.status_changed`). */
  events?: EventBus;
  /** Every tool a run may be given (the composition root's); without one, the tools module's own built-ins. */
  catalog?: ToolCatalog;
}

/** A tool's factory: the tool a run gets, bound to the run's context. */
export type ToolFactory = (deps: ToolDeps, ctx: ToolRunContext) => Tool;

/**
 * A built-in tool as a module declares it: the permissions the run's user needs (checked by the
 * tool set at each call, not when the set is built: a role can change mid-run) and its factory.
 * Where the tool runs a command that also has a route, `permissions` is the command's own
 * (e.g. `alertCommands.setStatus.permissions`), the same array the route's config names.
 */
export interface ToolDeclaration {
  permissions: readonly Permission[];
  factory: ToolFactory;
  /**
   * The tool's policy when the agent sets none (docs/approvals.md): `approve` makes each call wait
   * for a person, `deny` refuses it. Absent: `allow` (built-in read tools).
   */
  defaultPolicy?: 'allow' | 'approve' | 'deny';
}

/** Tools by the name agents list them under. */
export type ToolCatalog = Readonly<Record<string, ToolDeclaration>>;
