/**
 * What GET /iocs computed for a (organization, filters) key — its exact statusCounts and the
 * organization's availableTypes — kept with the organization's indicator generation read in the
 * same statement (migration 0130). An entry is only ever served after the generation has been
 * read again and found equal: no committed write to the organization's indicators since, so the
 * value is what a recount would return. Nothing is invalidated by hand; a changed generation just
 * makes the entry useless and the next computation replaces it.
 *
 * Bounded: the least recently used entry goes first (a Map iterates in insertion order, and a hit
 * re-inserts its key).
 */
export interface Stamped<V> {
  generation: string;
  value: V;
}

export function createGenerationCache<V>(maxEntries: number) {
  const entries = new Map<string, Stamped<V>>();
  return {
    peek(key: string): Stamped<V> | undefined {
      return entries.get(key);
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
      entries.delete(key);
      entries.set(key, { generation, value });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
    get size() {
      return entries.size;
    },
  };
}
