import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.js';

/** A fresh, migrated database for one test file (a clone of the run's template). */
export async function createTestDatabase(): Promise<DatabaseHandle & { url: string }> {
  return createDatabase(inject('pgTemplate'));
}

/** A fresh database with nothing in it (for migration tests). */
export async function createEmptyDatabase(): Promise<DatabaseHandle & { url: string }> {
  return createDatabase('template0');
}

async function createDatabase(template: string): Promise<DatabaseHandle & { url: string }> {
  const adminUrl = inject('pgAdminUrl');
  const name = `rampart_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // Cloning locks the template briefly; files starting together take turns.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      break;
    } catch (err) {
      if (attempt > 50 || !/being accessed by other users/.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = openDatabase(url.toString(), { max: 10 });
  return { ...handle, url: url.toString() };
}
