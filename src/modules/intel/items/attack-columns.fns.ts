/**
 * The rules of intel_items' stored ATT&CK columns (attack_parents, actor_names, malware_names), in
 * TypeScript. PostgreSQL computes the columns itself, with the PL/pgSQL functions
 * intel_attack_parents and intel_classification_names (migration 0106, which kept the results of
 * 0096's SQL), because every INSERT of an item row computes them; these functions state the same
 * rules for TypeScript, and test/alerts/attack-columns-agree.test.ts runs both on the same documents
 * and fails on the first that differs (issue 42: one source for the ATT&CK rules).
 *
 * On the mappings the classifier writes (technique = the parent id, subTechnique = the full
 * sub-technique id, its suffix alone, or ''), `attackParentsOf` gives the parents of
 * `techniqueIdsOf` (attack-id.fns.ts). Like the SQL, it reads any stored document defensively.
 * Case and order are those of the "C" locale the embedded database is created with
 * (`initdb --locale=C`): only ASCII letters change case, names sort by UTF-8 bytes. On an external
 * database created with another locale, PostgreSQL's lower() and sort follow that locale for
 * non-ASCII names; the columns then differ from these functions there, not from themselves.
 * Names that are JSON objects or arrays are outside the rule (jsonb prints its own text form).
 * Pure.
 */

const PARENT_RE = /^T[0-9]{4}$/;

/** Parent technique ids (T1059.001 → T1059) of `c.attack`: `technique` unless empty, else `subTechnique`; upper-cased, only T + 4 digits, distinct, sorted. */
export function attackParentsOf(c: unknown): string[] {
  const list = field(c, 'attack');
  if (!Array.isArray(list)) return [];
  const parents = new Set<string>();
  for (const a of list) {
    const technique = text(field(a, 'technique'));
    const id = technique !== null && technique !== '' ? technique : text(field(a, 'subTechnique'));
    if (id === null) continue;
    const parent = asciiUpper(id).split('.')[0]!;
    if (PARENT_RE.test(parent)) parents.add(parent);
  }
  return sortAsPostgres([...parents]);
}

/** The names of the objects of `c[key]` (actor, malware): trimmed of spaces and lower-cased, non-empty, distinct, sorted. */
export function classificationNamesOf(c: unknown, key: string): string[] {
  const list = field(c, key);
  if (!Array.isArray(list)) return [];
  const names = new Set<string>();
  for (const x of list) {
    if (!x || typeof x !== 'object' || Array.isArray(x)) continue;
    const n = asciiLower(text(field(x, 'name'))?.replace(/^ +| +$/g, '') ?? '');
    if (n) names.add(n);
  }
  return sortAsPostgres([...names]);
}

function field(o: unknown, key: string): unknown {
  return o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>)[key] : undefined;
}

/** A JSON value as `->>` gives it: strings as they are, numbers and booleans as their text, null/absent as null; objects and arrays as their JSON text. */
function text(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

const asciiUpper = (s: string) => s.replace(/[a-z]+/g, (m) => m.toUpperCase());
const asciiLower = (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());

/** Sorted by UTF-8 bytes, as text sorts in the "C" collation. */
function sortAsPostgres(xs: string[]): string[] {
  return xs.sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
}
