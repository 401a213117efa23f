import { describe, expect, it } from 'vitest';
import { alertFieldsFromPayload, isJsonPointer, readPointer } from './trigger-payload.fns.js';
import { normalizeSeverity, refusedStatusChange, statusChangeKind, numberOfDisplayId } from './alerts.fns.js';

describe('readPointer (RFC 6901)', () => {
  const doc = { foo: ['bar', 'baz'], '': 0, 'a/b': 1, 'm~n': 8 };
  it('reads the RFC examples', () => {
    expect(readPointer(doc, '')).toBe(doc);
    expect(readPointer(doc, '/foo/0')).toBe('bar');
    expect(readPointer(doc, '/a~1b')).toBe(1);
    expect(readPointer(doc, '/m~0n')).toBe(8);
    expect(readPointer(doc, '/')).toBe(0);
    expect(readPointer(doc, '/nope/x')).toBeUndefined();
    expect(readPointer(doc, '/__proto__')).toBeUndefined();
  });
  it('validates pointers', () => {
    expect(isJsonPointer('/detail/title')).toBe(true);
    expect(isJsonPointer('detail.title')).toBe(false);
    expect(isJsonPointer('/a~2')).toBe(false);
  });
});

describe('alertFieldsFromPayload', () => {
  it('keeps the per-sender dedupe key whatever the mapping, unless a mapped pointer finds a value', () => {
    const body = { source: 'aws.guardduty', detail: { id: 'f1', title: 'SSH brute force', severity: 8, arn: 'arn:x' } };
    for (const mapping of [null, {}, { title: '/detail/title' }, { dedupeKey: '' }, { dedupeKey: '/detail/nothing' }, { dedupeKey: '/detail' }]) {
      expect(alertFieldsFromPayload('webhook', body, mapping, 'gd').dedupeKey).toBe('guardduty:f1');
    }
    expect(alertFieldsFromPayload('webhook', body, { dedupeKey: '/detail/arn' }, 'gd').dedupeKey).toBe('webhook:arn:x');
    expect(alertFieldsFromPayload('webhook', { title: 'x' }, { title: '/title' }, 'gd').dedupeKey).toBeNull();
  });
  it('Security Hub findings through the generic webhook', () => {
    const body = { detail: { findings: [{ Id: 'arn:aws:securityhub:eu-west-1:1:finding/abc', Title: 'S3 bucket is public', Description: 'Bucket acme-logs allows public read', Severity: { Label: 'CRITICAL' } }] } };
    expect(alertFieldsFromPayload('webhook', body, null, 'hub')).toEqual({
      title: 'S3 bucket is public',
      description: 'Bucket acme-logs allows public read',
      severity: 'critical',
      externalProvider: 'aws-securityhub',
      externalRef: 'arn:aws:securityhub:eu-west-1:1:finding/abc',
      externalUrl: null,
      dedupeKey: 'securityhub:arn:aws:securityhub:eu-west-1:1:finding/abc',
    });
  });
  it('Darktrace model breaches and Bugcrowd submissions', () => {
    expect(alertFieldsFromPayload('darktrace', { pbid: 99812, score: 0.93, model: { name: 'Compromise::Beaconing Activity To External Rare' }, device: { hostname: 'ws-0142' } }, null, 'dt')).toMatchObject({
      title: 'Compromise::Beaconing Activity To External Rare', description: 'Model breach on ws-0142', severity: 'critical', externalRef: '99812', dedupeKey: 'darktrace:99812',
    });
    expect(alertFieldsFromPayload('bugcrowd', { data: { id: 'a1b2', type: 'submission', attributes: { title: 'Stored XSS in profile', severity: 2 } } }, null, 'bc')).toMatchObject({
      title: 'Stored XSS in profile', severity: 'high', externalRef: 'a1b2', externalUrl: 'https://tracker.bugcrowd.com/submissions/a1b2',
    });
  });
  it('falls back to a readable title and medium severity', () => {
    expect(alertFieldsFromPayload('zscaler', 'plain text', null, 'ZIA')).toMatchObject({ title: 'ZIA alert', severity: 'medium', dedupeKey: null });
  });
});

describe('alert lifecycle rules', () => {
  it('agents cannot close as true positive; no-op changes are refused', () => {
    expect(refusedStatusChange('open', 'closed_true_positive', { type: 'agent', agentId: 'a', agentName: 'A' })).toMatch(/escalated/);
    expect(refusedStatusChange('open', 'closed_true_positive', { type: 'human', userId: 'u' })).toBeNull();
    expect(refusedStatusChange('escalated', 'escalated', { type: 'human', userId: 'u' })).toMatch(/already/);
    expect(statusChangeKind('closed_benign', 'open')).toBe('reopened');
    expect(statusChangeKind('open', 'closed_benign')).toBe('closed');
  });
  it('severity words and scales', () => {
    expect(['Highest', 'P2', 'warning', 'info', 8.9, '9.8', 2].map(normalizeSeverity)).toEqual(['critical', 'high', 'medium', 'low', 'high', 'critical', 'low']);
    expect(normalizeSeverity('whatever')).toBeNull();
  });
  it('display ids', () => {
    expect(numberOfDisplayId('rmp-42')).toBe(42);
    expect(numberOfDisplayId('RMP-')).toBeNull();
    expect(numberOfDisplayId('ABC-1')).toBeNull();
  });
});
