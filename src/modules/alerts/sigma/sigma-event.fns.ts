/**
 * One event as the compiled rules read it. Field values are looked up once and shared by every
 * rule that reads the same field (with their lower-cased text), and the pre-filter's haystack
 * (every leaf value, lower-cased, joined) is built only if a rule asks for it.
 *
 * A field `a.b` is the flat key `"a.b"` when the event has it, else the nested path
 * `{"a":{"b":…}}`, as log shippers write either. An array along the way or at the end yields
 * each of its elements (a field matches when one element does).
 */
export type JsonEvent = Record<string, unknown>;

const ABSENT: unique symbol = Symbol('absent');

function lookup(event: JsonEvent, field: string): unknown[] | null {
  if (Object.hasOwn(event, field)) return leaves(event[field]);
  if (!field.includes('.')) return null;
  let current: unknown[] = [event];
  for (const part of field.split('.')) {
    const next: unknown[] = [];
    for (const c of current) {
      if (c && typeof c === 'object' && !Array.isArray(c) && Object.hasOwn(c, part)) {
        const v = (c as Record<string, unknown>)[part];
        if (Array.isArray(v)) next.push(...v);
        else next.push(v);
      }
    }
    if (next.length === 0) return null;
    current = next;
  }
  return current.flatMap((v) => leaves(v));
}

function leaves(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [v];
}

/** Text of a scalar as rules compare it; null for null and objects. */
export function textOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return null;
}

export class EventView {
  // Created on first use: most events are rejected by the pre-filter before any field is read.
  private raw: Map<string, unknown[] | typeof ABSENT> | null = null;
  private texts: Map<string, string[]> | null = null;
  private lowered: Map<string, string[]> | null = null;
  private hay: string | null = null;
  private allText: string[] | null = null;
  private allLower: string[] | null = null;

  constructor(readonly event: JsonEvent) {}

  /** The field's values (null when the field is absent). */
  values(field: string): unknown[] | null {
    const raw = (this.raw ??= new Map());
    let v = raw.get(field);
    if (v === undefined) {
      v = lookup(this.event, field) ?? ABSENT;
      raw.set(field, v);
    }
    return v === ABSENT ? null : v;
  }

  /** The field's scalar values as text (as written, or lower-cased): each field is read and case-folded once per event, whatever the number of rules. */
  strings(field: string, lower: boolean): string[] {
    const cache = lower ? (this.lowered ??= new Map()) : (this.texts ??= new Map());
    let s = cache.get(field);
    if (s === undefined) {
      const vals = this.values(field) ?? [];
      s = [];
      for (const v of vals) {
        const t = textOf(v);
        if (t !== null) s.push(lower ? t.toLowerCase() : t);
      }
      cache.set(field, s);
    }
    return s;
  }

  /** Every scalar value anywhere in the event (what keywords search). */
  allStrings(lower: boolean): string[] {
    if (!this.allText) {
      this.allText = [];
      collect(this.event, this.allText);
    }
    if (!lower) return this.allText;
    return (this.allLower ??= this.allText.map((s) => s.toLowerCase()));
  }

  /** The pre-filter's haystack: every value, one per line, lower-cased (in one call, not one per value). */
  haystack(): string {
    return (this.hay ??= this.allStrings(false).join('\n').toLowerCase());
  }
}

function collect(v: unknown, out: string[]): void {
  if (Array.isArray(v)) for (const x of v) collect(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) collect(x, out);
  else {
    const t = textOf(v);
    if (t !== null) out.push(t);
  }
}
