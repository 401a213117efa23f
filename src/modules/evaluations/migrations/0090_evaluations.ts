import { sql, type Kysely } from 'kysely';

/**
 * Evaluations (issue 31): labelled datasets of alert cases, evaluations of an agent over one
 * (each case one sandboxed run, mode `evaluation`), the organization's judge model, and on real
 * runs the judge's grading of the agent's acceptance criteria.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE agent_runs DROP CONSTRAINT agent_runs_mode_check`.execute(db);
  await sql`ALTER TABLE agent_runs ADD CONSTRAINT agent_runs_mode_check CHECK (mode IN ('sync', 'async', 'trigger', 'cron', 'triage', 'evaluation'))`.execute(db);
  await sql`
    ALTER TABLE agent_runs
      ADD COLUMN acceptance_criteria_results jsonb,
      ADD COLUMN eval_score smallint CHECK (eval_score BETWEEN 0 AND 100),
      ADD COLUMN eval_explanation text`.execute(db);
  await sql`CREATE INDEX agent_runs_eval_score_idx ON agent_runs (organization_id, eval_score) WHERE eval_score IS NOT NULL`.execute(db);
  await sql`
    ALTER TABLE agents
      ADD COLUMN acceptance_criteria text[] NOT NULL DEFAULT '{}',
      ADD COLUMN notify_criteria_failed boolean NOT NULL DEFAULT false`.execute(db);
  // Agent versions (0080) snapshot the whole agent: the versions written before these columns get their defaults.
  await sql`UPDATE agent_versions SET snapshot = snapshot || jsonb_build_object('acceptanceCriteria', '[]'::jsonb, 'notifyCriteriaFailed', false)`.execute(db);

  await sql`
    CREATE TABLE evaluation_datasets (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      created_by uuid,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      UNIQUE (organization_id, name)
    )`.execute(db);
  await sql`
    CREATE TABLE evaluation_cases (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      dataset_id uuid NOT NULL REFERENCES evaluation_datasets(id) ON DELETE CASCADE,
      position integer NOT NULL,
      alert jsonb,
      input jsonb,
      expected jsonb NOT NULL DEFAULT '{}',
      tags text[] NOT NULL DEFAULT '{}',
      source_alert_id uuid,
      created_at timestamptz NOT NULL,
      CHECK ((alert IS NULL) <> (input IS NULL))
    )`.execute(db);
  await sql`CREATE INDEX evaluation_cases_dataset_idx ON evaluation_cases (dataset_id, position)`.execute(db);
  await sql`CREATE UNIQUE INDEX evaluation_cases_source_alert_idx ON evaluation_cases (dataset_id, source_alert_id) WHERE source_alert_id IS NOT NULL`.execute(db);
  await sql`
    CREATE TABLE evaluations (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      dataset_id uuid REFERENCES evaluation_datasets(id) ON DELETE SET NULL,
      dataset_name text NOT NULL,
      agent_version integer,
      agent_snapshot jsonb NOT NULL,
      concurrency integer NOT NULL,
      status text NOT NULL CHECK (status IN ('running', 'done', 'cancelled')),
      case_count integer NOT NULL,
      created_by uuid,
      created_at timestamptz NOT NULL,
      finished_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX evaluations_agent_idx ON evaluations (organization_id, agent_id, created_at DESC)`.execute(db);
  await sql`
    CREATE TABLE evaluation_results (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL,
      evaluation_id uuid NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
      case_id uuid NOT NULL,
      position integer NOT NULL,
      test_case jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'running', 'judging', 'done', 'error')),
      run_id uuid UNIQUE,
      shadow jsonb,
      recorded jsonb NOT NULL DEFAULT '[]',
      verdict text,
      correct boolean,
      criteria jsonb NOT NULL DEFAULT '[]',
      input_tokens integer NOT NULL DEFAULT 0,
      output_tokens integer NOT NULL DEFAULT 0,
      latency_ms integer,
      error text,
      finished_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX evaluation_results_next_idx ON evaluation_results (evaluation_id, status, position)`.execute(db);
  await sql`
    CREATE TABLE evaluation_settings (
      organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
      judge_model_alias text,
      updated_at timestamptz NOT NULL
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['evaluation_settings', 'evaluation_results', 'evaluations', 'evaluation_cases', 'evaluation_datasets']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(t)}`.execute(db);
  }
  await sql`ALTER TABLE agents DROP COLUMN acceptance_criteria, DROP COLUMN notify_criteria_failed`.execute(db);
  await sql`ALTER TABLE agent_runs DROP COLUMN acceptance_criteria_results, DROP COLUMN eval_score, DROP COLUMN eval_explanation`.execute(db);
  await sql`DELETE FROM agent_runs WHERE mode = 'evaluation'`.execute(db);
  await sql`ALTER TABLE agent_runs DROP CONSTRAINT agent_runs_mode_check`.execute(db);
  await sql`ALTER TABLE agent_runs ADD CONSTRAINT agent_runs_mode_check CHECK (mode IN ('sync', 'async', 'trigger', 'cron', 'triage'))`.execute(db);
}
