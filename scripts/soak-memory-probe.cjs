/**
 * Preloaded into the soak's processes (`node --expose-gc --require scripts/soak-memory-probe.cjs …`,
 * never in production): every SOAK_SAMPLE_S seconds it appends the process's memory as Node reports
 * it (rss, heapTotal, heapUsed, external, arrayBuffers, in bytes) to SOAK_MEMORY_LOG as a JSON line,
 * and at each minute of SOAK_LIVE_HEAP_AT_MIN (after the process's start) it runs a full garbage
 * collection first and marks the line `live: true`: what the heap really holds.
 * A resident set that grows while the live heap does not is V8 sizing its heap to the allocation
 * rate (garbage not yet collected), not a leak; a live heap that grows is something held.
 */
'use strict';
const fs = require('node:fs');
const file = process.env.SOAK_MEMORY_LOG;
if (file) {
  const every = Number(process.env.SOAK_SAMPLE_S || 30) * 1000;
  const t0 = Date.now();
  /** @param {{ live?: boolean }} [extra] */
  const write = (extra) => fs.appendFileSync(file, JSON.stringify({ t: Date.now() - t0, ...process.memoryUsage(), ...extra }) + '\n');
  write();
  setInterval(write, every).unref();
  for (const min of (process.env.SOAK_LIVE_HEAP_AT_MIN || '').split(',').filter(Boolean)) {
    setTimeout(() => {
      if (typeof global.gc !== 'function') return;
      global.gc();
      global.gc();
      write({ live: true });
    }, Number(min) * 60_000).unref();
  }
}
