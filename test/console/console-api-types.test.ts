import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILE, API_VALUES_FILE, generateApiTypes, generateApiValues } from '../../scripts/api-client-types.js';
import { openApiDocument } from '../../scripts/openapi-document.js';

describe('the web console\'s API client types', () => {
  it('are generated from the current OpenAPI document (run `npm run gen:api` when this fails)', async () => {
    const document = await openApiDocument();
    const types = await generateApiTypes(document);
    expect(fs.readFileSync(API_TYPES_FILE, 'utf8') === types, 'web/src/api/schema.d.ts is stale: run `npm run gen:api`').toBe(true);
    const values = await generateApiValues(document);
    expect(fs.readFileSync(API_VALUES_FILE, 'utf8') === values, 'web/src/schema-values.ts is stale: run `npm run gen:api`').toBe(true);
  }, 60_000);

  it('carry the server\'s own pipeline names per conversion target, so the console\'s picker follows the server', async () => {
    // The names the converter knows (src/modules/alerts/sigma/sigma-pipelines.fns.ts), not a copy of them.
    const { pipelineNames } = await import('../../src/modules/alerts/index.js');
    const { detectionQueryPipelines, detectionQueryTargets } = await import('../../web/src/schema-values.js');
    expect(detectionQueryTargets).toEqual(['splunk', 'elasticsearch-lucene', 'esql', 'kusto']);
    expect(detectionQueryPipelines).toEqual(Object.fromEntries(detectionQueryTargets.map((t) => [t, pipelineNames(t)])));
    expect(detectionQueryPipelines.kusto).toContain('microsoft_365_defender_pipeline');
  }, 60_000);
});
