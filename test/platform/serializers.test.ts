import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileSerializer } from '../../src/platform/http/serializer.js';
import { createTestApp, type TestContext } from '../support/app.js';

/**
 * Response serializers compile at each route's first reply, not at start-up
 * (src/platform/http/serializer.ts): a response schema fast-json-stringify cannot compile would
 * only show as a 500 on that route's first answer. Every registered route's every response
 * schema is compiled here, so it shows in the tests instead.
 */
let t: TestContext;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('response serializers', () => {
  it('every route’s response schemas compile', () => {
    const failures: string[] = [];
    let compiled = 0;
    for (const route of t.app.registeredRoutes) {
      for (const [status, schema] of Object.entries(route.responses)) {
        if (!(schema instanceof z.ZodType)) continue;
        try {
          compileSerializer(schema);
          compiled++;
        } catch (err) {
          failures.push(`${route.method} ${route.url} ${status}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(compiled).toBeGreaterThan(100); // the walk found the API's schemas
  });
});
