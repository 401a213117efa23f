import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createAuthenticator } from '../src/platform/auth/authenticator.js';
import { openDatabase } from '../src/platform/db/database.js';
import { createSecretBox } from '../src/platform/secrets.js';

/**
 * The OpenAPI document of this code, without a running server or a database: routes register
 * their schemas at build time and nothing connects until a request comes (the pool is lazy).
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const database = openDatabase('postgres://rampart@127.0.0.1:1/unused', { max: 1 });
  const app = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'silent' }),
    database,
    logger: pino({ level: 'silent' }),
    authenticator: createAuthenticator(database.db),
    secrets: createSecretBox(randomBytes(32)),
  });
  try {
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await database.close();
  }
}
