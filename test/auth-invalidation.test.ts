import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../src/platform/auth/authenticator.js';
import { UnauthorizedError } from '../src/platform/http/errors.js';
import { bearer, createTestApp, type TestContext } from './support/app.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('identity cache across processes', () => {
  it('a revocation made by one API process reaches another at once (LISTEN/NOTIFY)', async () => {
    // "Process B": its own authenticator and cache, listening for invalidations.
    const other = createAuthenticator(t.database.db);
    const stop = await other.listen(t.database.pool);
    try {
      const created = await t.app.inject({ method: 'POST', url: '/api/api-keys', headers: bearer(t.orgA.apiKey.key), payload: { name: 'ci' } });
      const { key, apiKey } = created.json();
      const header = `Bearer ${key}`;
      expect((await other.authenticate(header)).apiKeyId).toBe(apiKey.id); // now cached in B

      const revoked = await t.app.inject({ method: 'DELETE', url: `/api/api-keys/${apiKey.id}`, headers: bearer(t.orgA.apiKey.key) });
      expect(revoked.statusCode).toBe(200);

      const deadline = Date.now() + 2_000;
      let rejected = false;
      while (!rejected && Date.now() < deadline) {
        try {
          await other.authenticate(header);
          await new Promise((r) => setTimeout(r, 20));
        } catch (err) {
          expect(err).toBeInstanceOf(UnauthorizedError);
          expect((err as Error).message).toBe('API key has been revoked');
          rejected = true;
        }
      }
      expect(rejected).toBe(true);
    } finally {
      await stop();
    }
  });
});
