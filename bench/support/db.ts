/**
 * A throw-away embedded PostgreSQL per benchmark: its own temp dir, migrated and seeded exactly
 * as `rampart serve` does, removed (server stopped, files deleted) when the bench ends, throws,
 * or is interrupted. One cluster per bench keeps the benches independent of each other's data.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedDatabase } from '../../src/platform/db/embedded.js';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/migrations.js';
import { seedReferenceData } from '../../src/seed.js';
import { onCleanup } from './harness.js';
import { pgStatementsFlags } from './pg-statements.js';

export interface BenchDatabase extends DatabaseHandle {
  /** A scratch directory beside the cluster (RAMPART_DATA_DIR for an app, server logs…). */
  dataDir: string;
  /** The PostgreSQL cluster directory (holds postmaster.pid). */
  clusterDir: string;
  close(): Promise<void>;
}

/** Pool of 20: openRuntime's default, which `rampart serve` uses. */
export const POOL_SIZE = 20;

/**
 * `postgresFlags`: the bench's own server settings, beside pg_stat_statements' (BENCH_PG_STATEMENTS);
 * `onServerLog`: what the server logs, as it arrives.
 */
export async function startBenchDatabase(label: string, opts: { postgresFlags?: string[]; onServerLog?: (text: string) => void } = {}): Promise<BenchDatabase> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `rampart-bench-${label}-`));
  // 0711: as root, postgres runs as its own user and must traverse into the cluster dir.
  fs.chmodSync(root, 0o711);
  let embedded: Awaited<ReturnType<typeof startEmbeddedDatabase>> | null = null;
  let handle: DatabaseHandle | null = null;
  const close = onCleanup(async () => {
    await handle?.close().catch(() => {});
    await embedded?.stop().catch(() => {});
    if (!process.env.BENCH_KEEP_DIR) fs.rmSync(root, { recursive: true, force: true });
  });
  try {
    const dbDir = path.join(root, 'db');
    embedded = await startEmbeddedDatabase(dbDir, { postgresFlags: [...pgStatementsFlags(), ...(opts.postgresFlags ?? [])], onServerLog: opts.onServerLog });
    handle = openDatabase(embedded.connectionString, { max: POOL_SIZE });
    await migrateToLatest(handle.db, handle.pool, { seed: seedReferenceData });
    const dataDir = path.join(root, 'app');
    fs.mkdirSync(dataDir, { recursive: true });
    return { ...handle, dataDir, clusterDir: path.join(dbDir, 'pg'), close };
  } catch (err) {
    await close();
    throw err;
  }
}
