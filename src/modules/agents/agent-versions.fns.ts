import { isDeepStrictEqual } from 'node:util';
import { diffLines } from 'diff';
import { DEFAULT_APPROVAL_SETTINGS } from './agents.schemas.js';

/** The fields of a version snapshot in the order a reader reviews them (`id` never changes). */
export const SNAPSHOT_FIELDS = [
  'name',
  'description',
  'agentType',
  'systemPrompt',
  'modelAlias',
  'toolNames',
  'inputs',
  'structuredOutputSchema',
  'outputDestinationIds',
  'maxSteps',
  'maxDurationMs',
  'acceptanceCriteria',
  'notifyCriteriaFailed',
  'toolPolicies',
  'approvalSettings',
  'triggers',
] as const;

/**
 * What a field a version did not record yet meant: versions written before acceptance criteria
 * (migration 0090) or tool policies and approvals (0138) existed ran with these defaults. A
 * snapshot is read through this, so its answer and its diffs show every field the same way.
 */
const RECORDED_LATER: Record<string, unknown> = {
  acceptanceCriteria: [],
  notifyCriteriaFailed: false,
  toolPolicies: {},
  approvalSettings: DEFAULT_APPROVAL_SETTINGS,
};

/** A stored snapshot with the fields it predates filled with what they meant then (approval settings merged over their defaults). */
export function completeSnapshot<T extends Record<string, unknown>>(snapshot: T): T {
  const out: Record<string, unknown> = { ...snapshot };
  for (const [field, value] of Object.entries(RECORDED_LATER)) {
    if (out[field] === undefined || out[field] === null) out[field] = value;
  }
  out.approvalSettings = { ...(RECORDED_LATER.approvalSettings as object), ...(out.approvalSettings as object) };
  return out as T;
}

/** Text fields: their line diff is of the text itself. */
const TEXT_FIELDS = new Set<string>(['systemPrompt', 'description']);

export interface DiffLine {
  op: 'added' | 'removed' | 'unchanged';
  text: string;
}

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
  /** Text fields, and structured ones as indented JSON: the lines removed, added and kept. */
  lines?: DiffLine[];
}

/** Values as lines: text as is, structured values as indented JSON (jsonb gives both sides the same key order). */
function asText(field: string, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (TEXT_FIELDS.has(field) && typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

export function lineDiff(before: string, after: string): DiffLine[] {
  const out: DiffLine[] = [];
  for (const part of diffLines(before, after)) {
    const op = part.added ? 'added' : part.removed ? 'removed' : 'unchanged';
    const lines = part.value.split('\n');
    if (lines.at(-1) === '') lines.pop(); // the part's trailing newline ends its last line
    for (const text of lines) out.push({ op, text });
  }
  return out;
}

/**
 * What changed from `before` to `after`, field by field (`before` null: the first version,
 * compared with nothing). Scalars give their two values; text and structured fields also their
 * line diff.
 */
export function diffSnapshots(before: Record<string, unknown> | null, after: Record<string, unknown>): FieldChange[] {
  const changes: FieldChange[] = [];
  const from = before ? completeSnapshot(before) : null;
  const to = completeSnapshot(after);
  for (const field of SNAPSHOT_FIELDS) {
    const a = from?.[field] ?? null;
    const b = to[field] ?? null;
    if (isDeepStrictEqual(a, b)) continue;
    const change: FieldChange = { field, before: a, after: b };
    const structured = (a !== null && typeof a === 'object') || (b !== null && typeof b === 'object');
    if (TEXT_FIELDS.has(field) || structured) change.lines = lineDiff(asText(field, a), asText(field, b));
    changes.push(change);
  }
  return changes;
}
