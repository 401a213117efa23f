import { EventView, type CompiledRule, type CompiledUnit, type JsonEvent } from '../alerts/index.js';

/**
 * A detection's noisiest rule fields: over its evidence sample (the latest matched events), the
 * field/value pairs of the selections that matched, counted per event. A tuning aid: the pair at
 * the top is the one a filter (`filter_*: {Field: value}`) would silence most.
 *
 * The fields are those the rule names in each selection that matched the event (`Field|contains`
 * → `Field`); keyword selections name no field and are left out. In a selection written as a
 * list of maps, every map's fields the event holds are counted, whichever map matched.
 */
export interface NoisyField {
  field: string;
  value: string;
  /** Sampled events whose matching selections hold this field with this value. */
  matches: number;
  selections: string[];
}

const MAX_VALUE = 200;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The field names a selection tests (its map keys without modifiers); none for keywords. */
export function selectionFields(rule: CompiledRule, selection: string): string[] {
  const detection = rule.source.detection;
  if (!isRecord(detection)) return [];
  const value = detection[selection];
  const maps = Array.isArray(value) ? value.filter(isRecord) : isRecord(value) ? [value] : [];
  const fields = maps.flatMap((m) => Object.keys(m).map((k) => k.split('|')[0]!.trim())).filter(Boolean);
  return [...new Set(fields)];
}

const clip = (s: string) => (s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE - 1)}…` : s);

export function noisyFields(unit: CompiledUnit, sample: Array<{ ruleTitle: string; event: JsonEvent }>, limit: number): NoisyField[] {
  const counts = new Map<string, NoisyField>();
  for (const { ruleTitle, event } of sample) {
    // The rule that matched it, by title; a correlation's evidence names the correlation: its base rules.
    const own = unit.rules.filter((r) => r.title === ruleTitle);
    const rules = own.length ? own : unit.rules;
    const view = new EventView(event);
    const seen = new Set<string>();
    for (const rule of rules) {
      const { matchedSelections } = rule.explain(event);
      for (const selection of matchedSelections) {
        for (const field of selectionFields(rule, selection)) {
          for (const raw of view.strings(field, false)) {
            const value = clip(raw);
            const key = JSON.stringify([field, value]);
            const entry = counts.get(key) ?? { field, value, matches: 0, selections: [] };
            if (!seen.has(key)) entry.matches += 1;
            if (!entry.selections.includes(selection)) entry.selections.push(selection);
            seen.add(key);
            counts.set(key, entry);
          }
        }
      }
    }
  }
  return [...counts.values()].sort((a, b) => b.matches - a.matches || a.field.localeCompare(b.field) || a.value.localeCompare(b.value)).slice(0, limit);
}
