import type { RequestContext } from '../../platform/context.js';
import type { ToolRunContext } from '../../platform/agent-tools.js';

export type { ToolCatalog, ToolDeclaration, ToolDeps, ToolFactory, ToolRunContext } from '../../platform/agent-tools.js';

/** The services' view of a tool call: the run's actor, the run's request id. */
export function requestContextOf(ctx: ToolRunContext): RequestContext {
  if (ctx.actor.organizationId !== ctx.organizationId) throw new Error('The run\'s actor belongs to another organization');
  return { actor: ctx.actor, requestId: ctx.requestId };
}
