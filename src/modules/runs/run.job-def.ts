import { z } from 'zod';
import type { JobType } from '../../platform/jobs/catalog.js';

/**
 * The agent-run job's type. Payload: the run id only; the handler re-reads the run, so a retry
 * after a crash sees its current state. Two attempts: a run that crashed its worker is retried
 * once (it starts over: model calls are not resumable), a run that failed cleanly is not retried
 * (its error is recorded on the run and the handler returns normally).
 */
export const agentRunJob: JobType<{ runId: string }> = {
  name: 'agents:run',
  payload: z.object({ runId: z.uuid() }),
  maxAttempts: 2,
};

/** One job per run (graphile-worker's job key): what the run sweep joins a run to its job by. */
export const agentRunJobKey = (runId: string) => `agent-run:${runId}`;

/**
 * The graphile-worker flag of an agent's run jobs: what a worker skips while the agent has its
 * share of slots, or its own limit (run-fair-share.ts). The prefix only, as SQL builds it.
 */
export const AGENT_RUN_FLAG_PREFIX = 'agent:';
export const agentRunFlag = (agentId: string) => `${AGENT_RUN_FLAG_PREFIX}${agentId}`;
