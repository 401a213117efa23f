import type { Generated } from 'kysely';
import type { Timestamp, NullableTimestamp, JsonDefault, NullableJson } from '../../platform/db/schema.js';

/**
 * The evaluations module's tables as Kysely sees them, merged into the one database type
 * (platform/db/schema.ts `DB`) by declaration merging; the structure test keeps every table's
 * type here, with its owner.
 */
declare module '../../platform/db/schema.js' {
  interface DB {
    evaluationDatasets: EvaluationDatasetsTable;
    evaluationCases: EvaluationCasesTable;
    evaluations: EvaluationsTable;
    evaluationResults: EvaluationResultsTable;
    evaluationSettings: EvaluationSettingsTable;
  }
}

/** Evaluations (migration 0090; the evaluations module). */
export interface EvaluationDatasetsTable {
  id: string;
  organizationId: string;
  name: string;
  description: Generated<string>;
  createdBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface EvaluationCasesTable {
  id: string;
  organizationId: string;
  datasetId: string;
  position: number;
  alert: NullableJson<Record<string, unknown>>;
  input: NullableJson<unknown>;
  expected: JsonDefault<Record<string, unknown>>;
  tags: Generated<string[]>;
  sourceAlertId: string | null;
  createdAt: Timestamp;
}

export interface EvaluationsTable {
  id: string;
  organizationId: string;
  agentId: string;
  datasetId: string | null;
  datasetName: string;
  agentVersion: number | null;
  agentSnapshot: JsonDefault<Record<string, unknown>>;
  concurrency: number;
  status: 'running' | 'done' | 'cancelled';
  caseCount: number;
  createdBy: string | null;
  createdAt: Timestamp;
  finishedAt: NullableTimestamp;
}

export interface EvaluationResultsTable {
  id: string;
  organizationId: string;
  evaluationId: string;
  caseId: string;
  position: number;
  testCase: JsonDefault<Record<string, unknown>>;
  status: 'pending' | 'running' | 'judging' | 'done' | 'error';
  runId: string | null;
  shadow: NullableJson<Record<string, unknown>>;
  recorded: JsonDefault<unknown[]>;
  verdict: string | null;
  correct: boolean | null;
  criteria: JsonDefault<unknown[]>;
  inputTokens: Generated<number>;
  outputTokens: Generated<number>;
  latencyMs: number | null;
  error: string | null;
  finishedAt: NullableTimestamp;
}

export interface EvaluationSettingsTable {
  organizationId: string;
  judgeModelAlias: string | null;
  updatedAt: Timestamp;
}
