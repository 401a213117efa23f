/**
 * An index of (seed, string) keys → 0, 1, 2… in insertion order: an open-addressing table of index + 1 (0: empty)
 * with each key's hash beside it, probed linearly, kept at most half full. Extraction's lookups mostly miss (most
 * indicators are new), and a miss here reads one or two adjacent slots, where a `Map` miss loaded its bucket, its
 * entries and every candidate key's string header — the largest line of the profile (docs/performance.md).
 * `seed` is a small integer (an indicator kind, a flag combination) that is part of the key.
 */
export class KeyedIndex {
  /** The keys' strings and seeds, by index. */
  readonly keys: string[] = [];
  seeds: Uint8Array;
  size = 0;
  private slots: Int32Array;
  private slotHashes: Int32Array;
  private hashes: Int32Array;
  /** Each key's slot, so that `clear` empties only the slots in use. */
  private slotOf: Int32Array;
  private lastKey: string | undefined;
  private lastHash = 0;

  /** `capacity`: keys held before the first growth (a power of two); the table starts with four slots per key. */
  constructor(capacity = 256) {
    this.seeds = new Uint8Array(capacity);
    this.hashes = new Int32Array(capacity);
    this.slotOf = new Int32Array(capacity);
    this.slots = new Int32Array(4 * capacity);
    this.slotHashes = new Int32Array(4 * capacity);
  }

  /** Index of (seed, key), or -1. */
  find(seed: number, key: string): number {
    const h = keyHash(seed, key);
    this.lastKey = key;
    this.lastHash = h;
    const { slots, slotHashes, seeds, keys } = this;
    const mask = slots.length - 1;
    for (let slot = h & mask, e = slots[slot] as number; e !== 0; slot = (slot + 1) & mask, e = slots[slot] as number) {
      if (slotHashes[slot] === h && seeds[e - 1] === seed && keys[e - 1] === key) return e - 1;
    }
    return -1;
  }

  /** Add (seed, key), which `find` did not find, and return its index. */
  insert(seed: number, key: string): number {
    const h = key === this.lastKey ? this.lastHash : keyHash(seed, key);
    const i = this.size++;
    if (i === this.seeds.length) {
      this.seeds = grown(this.seeds);
      this.hashes = grown(this.hashes);
      this.slotOf = grown(this.slotOf);
    }
    this.seeds[i] = seed;
    this.keys[i] = key;
    this.hashes[i] = h;
    if (2 * this.size > this.slots.length) this.rebuild(this.slots.length * 2);
    else this.slotOf[i] = place(this.slots, this.slotHashes, h, i);
    return i;
  }

  /** Empty, in time proportional to the number of keys (the table keeps its size; the keys' strings are let go). */
  clear(): void {
    const { slots, slotOf, keys } = this;
    for (let i = 0; i < this.size; i++) slots[slotOf[i] as number] = 0;
    keys.fill('', 0, this.size);
    this.size = 0;
    this.lastKey = undefined;
  }

  /** A table of `size` slots with every key re-placed by its stored hash. */
  private rebuild(size: number): void {
    this.slots = new Int32Array(size);
    this.slotHashes = new Int32Array(size);
    for (let i = 0; i < this.size; i++) this.slotOf[i] = place(this.slots, this.slotHashes, this.hashes[i] as number, i);
  }
}

/** Put index `i` with hash `h` in its slot (the first free one from h's); returns the slot. */
function place(slots: Int32Array, slotHashes: Int32Array, h: number, i: number): number {
  const mask = slots.length - 1;
  let slot = h & mask;
  while (slots[slot] !== 0) slot = (slot + 1) & mask;
  slots[slot] = i + 1;
  slotHashes[slot] = h;
  return slot;
}

/** FNV-1a over the key's UTF-16 code units, seeded, then mixed so that the low bits index well. */
function keyHash(seed: number, key: string): number {
  let h = Math.imul(0x811c9dc5 ^ seed, 0x01000193);
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x45d9f3b);
  return h ^ (h >>> 16);
}

/** `a` with twice the room, contents kept (typed columns grow by doubling). */
export function grown<T extends Int32Array | Float64Array | Uint8Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
}
