/**
 * Severity of whole items through the pipeline (issue 18 item 9), pinned on our labelled eval
 * cases (scripts/eval-cases/*.json with a `severity`) and on the shared MISP samples (read in
 * place, skipped when absent), with the catalog shipped with Rampart as on a fresh install.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { entryFromMispEvent, parseRestSearchResponse } from '../connectors/misp/misp.fns.js';
import { type IntelEntry, shippedAttackCatalog } from '../../intel/index.js';
import { processItem } from './process.fns.js';
import { sharedPath } from '../../../../test/support/shared-dir.js';

const CASES = new URL('../../../../scripts/eval-cases/', import.meta.url);
const MISP_API = sharedPath('fixtures/misp-api');

function severityOf(e: Pick<IntelEntry, 'title' | 'contentText' | 'url' | 'tags' | 'indicators'>) {
  const r = processItem({ title: e.title, contentText: e.contentText, url: e.url, tags: e.tags, structuredIndicators: e.indicators, publishedAt: null, now: new Date() }, shippedAttackCatalog().catalog);
  return { severity: r.severity, indicators: r.indicators.length };
}

describe('item severity, eval cases', () => {
  const cases = fs.readdirSync(CASES).filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(fs.readFileSync(new URL(f, CASES), 'utf8')) as { name: string; text: string; severity?: string })
    .filter((c) => c.severity);

  it('has the infostealer campaign case', () => {
    expect(cases.map((c) => c.name)).toContain('infostealer phishing campaign');
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const [title, ...rest] = c.text.split('\n');
    expect(severityOf({ title: title!, contentText: rest.join('\n') || c.text, url: null, tags: [], indicators: [] }).severity).toBe(c.severity);
  });
});

describe.skipIf(!fs.existsSync(MISP_API))('item severity, shared MISP samples', () => {
  const entry = (file: string) => entryFromMispEvent(parseRestSearchResponse(JSON.parse(fs.readFileSync(path.join(MISP_API, file), 'utf8')))[0]!, { serverUrl: 'https://misp.example.org', publisher: 'Test MISP' });

  it('an APT28 (Sednit) toolkit update with its indicators is high, not low', () => {
    expect(severityOf(entry('existing_event.trimmed.json'))).toEqual({ severity: 'high', indicators: 9 });
  });

  it('a ransomware event with 6 indicators is high', () => {
    expect(severityOf(entry('57c4445b-c548-4654-af0b-4be3950d210f.json'))).toEqual({ severity: 'high', indicators: 6 });
  });

  it('an event with nothing but a title stays none', () => {
    expect(severityOf(entry('new_misp_event.json'))).toEqual({ severity: 'none', indicators: 0 });
  });
});
