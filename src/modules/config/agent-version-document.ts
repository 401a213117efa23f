import { stringify } from 'yaml';
import type { Database } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/context.js';
import { NotFoundError } from '../../platform/http/errors.js';
import { agentVersionSnapshot, completeSnapshot, type AgentsService } from '../agents/index.js';
import { API_VERSION } from './config.schemas.js';
import { agentDocumentSpec } from './kinds/agents.js';
import type { KindHandler } from './kinds/kind.js';

/**
 * Issue 47 item 4: a version of an agent as the `Agent` document that would make the agent that
 * version — what to paste in the file of an agent managed by code instead of restoring it by hand
 * (restore answers 409 pointing here). Output destinations are named as in an export; the agent's
 * current `maxConcurrentRuns` is kept (versions do not record it, and a restore keeps it too).
 */
export async function agentVersionDocument(
  deps: { db: Database; agents: AgentsService; destinations: KindHandler | undefined },
  ctx: RequestContext,
  agentId: string,
  version: number,
): Promise<string> {
  const agent = await deps.agents.get(ctx, agentId); // 404 Agent not found (another organization's too)
  const snapshot = await agentVersionSnapshot(deps.db, ctx.actor.organizationId, agentId, version);
  if (!snapshot) throw new NotFoundError('Agent version');
  const s = completeSnapshot(snapshot);
  const names = new Map((await deps.destinations?.current(ctx, new Map()))?.map((d) => [d.id, d.name]) ?? []);
  const spec = agentDocumentSpec(
    {
      ...s,
      description: s.description,
      inputs: s.inputs as typeof agent.inputs,
      toolPolicies: (s.toolPolicies ?? {}) as typeof agent.toolPolicies,
      approvalSettings: s.approvalSettings as typeof agent.approvalSettings,
      maxConcurrentRuns: agent.maxConcurrentRuns,
    },
    names,
  );
  const header = `# Agent "${s.name}" as version ${version}: put this document in its file and run \`rampart apply\`\n`;
  return header + stringify({ apiVersion: API_VERSION, kind: 'Agent', metadata: { name: s.name }, spec }, { lineWidth: 0 });
}
