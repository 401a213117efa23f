import { describe, expect, it } from 'vitest';
import { MISP_EVENT_SUFFIX, mispAttribute, mispEventHead, mispEventPrefix, mispType } from './misp.fns.js';
import { entryFromMispEvent, parseFeedEvent } from '../intel-ingest/connectors/misp/misp.fns.js';

describe('MISP functions', () => {
  it('maps indicator types to MISP attribute types', () => {
    expect(mispType('ipv6', '2001:db8::1')).toEqual(['ip-dst', 'Network activity']);
    expect(mispType('registry-key', 'HKLM\\x')).toEqual(['regkey', 'Persistence mechanism']);
    expect(mispType('cert', 'abc')).toBeNull();
    expect(mispType('cert', 'ab'.repeat(20))).toEqual(['x509-fingerprint-sha1', 'Network activity']);
    expect(mispType('cve', 'CVE-2026-1')).toBeNull();
  });

  it('writes an event document that MISP\'s feed format parser (Rampart\'s connector) reads back', () => {
    const at = new Date('2026-11-02T10:00:00Z');
    const uuid = '0193a0b2-7c1d-7e00-8000-000000000001';
    const attrs = [mispAttribute(uuid, { type: 'domain', value: 'evil.example', timestamp: at })!, mispAttribute(uuid, { type: 'sha256', value: 'ab'.repeat(32), timestamp: at })!];
    const doc = mispEventPrefix(mispEventHead({ uuid, info: 'Report "x"', date: at, timestamp: at, severity: 'high', orgName: 'Org', orgUuid: uuid })) + attrs.map((a) => JSON.stringify(a)).join(',') + MISP_EVENT_SUFFIX;
    const entry = entryFromMispEvent(parseFeedEvent(JSON.parse(doc)), { serverUrl: null, publisher: null });
    expect(entry).toMatchObject({ externalId: uuid, title: 'Report "x"', updatedAt: at.toISOString(), publisher: 'Org' });
    expect(entry.indicators.map((i) => [i.type, i.value, i.confidence])).toEqual([['domain', 'evil.example', 0.9], ['sha256', 'ab'.repeat(32), 0.9]]);
    expect(attrs[0]!.uuid).toBe(mispAttribute(uuid, { type: 'domain', value: 'evil.example', timestamp: new Date() })!.uuid);
  });
});
