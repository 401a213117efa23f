import { diffLines } from 'diff';
import type { ResolvedReference } from '../modules/config/index.js';

/** The plan of `rampart apply` as a reviewer reads it (docs/agents-as-code.md#plan-and-apply): every change whole, secrets never. */
export interface Change {
  action: 'create' | 'update' | 'delete';
  kind: string;
  name: string;
  diff: Record<string, { from: unknown; to: unknown }>;
}

export interface NotCompared {
  kind: string;
  name: string;
  fields: string[];
  permission: string;
}

const show = (v: unknown) => (v === undefined ? 'null' : JSON.stringify(v));

/** Text and values up to this long, on one line, are shown as `from -> to`; longer ones as a line diff. */
const INLINE_LIMIT = 100;
/** Unchanged lines shown around each changed one in a line diff. */
const CONTEXT_LINES = 3;

/** A value as the lines a reviewer reads: text as it is, anything else as indented JSON. */
const asLines = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v, null, 2));

/**
 * One field's change, whole: never cut. Short values inline; long or multi-line ones (a prompt,
 * a route list) as a line diff — `-` removed, `+` added; around a text's changes, unchanged lines
 * for context and `…` where unchanged lines are left out; structured values in full.
 */
export function formatFieldChange(field: string, from: unknown, to: unknown): string[] {
  const inline = `${show(from)} -> ${show(to)}`;
  const multiline = (v: unknown) => typeof v === 'string' && v.includes('\n');
  if (show(from).length <= INLINE_LIMIT && show(to).length <= INLINE_LIMIT && !multiline(from) && !multiline(to)) return [`    ${field}: ${inline}`];
  const lines: Array<{ sign: ' ' | '-' | '+'; text: string }> = [];
  for (const part of diffLines(asLines(from), asLines(to))) {
    const sign = part.added ? '+' : part.removed ? '-' : ' ';
    for (const text of part.value.replace(/\n$/, '').split('\n')) lines.push({ sign, text });
  }
  // Structured values (routes, a destination's config) are shown whole: which route changed is in lines far from the change.
  const structured = typeof from !== 'string' && typeof to !== 'string';
  const keep = lines.map((l, i) => structured || l.sign !== ' ' || lines.slice(Math.max(0, i - CONTEXT_LINES), i + CONTEXT_LINES + 1).some((n) => n.sign !== ' '));
  const out = [`    ${field}:${from === null || from === undefined ? ' (was null)' : ''}${to === null || to === undefined ? ' (becomes null)' : ''}`];
  keep.forEach((k, i) => {
    if (k) out.push(`      ${lines[i]!.sign} ${lines[i]!.text}`.trimEnd());
    else if (keep[i - 1] !== false) out.push('        …');
  });
  return out;
}

const SECRET_CHANGE = '(secret: will change)';
/** What the apply generates rather than takes from the files (a webhook trigger's secret and URL): shown for a create too. */
const isGenerated = (to: unknown) => typeof to === 'string' && /^\((secret: will be generated|generated: )/.test(to);

/**
 * The plan as printed. A field whose value came from a secret reference is never printed
 * (`(secret: will change)`), whatever the server shows of it (a URL redacted as it can); the
 * server already never answers a secret's value.
 */
export function formatPlan(changes: Change[], notCompared: NotCompared[] = [], resolved: ResolvedReference[] = []): string {
  const fromReference = new Set(resolved.map((r) => `${r.kind}/${r.name}/${r.field}`));
  const lines: string[] = [];
  if (changes.length === 0) lines.push('No changes: the organization matches the files.');
  const sign = { create: '+', update: '~', delete: '-' } as const;
  for (const c of changes) {
    lines.push(`${sign[c.action]} ${c.action} ${c.kind}/${c.name}`);
    if (c.action === 'create') {
      for (const [field, d] of Object.entries(c.diff)) if (isGenerated(d.to)) lines.push(`    ${field}: ${String(d.to)}`);
      continue;
    }
    if (c.action !== 'update') continue;
    for (const [field, d] of Object.entries(c.diff)) {
      if (isGenerated(d.to)) {
        lines.push(`    ${field}: ${String(d.to)}`);
        continue;
      }
      const secret = d.to === SECRET_CHANGE || (fromReference.has(`${c.kind}/${c.name}/${field}`) && d.to !== null);
      lines.push(...(secret ? [`    ${field}: ${SECRET_CHANGE}`] : formatFieldChange(field, d.from, d.to)));
    }
  }
  for (const n of notCompared) lines.push(`  ${n.kind}/${n.name}: ${n.fields.join(', ')} not compared (secret values are compared only with ${n.permission})`);
  const n = (a: Change['action']) => changes.filter((c) => c.action === a).length;
  if (changes.length) lines.push(`Plan: ${n('create')} to create, ${n('update')} to update, ${n('delete')} to delete.`);
  return `${lines.join('\n')}\n`;
}

