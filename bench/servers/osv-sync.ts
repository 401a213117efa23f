/**
 * The hunt-osv bench's sync process: the service's sync job (createSyncSourceJob, as the worker
 * builds it) against the bench's PostgreSQL (DATABASE_URL), and nothing else — no HTTP app, no
 * SBOM import, no export. The bench asks it over IPC to run a sync job by id; it answers with the
 * CPU the run used and its own memory sampled every 100 ms during the run, so the figure is the
 * memory of the process that syncs (docs/performance.md, hunt-osv). BENCH_OSV_HEAP_SNAPSHOT=<MB>[,<MB>…]:
 * a heap snapshot (bench/results/profiles/hunt-osv-<MB>mb.heapsnapshot) the first time the used
 * heap passes each size, in order (compare two with `npm run heap-diff`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import pino from 'pino';
import { openDatabase } from '../../src/platform/db/database.js';
import { createGuardedClient } from '../../src/platform/outbound/index.js';
import { createSecretBox } from '../../src/platform/secrets.js';
import { createSyncSourceJob } from '../../src/modules/intel-ingest/sync.jobs.js';

export type ToSyncProcess = { type: 'sync'; syncJobId: string };
export interface SyncMemory {
  rssStart: number;
  rssMax: number;
  heapStart: number;
  heapMax: number;
  heapTotalMax: number;
  externalMax: number;
  snapshots: string[];
}
export type FromSyncProcess = { type: 'ready' } | { type: 'synced'; cpuSeconds: number; memory: SyncMemory } | { type: 'failed'; message: string };

const PROFILES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'results', 'profiles');
const snapshotsAt = (process.env.BENCH_OSV_HEAP_SNAPSHOT ?? '').split(',').filter(Boolean).map((mb) => Number(mb) * 1e6);

function sampleMemory(): { memory: SyncMemory; stop: () => void } {
  const start = process.memoryUsage();
  const memory: SyncMemory = { rssStart: start.rss, rssMax: start.rss, heapStart: start.heapUsed, heapMax: start.heapUsed, heapTotalMax: start.heapTotal, externalMax: 0, snapshots: [] };
  const sample = () => {
    const m = process.memoryUsage();
    memory.heapMax = Math.max(memory.heapMax, m.heapUsed);
    memory.heapTotalMax = Math.max(memory.heapTotalMax, m.heapTotal);
    memory.rssMax = Math.max(memory.rssMax, m.rss);
    memory.externalMax = Math.max(memory.externalMax, m.external + m.arrayBuffers);
    const at = snapshotsAt[memory.snapshots.length];
    if (at && m.heapUsed > at) {
      fs.mkdirSync(PROFILES, { recursive: true });
      memory.snapshots.push(v8.writeHeapSnapshot(path.join(PROFILES, `hunt-osv-${Math.round(at / 1e6)}mb.heapsnapshot`)));
    }
  };
  const timer = setInterval(sample, 100);
  return { memory, stop: () => (sample(), clearInterval(timer)) };
}

const url = process.env.DATABASE_URL;
if (!url || !process.send) throw new Error('the OSV sync process runs as a child of the hunt-osv bench (DATABASE_URL, IPC)');
const send = (m: FromSyncProcess) => process.send!(m);
const database = openDatabase(url);
const sync = createSyncSourceJob({ db: database.db, secrets: createSecretBox(randomBytes(32)), http: createGuardedClient({ allowPrivateNetworks: true, timeoutMs: 600_000 }), logger: pino({ level: 'silent' }) });

process.on('message', (msg: ToSyncProcess) => {
  if (msg.type !== 'sync') return;
  void (async () => {
    const cpu0 = process.cpuUsage();
    const sampler = sampleMemory();
    try {
      await sync.run({ syncJobId: msg.syncJobId }, { jobId: 'bench', attempt: 1, maxAttempts: 1, logger: pino({ level: 'silent' }), signal: new AbortController().signal });
      sampler.stop();
      const cpu = process.cpuUsage(cpu0);
      send({ type: 'synced', cpuSeconds: (cpu.user + cpu.system) / 1e6, memory: sampler.memory });
    } catch (err) {
      sampler.stop();
      send({ type: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  })();
});
const stop = () => void database.close().finally(() => process.exit(0));
process.on('disconnect', stop);
process.on('SIGTERM', stop);
send({ type: 'ready' });
