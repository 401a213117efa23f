/**
 * What GET /iocs computed for a (organization, filters) key — its exact statusCounts and the
 * organization's availableTypes, or a narrow search's sorted matches — kept with the
 * organization's indicator generation read in the same statement (migration 0130). An entry is
 * only ever served after the generation has been read again and found equal: no committed write
 * to the organization's indicators since, so the value is what a recomputation would return.
 * Nothing is invalidated by hand; a changed generation just makes the entry useless and the next
 * computation replaces it.
 *
 * Bounded by entries and by total weight (`weigh`, e.g. characters held): the least recently used
 * entry goes first (a Map iterates in insertion order, and a hit re-inserts its key).
 */
export interface Stamped<V> {
  generation: string;
  value: V;
}

export function createGenerationCache<V>(limits: { maxEntries: number; maxWeight?: number; weigh?: (value: V) => number }) {
  const entries = new Map<string, Stamped<V> & { weight: number }>();
  const weigh = limits.weigh ?? (() => 0);
  const maxWeight = limits.maxWeight ?? Infinity;
  let weight = 0;
  const drop = (key: string) => {
    const e = entries.get(key);
    if (!e) return;
    weight -= e.weight;
    entries.delete(key);
  };
  return {
    has(key: string): boolean {
      return entries.has(key);
    },
    /** The entry's value if it was computed at `generation` (refreshing its place), else undefined. */
    valid(key: string, generation: string): V | undefined {
      const e = entries.get(key);
      if (!e || e.generation !== generation) return undefined;
      entries.delete(key);
      entries.set(key, e);
      return e.value;
    },
    set(key: string, generation: string, value: V): void {
      drop(key);
      const w = weigh(value);
      if (w > maxWeight) return;
      entries.set(key, { generation, value, weight: w });
      weight += w;
      while (entries.size > limits.maxEntries || weight > maxWeight) drop(entries.keys().next().value!);
    },
  };
}
