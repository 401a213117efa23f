/**
 * Preloaded into the soak's processes (`node --require scripts/soak-memory-probe.cjs …`, never in
 * production): every SOAK_SAMPLE_S seconds it appends the process's memory as Node reports it
 * (rss, heapTotal, heapUsed, external, arrayBuffers, in bytes) to SOAK_MEMORY_LOG as a JSON line.
 * The soak reads it to tell a JavaScript heap that grows (a leak: something holds objects) from a
 * resident set that grows while the heap does not (native memory, the allocator keeping pages).
 */
'use strict';
const fs = require('node:fs');
const file = process.env.SOAK_MEMORY_LOG;
if (file) {
  const every = Number(process.env.SOAK_SAMPLE_S || 30) * 1000;
  const t0 = Date.now();
  const write = () => fs.appendFileSync(file, JSON.stringify({ t: Date.now() - t0, ...process.memoryUsage() }) + '\n');
  write();
  setInterval(write, every).unref();
}
