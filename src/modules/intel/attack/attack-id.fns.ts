/**
 * The one home of an ATT&CK mapping's id and of what other modules read of an item's
 * classification (hunt's threat view and assessment, detection context, the intel tools, the
 * STIX export). An entry holds the parent technique (T1059) and the full sub-technique id
 * (T1059.001) or ''; older or imported entries may hold the sub-technique's suffix alone (001).
 */
export interface AttackMapping {
  technique?: string | null;
  subTechnique?: string | null;
  techniqueName?: string | null;
}

/** T1059.001 for a sub-technique, T1059 for a technique, '' for an entry with neither. */
export function techniqueIdOf(a: AttackMapping): string {
  const technique = a.technique ?? '';
  const sub = a.subTechnique ?? '';
  if (!sub) return technique;
  return sub.includes('.') || !technique ? sub : `${technique}.${sub}`;
}

/** The distinct technique ids of some mappings, sorted. */
export function techniqueIdsOf(attack: readonly AttackMapping[]): string[] {
  return [...new Set(attack.map(techniqueIdOf).filter(Boolean))].sort();
}

export interface ClassificationSummary {
  malware: string[];
  actors: string[];
  techniques: Array<{ id: string; name: string }>;
}

/** An item's stored classification JSON, read defensively (any shape, missing lists). */
export function classificationSummary(json: unknown): ClassificationSummary {
  const c = (json && typeof json === 'object' ? json : {}) as { malware?: unknown; actor?: unknown; attack?: unknown };
  const list = (v: unknown): Array<Record<string, unknown>> => (Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object') : []);
  const names = (v: unknown) => list(v).map((x) => x.name).filter((n): n is string => typeof n === 'string');
  return {
    malware: names(c.malware),
    actors: names(c.actor),
    techniques: list(c.attack)
      .map((a) => ({ id: techniqueIdOf(a as AttackMapping), name: typeof a.techniqueName === 'string' ? a.techniqueName : '' }))
      .filter((t) => t.id),
  };
}
