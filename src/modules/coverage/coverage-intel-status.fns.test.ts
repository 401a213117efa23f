import { describe, expect, it } from 'vitest';
import { intelStatusOf } from './coverage-intel-status.fns.js';

const failing = [{ id: 's1', name: 'MITRE ATT&CK (Enterprise)', lastError: 'TAXII server answered HTTP 503', lastFailedAt: new Date('2026-11-28T10:00:00Z') }];

describe('intelStatusOf: why coverage has no intel to compare with', () => {
  it('names failing sources first, then no source, never synced, nothing named', () => {
    expect(intelStatusOf(0, { enabled: 2, synced: 1, failing }, 90, false)).toEqual({
      comparable: false, reason: 'sources_failing', techniques: 0, sources: { enabled: 2, synced: 1 },
      message: 'No intel to compare with: 1 source of 2 failed to sync (MITRE ATT&CK (Enterprise): TAXII server answered HTTP 503).',
      failingSources: [{ id: 's1', name: 'MITRE ATT&CK (Enterprise)', lastError: 'TAXII server answered HTTP 503', lastFailedAt: '2026-11-28T10:00:00.000Z' }],
    });
    expect(intelStatusOf(0, { enabled: 0, synced: 0, failing: [] }, 90, false).message).toBe('No intel to compare with: no intel source is enabled.');
    expect(intelStatusOf(0, { enabled: 1, synced: 0, failing: [] }, 90, false).message).toBe('No intel to compare with: none of the 1 enabled source has synced yet.');
    expect(intelStatusOf(0, { enabled: 3, synced: 3, failing: [] }, 1, false).message).toBe('No intel to compare with: the intel of the last 1 day names no ATT&CK technique.');
    expect(intelStatusOf(0, { enabled: 3, synced: 3, failing: [] }, 30, true)).toMatchObject({ reason: 'no_techniques', message: 'No intel to compare with: the intel of the last 30 days naming this actor or malware names no ATT&CK technique.' });
  });

  it('is comparable as soon as the intel names a technique', () => {
    expect(intelStatusOf(4, { enabled: 2, synced: 1, failing }, 90, false)).toMatchObject({ comparable: true, reason: null, message: null, techniques: 4, failingSources: [{ id: 's1' }] });
  });
});
