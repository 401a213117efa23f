import { CamelCasePlugin, DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/platform/db/database.js';
import type { PreparedStatement } from '../../src/platform/db/prepared.js';
import { insertAlertWithRunStatement, insertTriggerAlertsStatement } from '../../src/flows/trigger-firing.flow.js';
import { countDuplicateStatement, insertAlertStatement } from '../../src/modules/alerts/alerts.repo.js';

/**
 * The flows' prepared statements (src/flows/), compiled and compared as Kysely's own tests do:
 * the SQL text (whitespace aside) and each parameter, without a database. The trigger firing
 * is ONE statement (alert, timeline, run, job), assembled from alerts' and runs' pieces; a change
 * to a piece shows here as a change of the statement. Behaviour: test/trigger-intake*.test.ts.
 */
const db = new Kysely<any>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
  // As openDatabase (platform/db/database.ts): camelCase in TypeScript, snake_case in SQL.
  plugins: [new CamelCasePlugin({ maintainNestedObjectKeys: true })],
}) as unknown as Queryable;

const oneLine = (s: string) => s.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim();

function expectCompiled(statement: PreparedStatement<string, unknown>, expected: { sql: string; parameters: unknown[] }) {
  const compiled = statement.compiled(db);
  expect(oneLine(compiled.sql)).toBe(oneLine(expected.sql));
  expect(compiled.parameters).toEqual(expected.parameters);
  // One statement: no second one hides after a semicolon.
  expect(compiled.sql).not.toContain(';');
}

describe('the trigger firing flow', () => {
  it('writes a trigger alert, its timeline, its run and the run’s job in one statement', () => {
    expectCompiled(insertAlertWithRunStatement, {
      sql: `
      WITH ins AS (insert into "alerts" ("id", "organization_id", "title", "description", "severity", "status", "source_category", "source_name", "trigger_type", "created_by", "created_by_user_id", "code_detection_id", "origin_code_detection_hit_id", "origin_agent_id", "origin_trigger_id", "origin_run_id", "external_provider", "external_ref", "external_url", "dedupe_key", "payload", "routing_depth", "hunt_qualified_by", "created_at", "updated_at", "assigned_agent_id", "triage_run_id", "first_triaged_at", "routing", "payload_raw", "number", "duplicate_of_alert_id") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, nextval(rampart_alert_numbers_sequence($31::uuid)::regclass), CASE WHEN $32::text IS NULL THEN NULL ELSE (SELECT id FROM alerts WHERE organization_id = $33::uuid AND dedupe_key = $34::text ORDER BY number DESC LIMIT 1) END) on conflict ("organization_id", "dedupe_key") where "dedupe_key" is not null and "status" in ('open', 'in_progress', 'escalated') do update set "duplicate_count" = "alerts"."duplicate_count" + $35, "updated_at" = now() returning *, (xmax = 0) as "inserted"),
      tl AS (
      INSERT INTO alert_timeline (id, organization_id, alert_id, kind, actor_type, actor_user_id, actor_agent_id, run_id, body, data, created_at)
      SELECT e.id, ins.organization_id, ins.id, e.kind, e.actor_type, e.actor_user_id, e.actor_agent_id, e.run_id,
      CASE WHEN e.numbered THEN $36 || ins.number || e.body ELSE e.body END, e.data, e.created_at
      FROM ins, jsonb_to_recordset($37::jsonb) AS e(id uuid, kind text, actor_type text, actor_user_id uuid, actor_agent_id uuid, run_id uuid, body text, data jsonb, created_at timestamptz, numbered boolean, on_insert boolean)
      WHERE e.on_insert = ins.inserted
      ),
      run AS (
      INSERT INTO agent_runs ("id", "organization_id", "agent_id", "agent_version", "status", "mode", "input", "actor_user_id", "actor_api_key_id", "trigger_id", "trigger_source", "trigger_context", "alert_id", "alert_display_id", "agent_snapshot", "queued_at", "updated_at")
      SELECT $38, $39, $40, (SELECT version FROM agents WHERE id = $41), 'waiting', $42, $43, $44, $45, $46, $47, $48, ins.id, $49 || ins.number, $50, $51, $52
      FROM ins WHERE ins.inserted
      RETURNING id, agent_id
      ),
      run_job AS (
      SELECT (SELECT j.id FROM graphile_worker.add_jobs(ARRAY[ROW(
      $53,
      $54::json,
      NULL,
      $55::timestamptz,
      $56::smallint,
      $57::text,
      $58::smallint,
      ARRAY[$59 || run.agent_id::text]::text[]
      )::graphile_worker.job_spec]) AS j) AS id FROM run
      )
      SELECT "ins"."id", "ins"."organization_id", "ins"."number", "ins"."title", "ins"."description", "ins"."severity", "ins"."status", "ins"."duplicate_count", "ins"."source_category", "ins"."source_name", "ins"."trigger_type", "ins"."created_by", "ins"."created_by_user_id", "ins"."code_detection_id", "ins"."origin_code_detection_hit_id", "ins"."origin_agent_id", "ins"."origin_trigger_id", "ins"."origin_run_id", "ins"."assigned_agent_id", "ins"."triage_run_id", "ins"."external_provider", "ins"."external_ref", "ins"."external_url", "ins"."dedupe_key", "ins"."routing", "ins"."routing_depth", "ins"."hunt_qualified_by", "ins"."duplicate_of_alert_id", "ins"."created_at", "ins"."updated_at", "ins"."first_triaged_at", "ins"."resolved_at", "ins"."resolved_by_type", "ins"."resolved_by_user_id", "ins"."resolved_by_agent_name", "ins"."resolved_reason", ins.inserted, (SELECT count(*) FROM run_job) AS runs_queued, o.name AS organization_name, (SELECT name FROM agents WHERE id = "ins"."origin_agent_id") AS origin_agent_name, (SELECT name FROM agents WHERE id = "ins"."assigned_agent_id") AS assigned_agent_name, cd.name AS detection_name, cd.rule_id AS detection_rule_id
      FROM ins
      JOIN organizations o ON o.id = ins.organization_id
      LEFT JOIN code_detections cd ON cd.id = ins.code_detection_id`,
      parameters: [
      { key: 'id' }, { key: 'organizationId' }, { key: 'title' }, { key: 'description' }, { key: 'severity' }, { key: 'status' },
      { key: 'sourceCategory' }, { key: 'sourceName' }, { key: 'triggerType' }, { key: 'createdBy' }, { key: 'createdByUserId' },
      { key: 'codeDetectionId' }, { key: 'originCodeDetectionHitId' }, { key: 'originAgentId' }, { key: 'originTriggerId' },
      { key: 'originRunId' }, { key: 'externalProvider' }, { key: 'externalRef' }, { key: 'externalUrl' }, { key: 'dedupeKey' },
      { key: 'payload' }, { key: 'routingDepth' }, { key: 'huntQualifiedBy' }, { key: 'createdAt' }, { key: 'updatedAt' },
      { key: 'assignedAgentId' }, { key: 'triageRunId' }, { key: 'firstTriagedAt' }, { key: 'routing' }, { key: 'payloadRaw' },
      { key: 'organizationId' },
      { key: 'dedupeKey' }, { key: 'organizationId' }, { key: 'dedupeKey' }, { value: 1 }, { value: 'RMP-' }, { key: 'entries' },
      { key: 'id' }, { key: 'organizationId' }, { key: 'agentId' }, { key: 'agentId' }, { key: 'mode' }, { key: 'input' },
      { key: 'actorUserId' }, { key: 'actorApiKeyId' }, { key: 'triggerId' }, { key: 'triggerSource' }, { key: 'triggerContext' },
      { value: 'RMP-' }, { key: 'agentSnapshot' }, { key: 'now' }, { key: 'now' }, { value: 'agents:run' }, { key: 'job' },
      { value: null }, { value: 2 }, { key: 'jobKey' }, { value: null }, { value: 'agent:' },
      ],
    });
  });

  it('writes a group commit’s alerts, timelines, runs and jobs in one statement with one add_jobs call', () => {
    expectCompiled(insertTriggerAlertsStatement, {
      sql: `
      WITH d AS (SELECT x FROM jsonb_array_elements($1::jsonb) AS x), ins AS (
      INSERT INTO alerts ("id", "organization_id", "title", "description", "severity", "status", "source_category", "source_name", "trigger_type", "created_by", "created_by_user_id", "code_detection_id", "origin_code_detection_hit_id", "origin_agent_id", "origin_trigger_id", "origin_run_id", "external_provider", "external_ref", "external_url", "dedupe_key", "payload", "routing_depth", "hunt_qualified_by", "created_at", "updated_at", "assigned_agent_id", "triage_run_id", "first_triaged_at", "routing", "payload_raw", number)
      SELECT "a"."id", "a"."organization_id", "a"."title", "a"."description", "a"."severity", "a"."status", "a"."source_category", "a"."source_name", "a"."trigger_type", "a"."created_by", "a"."created_by_user_id", "a"."code_detection_id", "a"."origin_code_detection_hit_id", "a"."origin_agent_id", "a"."origin_trigger_id", "a"."origin_run_id", "a"."external_provider", "a"."external_ref", "a"."external_url", "a"."dedupe_key", d.x->'a'->'payload', "a"."routing_depth", "a"."hunt_qualified_by", "a"."created_at", "a"."updated_at", "a"."assigned_agent_id", "a"."triage_run_id", "a"."first_triaged_at", "a"."routing", "a"."payload_raw", nextval(rampart_alert_numbers_sequence(a.organization_id)::regclass)
      FROM d, jsonb_populate_record(NULL::alerts, d.x->'a') AS a
      RETURNING *, true AS inserted),
      tl AS (
      INSERT INTO alert_timeline (id, organization_id, alert_id, kind, actor_type, actor_user_id, actor_agent_id, run_id, body, data, created_at)
      SELECT e.id, ins.organization_id, ins.id, e.kind, e.actor_type, e.actor_user_id, e.actor_agent_id, e.run_id,
      CASE WHEN e.numbered THEN $2 || ins.number || e.body ELSE e.body END, e.data, e.created_at
      FROM d JOIN ins ON ins.id = (d.x->'a'->>'id')::uuid, jsonb_to_recordset(d.x->'e') AS e(id uuid, kind text, actor_type text, actor_user_id uuid, actor_agent_id uuid, run_id uuid, body text, data jsonb, created_at timestamptz, numbered boolean, on_insert boolean)
      WHERE e.on_insert = ins.inserted
      ),
      run AS (
      INSERT INTO agent_runs (id, organization_id, agent_id, agent_version, status, mode, input, actor_user_id, actor_api_key_id, trigger_id,
      trigger_source, trigger_context, alert_id, alert_display_id, agent_snapshot, queued_at, updated_at)
      SELECT r.id, r.organization_id, r.agent_id, (SELECT version FROM agents WHERE id = "r"."agent_id"), 'waiting', r.mode, (d.x->'r')->'input', r.actor_user_id, r.actor_api_key_id, r.trigger_id,
      r.trigger_source, r.trigger_context, ins.id, $3 || ins.number, r.agent_snapshot, r.queued_at, r.updated_at
      FROM d JOIN ins ON ins.id = (d.x->'a'->>'id')::uuid, jsonb_populate_record(NULL::agent_runs, d.x->'r') AS r
      RETURNING id, agent_id
      ),
      -- The job's payload as runParams writes it, byte for byte.
      run_job AS (
      SELECT j.id FROM (
      SELECT j.* FROM (SELECT ARRAY(SELECT ROW(
      $4::text,
      ('{"runId":"' || run.id || '"}')::json,
      NULL::text,
      NULL::timestamptz,
      $5::smallint,
      $6 || run.id::text,
      $7::smallint,
      ARRAY[$8 || run.agent_id::text]::text[]
      )::graphile_worker.job_spec FROM run) AS specs) AS s,
      LATERAL graphile_worker.add_jobs(s.specs) AS j
      WHERE cardinality(s.specs) > 0
      ) AS j
      )
      SELECT "ins"."id", "ins"."organization_id", "ins"."number", "ins"."title", "ins"."description", "ins"."severity", "ins"."status", "ins"."duplicate_count", "ins"."source_category", "ins"."source_name", "ins"."trigger_type", "ins"."created_by", "ins"."created_by_user_id", "ins"."code_detection_id", "ins"."origin_code_detection_hit_id", "ins"."origin_agent_id", "ins"."origin_trigger_id", "ins"."origin_run_id", "ins"."assigned_agent_id", "ins"."triage_run_id", "ins"."external_provider", "ins"."external_ref", "ins"."external_url", "ins"."dedupe_key", "ins"."routing", "ins"."routing_depth", "ins"."hunt_qualified_by", "ins"."duplicate_of_alert_id", "ins"."created_at", "ins"."updated_at", "ins"."first_triaged_at", "ins"."resolved_at", "ins"."resolved_by_type", "ins"."resolved_by_user_id", "ins"."resolved_by_agent_name", "ins"."resolved_reason", ins.inserted, (SELECT count(*) FROM run_job) AS runs_queued, o.name AS organization_name, (SELECT name FROM agents WHERE id = "ins"."origin_agent_id") AS origin_agent_name, (SELECT name FROM agents WHERE id = "ins"."assigned_agent_id") AS assigned_agent_name, cd.name AS detection_name, cd.rule_id AS detection_rule_id
      FROM ins
      JOIN organizations o ON o.id = ins.organization_id
      LEFT JOIN code_detections cd ON cd.id = ins.code_detection_id`,
      parameters: [
      { key: 'items' }, { value: 'RMP-' }, { value: 'RMP-' }, { value: 'agents:run' }, { value: 2 }, { value: 'agent-run:' },
      { value: null }, { value: 'agent:' },
      ],
    });
  });

  it('leaves alerts’ own statements without runs: createAlert writes no run', () => {
    for (const statement of [insertAlertStatement, countDuplicateStatement]) {
      const { sql } = statement.compiled(db);
      expect(sql).toContain('INSERT INTO alert_timeline');
      expect(sql).not.toMatch(/agent_runs|add_jobs|run_job/);
    }
  });
});
