import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILE, generateApiTypes } from '../../scripts/api-client-types.js';

describe('the web console\'s API client types', () => {
  it('are generated from the current OpenAPI document (run `npm run gen:api` when this fails)', async () => {
    const fresh = await generateApiTypes();
    expect(fs.readFileSync(API_TYPES_FILE, 'utf8') === fresh, 'web/src/api/schema.d.ts is stale: run `npm run gen:api`').toBe(true);
  }, 60_000);
});
