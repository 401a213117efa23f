import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createAuthenticator } from '../../src/platform/auth/authenticator.js';
import { createSecretBox, type SecretBox } from '../../src/platform/secrets.js';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { createOrganization, type CreatedOrganization } from '../../src/modules/organizations/organizations.service.js';
import { createTestDatabase } from './db.js';

export interface TestContext {
  app: FastifyInstance;
  database: DatabaseHandle;
  config: Readonly<Config>;
  secrets: SecretBox;
  /** Organization A, with a Super Admin key. */
  orgA: CreatedOrganization;
  /** Organization B, to prove cross-organization isolation (404). */
  orgB: CreatedOrganization;
  close(): Promise<void>;
}

export interface TestOptions {
  env?: Record<string, string>;
  extend?: (app: FastifyInstance) => void | Promise<void>;
  /** The app's logger (default: pino at TEST_LOG_LEVEL, silent). */
  logger?: pino.Logger;
}

/** The real app over a real PostgreSQL database of its own, with two organizations. */
export async function createTestApp(opts: TestOptions = {}): Promise<TestContext> {
  const database = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-app-'));
  const config = loadConfig({ RAMPART_DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: database.url, ...opts.env });
  const secrets = createSecretBox(randomBytes(32));
  const app = await buildApp(
    {
      config,
      database,
      logger: opts.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
      authenticator: createAuthenticator(database.db),
      secrets,
    },
    opts.extend,
  );
  const orgA = await createOrganization(database.db, { name: 'Org A', adminEmail: 'admin@a.test' });
  const orgB = await createOrganization(database.db, { name: 'Org B', adminEmail: 'admin@b.test' });
  return {
    app,
    database,
    config,
    secrets,
    orgA,
    orgB,
    async close() {
      await app.close();
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}
