import { sql, type Kysely } from 'kysely';

/**
 * Issue 43: tool policies and approval requests (docs/approvals.md).
 *
 *   agents.tool_policies        {toolName: 'allow' | 'approve' | 'deny'}; a tool not named takes its
 *                               declared default (built-in's defaultPolicy, MCP annotations)
 *   agents.approval_settings    expiry, who may decide, requireSecondPerson
 *   agent_runs.status           gains 'awaiting_approval': the run's job has ended; it holds nothing
 *   agent_runs.transcript       what a run resumes from: the model messages and the steps so far
 *   tool_approvals              one row per tool call that needs a person, with its state machine
 *                               pending → approved → executing → executed | failed | outcome_unknown,
 *                               or pending → denied | expired
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE agents
      ADD COLUMN tool_policies jsonb NOT NULL DEFAULT '{}'::jsonb,
      ADD COLUMN approval_settings jsonb NOT NULL DEFAULT '{}'::jsonb`.execute(db);
  await sql`ALTER TABLE agent_runs DROP CONSTRAINT IF EXISTS agent_runs_status_check`.execute(db);
  await sql`
    ALTER TABLE agent_runs
      ADD CONSTRAINT agent_runs_status_check CHECK (status IN ('waiting', 'running', 'awaiting_approval', 'done', 'error', 'interrupted')),
      ADD COLUMN transcript jsonb`.execute(db);
  await sql`
    CREATE TABLE tool_approvals (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      run_id uuid NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
      agent_id uuid NOT NULL,
      alert_id uuid,
      tool_call_id text NOT NULL,
      tool_name text NOT NULL,
      args jsonb NOT NULL,
      reason text NOT NULL DEFAULT '',
      status text NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'executing', 'executed', 'failed', 'outcome_unknown')),
      requested_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      decided_at timestamptz,
      decided_by_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      decided_by_name text,
      decided_via text CHECK (decided_via IN ('console', 'api', 'slack', 'expiry')),
      comment text,
      executed_at timestamptz,
      outcome jsonb,
      slack_message jsonb,
      UNIQUE (run_id, tool_call_id)
    )`.execute(db);
  await sql`CREATE INDEX tool_approvals_org_status_idx ON tool_approvals (organization_id, status, requested_at DESC)`.execute(db);
  await sql`CREATE INDEX tool_approvals_expiry_idx ON tool_approvals (expires_at) WHERE status = 'pending'`.execute(db);
  await sql`CREATE INDEX tool_approvals_decided_by_idx ON tool_approvals (decided_by_user_id) WHERE decided_by_user_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX tool_approvals_alert_idx ON tool_approvals (alert_id) WHERE alert_id IS NOT NULL`.execute(db);
  // The system roles of existing organizations: Super Admin holds every permission, Analyst every read.
  for (const [role, permission] of [['Super Admin', 'approval.read'], ['Super Admin', 'approval.decide'], ['Analyst', 'approval.read']] as const) {
    await sql`UPDATE roles SET permissions = array_append(permissions, ${permission}) WHERE is_system AND name = ${role} AND NOT (${permission} = ANY (permissions))`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE roles SET permissions = array_remove(array_remove(permissions, 'approval.read'), 'approval.decide') WHERE is_system`.execute(db);
  await sql`DROP TABLE IF EXISTS tool_approvals`.execute(db);
  await sql`UPDATE agent_runs SET status = 'error', status_message = 'Awaited an approval when approvals were removed' WHERE status = 'awaiting_approval'`.execute(db);
  await sql`ALTER TABLE agent_runs DROP CONSTRAINT IF EXISTS agent_runs_status_check`.execute(db);
  await sql`ALTER TABLE agent_runs ADD CONSTRAINT agent_runs_status_check CHECK (status IN ('waiting', 'running', 'done', 'error', 'interrupted')), DROP COLUMN IF EXISTS transcript`.execute(db);
  await sql`ALTER TABLE agents DROP COLUMN IF EXISTS tool_policies, DROP COLUMN IF EXISTS approval_settings`.execute(db);
}
