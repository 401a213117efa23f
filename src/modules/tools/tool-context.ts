import type { Logger } from 'pino';
import type { Tool, tool as aiTool } from 'ai';
import type { Actor } from '../../platform/auth/actor.js';
import type { Database } from '../../platform/db/database.js';
import type { GuardedClient } from '../../platform/outbound/guarded-client.js';
import type { SecretBox } from '../../platform/secrets.js';
import type { RequestContext } from '../../platform/context.js';
import { missingPermissions } from '../../platform/auth/permissions.js';
import { BUILTIN_TOOL_PERMISSIONS, type BuiltinToolName } from './tool-names.js';

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

export interface ToolDeps {
  db: Database;
  secrets: SecretBox;
  http: GuardedClient;
  logger: Logger;
  /** Built-in tools implemented by higher modules (alerts), wired at the composition root. */
  provided?: ProvidedTools;
}

/** A built-in tool's factory: the tool a run gets, bound to the run's context. */
export type ToolFactory = (deps: ToolDeps, ctx: ToolRunContext) => Tool;
export type ProvidedTools = Partial<Record<BuiltinToolName, ToolFactory>>;

/**
 * Throws (→ a tool-error result the model sees) when the run's user lacks a permission the tool
 * needs. Checked at each call, not when the tool set is built: a role can change mid-run.
 */
export function requireToolPermissions(ctx: ToolRunContext, tool: BuiltinToolName): void {
  const missing = missingPermissions(ctx.actor.permissions, BUILTIN_TOOL_PERMISSIONS[tool]);
  if (missing.length > 0) {
    throw new Error(`Permission denied: ${tool} needs ${missing.join(', ')}, which the user this run acts for does not have`);
  }
}

/** The services' view of a tool call: the run's actor, the run's request id. */
export function requestContextOf(ctx: ToolRunContext): RequestContext {
  if (ctx.actor.organizationId !== ctx.organizationId) throw new Error('The run\'s actor belongs to another organization');
  return { actor: ctx.actor, requestId: ctx.requestId };
}

/**
 * The AI SDK's `tool()` without loading the SDK: the SDK's is the identity function that only
 * types its argument (test/ai-sdk-lazy.test.ts checks it still is), and tools are defined by
 * modules the API process imports, which must not load the SDK (src/platform/ai-sdk.ts).
 */
export const tool: typeof aiTool = ((definition: unknown) => definition) as typeof aiTool;
