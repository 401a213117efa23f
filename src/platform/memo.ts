/**
 * A pure function of one string, remembered: hot parsers called again and again on the same
 * few values (an assessment page compares ~50,000 installed versions against a few thousand
 * bounds, and reads each purl's identity several times). Bounded: when `max` values are held
 * the memory is dropped whole (cheaper than LRU bookkeeping, and a page's values come back).
 * Only for functions whose result depends on the argument alone and is never mutated.
 */
export function memoized<T>(fn: (s: string) => T, max = 20_000): (s: string) => T {
  let memory = new Map<string, T>();
  return (s: string) => {
    const hit = memory.get(s);
    if (hit !== undefined || memory.has(s)) return hit as T;
    const value = fn(s);
    if (memory.size >= max) memory = new Map();
    memory.set(s, value);
    return value;
  };
}
