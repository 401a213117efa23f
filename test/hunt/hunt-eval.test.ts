import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { evaluateSources } from '../../scripts/hunt-eval-sources.js';
import { csafShapeError } from '../../src/modules/intel-ingest/connectors/csaf/csaf.fns.js';

/**
 * Issue 49's evaluation set (test/fixtures/hunt-eval; `npm run eval:hunt` prints it): every
 * hand-decided (asset, CVE) verdict of the structured sources — NVD configurations, CSAF product
 * status, KEV listings — is right, with the labelled match fields (one range segment, the fix,
 * the record's own id).
 */
describe('hunt evaluation set: structured sources', () => {
  const { scores, labels } = evaluateSources();
  it('labels every source and every case of the issue', () => {
    expect(scores.map((s) => s.source).sort()).toEqual(['csaf', 'kev', 'nvd']);
    expect(labels.filter((l) => /issue 49 case/.test(l.reason)).map((l) => l.reason.match(/case (\d)/)![1]).sort()).toEqual(['1', '2', '2', '2', '3', '3', '4', '4', '5', '5', '5']);
  });
  it('reads the CSAF documents a provider sync would accept', () => {
    for (const f of ['test/fixtures/hunt-eval/csaf/rhba-2023_0564.json', 'test/fixtures/csaf/bsi-2022-0001.json']) {
      expect(csafShapeError(JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../..', f), 'utf8')))).toBeNull();
    }
  });
  it.each(['nvd', 'csaf', 'kev'])('%s: precision and recall 1.00, every verdict right', (source) => {
    const s = scores.find((x) => x.source === source)!;
    expect(s.misses).toEqual([]);
    expect([s.precision, s.recall, s.verdictAccuracy]).toEqual([1, 1, 1]);
  });
});
