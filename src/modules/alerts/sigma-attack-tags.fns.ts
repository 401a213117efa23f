import { parseAllDocuments } from 'yaml';

const TECHNIQUE_TAG = /^attack\.(t\d{4}(?:\.\d{3})?)$/i;

/**
 * The ATT&CK technique ids a detection's Sigma rule names in its tags (`attack.t1685.002` →
 * `T1685.002`), across every document of the query (a correlation holds its base rules). SigmaHQ
 * follows ATT&CK releases faster than Rampart ships its catalog (issue 47 item 14): an id the
 * catalog does not know is accepted on a detection when its own rule names it, so a rule from the
 * next ATT&CK release counts under the id it names, while an id typed by hand is still checked.
 * A query that is not YAML (SPL, KQL, …) names none.
 */
export function sigmaTechniqueTags(query: string | null | undefined): Set<string> {
  const out = new Set<string>();
  if (!query || !/^\s*tags\s*:/m.test(query)) return out;
  try {
    for (const doc of parseAllDocuments(query)) {
      if (doc.errors.length > 0) continue;
      const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
      const tags = value && typeof value === 'object' && !Array.isArray(value) ? (value as { tags?: unknown }).tags : undefined;
      if (!Array.isArray(tags)) continue;
      for (const tag of tags) {
        const m = typeof tag === 'string' ? TECHNIQUE_TAG.exec(tag.trim()) : null;
        if (m) out.add(m[1]!.toUpperCase());
      }
    }
  } catch {
    // Not YAML after all: the query names no Sigma tag.
  }
  return out;
}
