import { randomFillSync } from 'node:crypto';

/**
 * UUID version 7 ids (RFC 9562) for the rows an intel pass writes, several per record: the
 * `uuidv7` package costs ~4.6 µs an id (a fresh `getRandomValues` call and an object per id);
 * this one draws its random bits from a pool refilled 4 kB at a time and spells the id through
 * a byte → hex table. Same layout and guarantees as the package's: 48-bit Unix milliseconds,
 * then a 42-bit counter that starts random at every new millisecond and counts up within one
 * (RFC 9562 §6.2 method 1, so the ids of one process sort in the order they were made), then 32
 * random bits. A clock that goes back keeps the last millisecond and counts on; a counter that
 * would overflow moves the millisecond on by one, as the RFC allows.
 */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const POOL = new Uint8Array(4096);
let at = POOL.length;
let lastMs = -1;
// The counter's 42 bits kept as two numbers: the high 12 (rand_a) and the low 30 (rand_b's top).
let hi = 0;
let lo = 0;

function random(n: number): number {
  if (at + n > POOL.length) {
    randomFillSync(POOL);
    at = 0;
  }
  let v = 0;
  for (let k = 0; k < n; k++) v = v * 256 + POOL[at++]!;
  return v;
}

export function uuidv7(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    // Its top bit left clear: at least 2^41 ids before the millisecond has to move on.
    hi = random(2) & 0x7ff;
    lo = random(4) & 0x3fffffff;
  } else if (++lo > 0x3fffffff) {
    lo = 0;
    if (++hi > 0xfff) {
      lastMs++;
      hi = random(2) & 0x7ff;
      lo = random(4) & 0x3fffffff;
    }
  }
  const tail = random(4);
  const ms = lastMs;
  const msHi = Math.floor(ms / 0x1000000); // the top 24 of its 48 bits
  const msLo = ms % 0x1000000;
  const b6 = 0x70 | (hi >>> 8);
  const b8 = 0x80 | (lo >>> 24);
  return (
    HEX[(msHi >>> 16) & 0xff]! + HEX[(msHi >>> 8) & 0xff]! + HEX[msHi & 0xff]! + HEX[(msLo >>> 16) & 0xff]! + '-' +
    HEX[(msLo >>> 8) & 0xff]! + HEX[msLo & 0xff]! + '-' +
    HEX[b6]! + HEX[hi & 0xff]! + '-' +
    HEX[b8]! + HEX[(lo >>> 16) & 0xff]! + '-' +
    HEX[(lo >>> 8) & 0xff]! + HEX[lo & 0xff]! + HEX[(tail >>> 24) & 0xff]! + HEX[(tail >>> 16) & 0xff]! + HEX[(tail >>> 8) & 0xff]! + HEX[tail & 0xff]!
  );
}
