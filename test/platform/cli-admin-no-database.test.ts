import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Issue 47 §19, as the operator types it: `rampart admin login-link` (and every admin command
 * that opens the database) run without the server's RAMPART_DATA_DIR / DATABASE_URL — from
 * another directory, say — refuses, naming both variables, exits 1, and creates nothing
 * (before the fix it started a new, empty embedded database there and said the user did not exist).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-no-db-'));
afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

function rampart(args: string[], dataDir: string) {
  const { DATABASE_URL: _ignored, ...rest } = process.env;
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: ROOT, env: { ...rest, RAMPART_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, encoding: 'utf8', timeout: 240_000 });
}

describe('admin commands where no database exists', () => {
  it('login-link: exit 1, the message names RAMPART_DATA_DIR and DATABASE_URL, nothing is created', () => {
    const dataDir = path.join(parent, 'not-the-servers');
    const res = rampart(['admin', 'login-link', '--email', 'admin@localhost'], dataDir);
    expect(res.status, res.stderr).toBe(1);
    expect(res.stderr).toBe(
      `rampart: no Rampart database in ${dataDir} (RAMPART_DATA_DIR), and DATABASE_URL is not set. Run admin commands with the server's environment: the same RAMPART_DATA_DIR (the embedded database), or its DATABASE_URL. To install a new one, run \`rampart migrate\` first. Nothing was created.\n`,
    );
    expect(res.stdout).toBe('');
    expect(fs.existsSync(dataDir)).toBe(false);
  }, 300_000);

  it('org create in an existing but empty directory: the same refusal, the directory left empty', () => {
    const dataDir = fs.mkdtempSync(path.join(parent, 'empty-'));
    const res = rampart(['admin', 'org', 'create', '--name', 'Blue Team', '--admin-email', 'lead@blue.test'], dataDir);
    expect(res.status, res.stderr).toBe(1);
    expect(res.stderr).toContain('RAMPART_DATA_DIR');
    expect(res.stderr).toContain('DATABASE_URL');
    expect(fs.readdirSync(dataDir)).toEqual([]);
  }, 300_000);

  it('a usage error is still a usage error (exit 2), checked before the database', () => {
    const res = rampart(['admin', 'login-link'], path.join(parent, 'nowhere'));
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('missing --email');
  }, 300_000);
});
