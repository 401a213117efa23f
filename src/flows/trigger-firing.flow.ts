import { sql } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../platform/db/database.js';
import { createGroupCommit, type GroupCommit, type GroupCommitOptions } from '../platform/db/group-commit.js';
import { prepared } from '../platform/db/prepared.js';
import {
  alertCreated,
  alertInsert,
  alertStatement,
  answered,
  countDuplicate,
  duplicateEntryOf,
  groupedAlertEntries,
  groupedAlertJson,
  groupedAlertRows,
  groupedAlertsInsert,
  insertedDisplayId,
  newAlertEntries,
  newAlertRecord,
  toAlertDto,
  type AlertDeps,
  type AlertDto,
  type AlertInsertParam,
  type AlongWithAlert,
  type NewAlert,
} from '../modules/alerts/index.js';
import { runParams, runRowJson, runWithJob, runsWithJobs, type NewRun, type RunParam } from '../modules/runs/index.js';

/**
 * The trigger firing: a trigger's alert, its timeline, the run that triages it and the run's job,
 * written by ONE statement (on the intake path every round trip costs more CPU than the statement
 * it carries; one statement halved intake CPU). The statement is assembled here from the pieces
 * each owner exports: alerts' statement, `ins` and entries (alerts.repo.ts), runs' run-and-job
 * CTEs (runs.enqueue.ts). Neither owner writes the other's table: alerts' `createAlert` writes
 * no run, runs know no alert statement. test/platform/flows.test.ts compares each statement's compiled SQL.
 */

/** What runs write with a new alert: the run and its job (`run`, `run_job`), read so that they run. */
function runsAlong(ctes: ReturnType<typeof runWithJob>): AlongWithAlert {
  return { ctes, read: sql`(SELECT count(*) FROM run_job) AS runs_queued` };
}

/** One trigger alert and its run: the run (and its job) is written only when the alert is (not when a race made it a duplicate). */
export const insertAlertWithRunStatement = prepared('insert_alert_with_run', (db, p: <T>(k: AlertInsertParam | RunParam | 'alertId' | 'alertDisplayId') => T) =>
  alertStatement(alertInsert(db, p), p('entries'), runsAlong(runWithJob(p, { from: sql`ins`, where: sql<boolean>`ins.inserted`, alertId: sql<string>`ins.id`, alertDisplayId: insertedDisplayId }))),
);

/**
 * Many trigger alerts, each with its timeline entries and the run that triages it and its job, in
 * ONE statement with one `add_jobs` call (group commit of webhook intake: platform/db/group-commit.ts).
 * Only alerts without a dedupe key (nothing to conflict with: each is inserted) and with a run.
 * `items`: a JSON array of `{a: alert row, e: entries, r: run row}` (`groupedFiringJson`).
 */
export const insertTriggerAlertsStatement = prepared('insert_trigger_alerts', (_db, p: <T>(k: 'items') => T) => {
  const runs = runsWithJobs({ from: groupedAlertRows, row: sql`d.x->'r'`, alertId: sql<string>`ins.id`, alertDisplayId: insertedDisplayId });
  return alertStatement(groupedAlertsInsert(), groupedAlertEntries, runsAlong(runs), { with: sql`d AS (SELECT x FROM jsonb_array_elements(${p('items')}::jsonb) AS x)`, from: groupedAlertRows });
});

/** Trigger alerts (no dedupe key, with their run and job) written by one statement per batch: platform/db/group-commit.ts. */
export type TriggerAlertGroup = GroupCommit<{ id: string; json: string }, AlertDto>;

export function createTriggerAlertGroup(db: Queryable, opts: GroupCommitOptions): TriggerAlertGroup {
  return createGroupCommit(async (items) => {
    const rows = await insertTriggerAlertsStatement.execute(db, { items: `[${items.map((i) => i.json).join(',')}]` });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return items.map((i) => toAlertDto(byId.get(i.id)!));
  }, opts);
}

/** A trigger's alert, triaged by the trigger's own run (`triage.runId`), which is queued with it. */
export type TriggerAlert = NewAlert & { triage: { kind: 'trigger'; agentId: string; runId: string; triggerName: string } };

export interface TriggerFiringDeps extends AlertDeps {
  /**
   * Set by a caller whose alert is its whole change, outside any transaction (webhook intake's
   * one-statement path): an alert without a dedupe key is then written with its run by this
   * group commit, together with the alerts of concurrent deliveries (`createTriggerAlertGroup`).
   */
  grouped?: TriggerAlertGroup;
}

/**
 * The trigger's alert and the run that triages it (`run`: the run but its id, which is the
 * triage's `runId`), inside the caller's transaction, as createAlert does an alert: a signal
 * whose dedupe key matches an open alert is counted on it (no run); otherwise the alert, its
 * timeline, the run and its job are one statement (or one batch's, with `grouped`), and
 * `alert.created` is recorded.
 */
export async function createTriggerAlert(tx: Queryable, input: TriggerAlert, run: Omit<NewRun, 'id' | 'alert'>, deps: TriggerFiringDeps): Promise<{ alert: AlertDto; created: boolean }> {
  if (input.dedupeKey) {
    const existing = await countDuplicate(tx, input.organizationId, input.dedupeKey, duplicateEntryOf(input));
    if (existing) return { alert: existing, created: false };
  }
  const now = new Date();
  const id = uuidv7();
  // A trigger's alert starts no triage chain: its depth is 0 (createAlert counts only agents' alerts).
  const { values, entries, duplicateEntry } = newAlertRecord(input, { id, now, depth: 0 });
  const triageRun = { ...run, id: input.triage.runId };
  if (deps.grouped && !values.dedupeKey) {
    // Written with its run and job by the statement of its batch, which committed before this returns.
    const alert = await deps.grouped.submit({ id, json: groupedFiringJson(groupedAlertJson(values, entries), runRowJson(triageRun, now)) });
    await alertCreated(tx, deps.events, alert);
    return { alert, created: true };
  }
  const rows = await insertAlertWithRunStatement.execute(tx, { ...values, ...runParams(triageRun), entries: newAlertEntries(entries, duplicateEntry), alertId: null, alertDisplayId: null });
  const written = answered(rows)!;
  // Lost a race to an identical signal: the other insert's row counts it as a duplicate, and no run was written.
  if (!written.inserted) return { alert: written.alert, created: false };
  await alertCreated(tx, deps.events, written.alert);
  return { alert: written.alert, created: true };
}

/** One element of insertTriggerAlertsStatement's `items`: the alert's members (alerts' groupedAlertJson) and its run's row under `r`. */
function groupedFiringJson(alertMembers: string, run: Record<string, unknown>): string {
  return `{${alertMembers},"r":${JSON.stringify(run)}}`;
}
