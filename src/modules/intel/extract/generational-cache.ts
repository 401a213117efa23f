/**
 * A bounded cache of (seed, string) keys → values in two generations, for the host assessments. The cache it
 * replaces emptied itself completely when full, so a text with more distinct hosts than its bound (the 50 MB bench
 * corpus has ~78,000) lost the hosts it kept meeting (8.8.8.8, github.com, its own C2s) at every fill and assessed
 * them again. Here a full young generation becomes the old one and the previous old one is let go; a hit in the old
 * generation copies the entry into the young one, so what is still in use survives any number of fills, and what
 * was not used for a whole generation is forgotten. At most `2 × generation` entries are held. Lookups build no
 * string: the key is the caller's string and a small seed (`KeyedIndex`).
 */
import { KeyedIndex } from './keyed-index.js';

export class GenerationalCache<V> {
  private young = new KeyedIndex();
  private youngValues: V[] = [];
  private old = new KeyedIndex();
  private oldValues: V[] = [];

  /** `generation`: entries the young generation takes before it becomes the old one. */
  constructor(readonly generation: number) {}

  /** Entries held (both generations; at most `2 × generation`). */
  get size(): number {
    return this.young.size + this.old.size;
  }

  /** The value of (seed, key), or undefined; a hit in the old generation moves the entry into the young one. */
  get(seed: number, key: string): V | undefined {
    const i = this.young.find(seed, key);
    if (i >= 0) return this.youngValues[i];
    const j = this.old.find(seed, key);
    if (j < 0) return undefined;
    const value = this.oldValues[j] as V;
    this.set(seed, key, value);
    return value;
  }

  /** Record (seed, key) → value; the key must not be in the young generation (`get` just missed it). */
  set(seed: number, key: string, value: V): void {
    if (this.young.size >= this.generation) {
      // the old generation is let go (its table and arrays are reused as the new young one)
      const index = this.old;
      const values = this.oldValues;
      index.clear();
      values.length = 0;
      this.old = this.young;
      this.oldValues = this.youngValues;
      this.young = index;
      this.youngValues = values;
    }
    this.young.insert(seed, key);
    this.youngValues.push(value);
  }
}
