/**
 * The literal-prefixed passes find their candidates with a single-character search (Azure: the GUID's hyphens,
 * GCP: the '/' of "projects/") and then try the pattern where it can start. These cases pin down what the
 * global regexes they replace found: the leftmost match after the previous one, the longest prefix, overlaps.
 * The expected values are main's output before the change (2026-11-25).
 */
import { describe, expect, it } from 'vitest';
import { extractIocs } from './extract.fns.js';

const kept = (text: string) =>
  extractIocs(text).iocs.map((i) => [i.kind, i.normalizedValue, text.slice((i.spans[0] as { start: number }).start, (i.spans[0] as { end: number }).end), i.subtype ?? null]);
const dropped = (text: string) => extractIocs(text).dropped.map((d) => [d.kind, d.value, d.reason]);

describe('Azure ids', () => {
  it('the longest context before the GUID, and a tenant id written with an underscore', () => {
    const text = 'Subscriptions-ids : is   5F1A3C2E-0B7D-4E8A-9C6F-1D2E3F4A5B6C and TENANT_ID=0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    expect(kept(text)).toEqual([
      ['cloud-id', '5f1a3c2e-0b7d-4e8a-9c6f-1d2e3f4a5b6c', '5F1A3C2E-0B7D-4E8A-9C6F-1D2E3F4A5B6C', 'azure-subscription'],
      ['cloud-id', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', 'azure-tenant'],
    ]);
  });

  it('a GUID that runs on, a GUID without context, and the all-zeros placeholder', () => {
    const text =
      'subscription 5f1a3c2e-0b7d-4e8a-9c6f-1d2e3f4a5b6c-0b7d-4e8a-9c6f-1d2e3f4a5b6c; bare 11111111-2222-3333-4444-555555555555; tenant: 00000000-0000-0000-0000-000000000000';
    expect(kept(text)).toEqual([]);
    expect(dropped(text)).toEqual([['cloud-id', '00000000-0000-0000-0000-000000000000', 'placeholder GUID (all zeros)']]);
  });

  it('the match starts at the word nearest the GUID; a second GUID after it has no context of its own', () => {
    const text = 'tenant subscription id: 6a1a3c2e-0b7d-4e8a-9c6f-1d2e3f4a5b6c 7a1a3c2e-0b7d-4e8a-9c6f-1d2e3f4a5b6c';
    expect(kept(text)).toEqual([['cloud-id', '6a1a3c2e-0b7d-4e8a-9c6f-1d2e3f4a5b6c', '6a1a3c2e-0b7d-4e8a-9c6f-1d2e3f4a5b6c', 'azure-subscription']]);
  });
});

describe('GCP project ids', () => {
  it('overlapping "projects/", a word before, doubled hyphens, placeholders, and ids inside URLs', () => {
    const text =
      'projects/projects/abcdef-1 xprojects/evil-proj-9 projects/a--bcdef projects/my-project-7 (projects/evil-proj-123) https://console.cloud.google.com/projects/prod-app-77/logs';
    expect(kept(text)).toEqual([
      ['cloud-id', 'projects', 'projects', 'gcp-project'],
      ['cloud-id', 'evil-proj-123', 'evil-proj-123', 'gcp-project'],
      ['cloud-id', 'prod-app-77', 'prod-app-77', 'gcp-project'],
    ]);
    expect(dropped(text)).toEqual([
      ['cloud-id', 'my-project-7', 'documentation placeholder'],
      ['url', 'https://console.cloud.google.com/projects/prod-app-77/logs', 'benign infrastructure (vendor/reference site)'],
      ['domain', 'console.cloud.google.com', 'benign infrastructure (vendor/reference site)'],
    ]);
  });
});

describe('result order', () => {
  it('indicators by first occurrence and dropped records by position, across passes', () => {
    const text = 'AS0 then CVE-2024-12345 evil-cdn.top 8.8.8.8 AS13335 8.8.8.8 T1059.001 evil-cdn.top';
    expect(kept(text)).toEqual([
      ['cve', 'CVE-2024-12345', 'CVE-2024-12345', null],
      ['domain', 'evil-cdn.top', 'evil-cdn.top', null],
      ['asn', 'AS13335', 'AS13335', null],
      ['attack-technique', 'T1059.001', 'T1059.001', null],
    ]);
    expect(extractIocs(text).dropped.map((d) => [d.value, d.span.start])).toEqual([
      ['AS0', 0],
      ['8.8.8.8', 37],
      ['8.8.8.8', 53],
    ]);
  });
});
