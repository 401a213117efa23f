import { uuidv7 } from './ids.fns.js';
import type { Queryable } from '../../platform/db/database.js';
import { LOG_SOURCES, sigmaRules } from '../intel/index.js';
import type { ItemEvidence } from './assess.store.js';

/**
 * Rule proposals: a Sigma rule pinned to the indicators of a threat that were seen (sighted or
 * checked `found`), made with intel's detection-context generator. A new set of found
 * indicators supersedes the previous proposal (`supersededById`); the same set makes nothing.
 * Lifecycle: authoring → review → deployed; review → authoring; any → retired (docs/hunt.md).
 * Only `deployed` proposals count as detection coverage.
 */
export const LIFECYCLE = ['authoring', 'review', 'deployed', 'retired'] as const;
export type Lifecycle = (typeof LIFECYCLE)[number];
const NEXT: Record<Lifecycle, Lifecycle[]> = { authoring: ['review', 'retired'], review: ['authoring', 'deployed', 'retired'], deployed: ['retired'], retired: [] };

export function canMove(from: string, to: Lifecycle): boolean {
  return (NEXT[from as Lifecycle] ?? []).includes(to);
}

export async function proposeRules(
  tx: Queryable,
  organizationId: string,
  threat: { id: string; canonicalKey: string },
  found: ReadonlyArray<{ type: string; value: string; normalizedValue: string }>,
  items: readonly ItemEvidence[],
  runId: string,
  now: Date,
): Promise<Array<Record<string, unknown>>> {
  const pinned = [...new Map(found.map((f) => [`${f.type}\u0000${f.normalizedValue}`, { type: f.type, value: f.normalizedValue }])).values()].sort((a, b) => `${a.type}${a.value}`.localeCompare(`${b.type}${b.value}`));
  const current = await tx.selectFrom('huntDeliverables').select(['id', 'pinnedIocs']).where('organizationId', '=', organizationId).where('threatId', '=', threat.id).where('supersededById', 'is', null).where('kind', '=', 'rule_proposal').execute();
  const same = current.find((c) => JSON.stringify(c.pinnedIocs) === JSON.stringify(pinned));
  if (same) return [];
  const id = uuidv7();
  const indicators: Record<string, string[]> = {};
  for (const p of pinned) (indicators[p.type] ??= []).push(p.value);
  const logSources = [...new Set(pinned.map((p) => LOG_SOURCES[p.type]).filter((s): s is string => !!s))].sort();
  const content = sigmaRules({
    ruleId: id,
    title: `${threat.canonicalKey} indicators seen in the organization`,
    description: `Indicators of ${threat.canonicalKey} that the organization's telemetry reported; pinned by the hunt.`,
    reference: null,
    date: now.toISOString().slice(0, 10),
    techniques: [...new Set(items.flatMap((i) => i.techniques))],
    indicators,
    platforms: [],
    severity: 'high',
  });
  await tx.insertInto('huntDeliverables').values({
    id,
    organizationId,
    threatId: threat.id,
    executionId: runId,
    kind: 'rule_proposal',
    pinning: 'ioc_pinned',
    pinnedIocs: JSON.stringify(pinned),
    lifecycleStatus: 'authoring',
    intent: `Detect the ${pinned.length} indicator(s) of ${threat.canonicalKey} seen in the organization`,
    targetProduct: 'sigma',
    targetLogSource: logSources.join(', '),
    content,
    supersededById: null,
    proposalId: id,
    pullRequestUrl: null,
    createdAt: now,
    updatedAt: now,
  }).execute();
  if (current.length) await tx.updateTable('huntDeliverables').set({ supersededById: id, updatedAt: now }).where('id', 'in', current.map((c) => c.id)).execute();
  return [{ id: uuidv7(), organization_id: organizationId, threat_id: threat.id, run_id: runId, kind: 'deliverable_proposed', actor_type: 'system', metadata: { score: pinned.length, hunting: true, executionId: runId, canonicalKey: threat.canonicalKey, label: id }, created_at: now.toISOString() }];
}
