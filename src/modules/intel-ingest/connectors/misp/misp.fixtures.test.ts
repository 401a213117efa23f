import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConnectorParseError } from '../connector.js';
import {
  changedFeedEvents,
  entryFromMispEvent,
  mispFlag,
  mispUnixSeconds,
  nextMispCursor,
  unreadRestEvents,
  parseFeedEvent,
  parseFeedManifest,
  parseRestSearchResponse,
  type MispEvent,
} from './misp.fns.js';
import { sharedPath } from '../../../../../test/support/shared-dir.js';

/**
 * Replays the shared MISP samples (read in place, never copied into the project):
 * - misp-api: REST objects from PyMISP's test suite (events, index rows, galaxies, sightings, …);
 * - misp-feed: a CIRCL-style feed, `manifest.json` + `<uuid>.json` (some stored as `<uuid>.trimmed.json`).
 */
const FIXTURES = sharedPath('fixtures');
const API_DIR = path.join(FIXTURES, 'misp-api');
const FEED_DIR = path.join(FIXTURES, 'misp-feed');

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
}

function hasToIdsAttribute(e: MispEvent): boolean {
  const attrs = [...(e.Attribute ?? []), ...(e.Object ?? []).filter((o) => !mispFlag(o.deleted)).flatMap((o) => o.Attribute ?? [])];
  return attrs.some((a) => mispFlag(a.to_ids) && !mispFlag(a.deleted) && a.type !== 'comment' && a.type !== 'text');
}

describe.skipIf(!fs.existsSync(API_DIR))('MISP REST fixtures', () => {
  const api = (name: string): string => path.join(API_DIR, name);
  const ctx = { serverUrl: 'https://misp.example.org', publisher: 'Test MISP' };

  it('every JSON sample either parses into events with entries or fails with ConnectorParseError', () => {
    const files = fs.readdirSync(API_DIR).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    let parsed = 0;
    for (const f of files) {
      let events: MispEvent[];
      try {
        events = parseRestSearchResponse(readJson(api(f)));
      } catch (err) {
        expect(err, f).toBeInstanceOf(ConnectorParseError);
        expect((err as Error).message, f).not.toBe('');
        continue;
      }
      parsed += 1;
      for (const e of events) {
        const entry = entryFromMispEvent(e, ctx);
        expect(entry.externalId, f).toBe(e.uuid);
        expect(entry.title, f).not.toBe('');
        if (hasToIdsAttribute(e)) expect(entry.indicators.length, f).toBeGreaterThan(0);
      }
    }
    expect(parsed).toBeGreaterThan(0);
  });

  it.skipIf(!fs.existsSync(api('57c4445b-c548-4654-af0b-4be3950d210f.json')))('Xorist event: hashes, regkey, links, text', () => {
    const [e] = parseRestSearchResponse(readJson(api('57c4445b-c548-4654-af0b-4be3950d210f.json')));
    const entry = entryFromMispEvent(e!, { serverUrl: null, publisher: null });
    expect(entry).toMatchObject({
      externalId: '57c4445b-c548-4654-af0b-4be3950d210f',
      title: 'Ransomware - Xorist',
      publisher: 'CIRCL',
      publishedAt: '2016-08-30T09:10:31.000Z',
      updatedAt: '2016-08-30T07:10:11.000Z',
      url: 'https://www.virustotal.com/file/b3c4ae251f8094fa15b510051835c657eaef2a6cea46075d3aec964b14a99f68/analysis/1469554268/',
    });
    expect(entry.indicators.map((i) => i.type)).toEqual(['filename', 'md5', 'sha1', 'sha256', 'registry-key']);
    expect(entry.indicators.at(-1)?.value).toBe('Software\\Wow6432Node\\Microsoft\\Windows\\CurrentVersion\\Run');
    expect(entry.references).toHaveLength(2);
    expect(entry.contentText).toContain('UPX packed');
    expect(entry.contentText).toContain('Encryption rounds:8');
    expect(entry.tags).toContain('tlp:white');
  });

  it.skipIf(!fs.existsSync(api('existing_event.trimmed.json')))('Sednit event: domains, object attributes, galaxies', () => {
    const [e] = parseRestSearchResponse(readJson(api('existing_event.trimmed.json')));
    const entry = entryFromMispEvent(e!, ctx);
    expect(entry.url).toBe('https://misp.example.org/events/view/9747');
    expect(entry.publishedAt).toBe('2017-12-21T00:00:00.000Z');
    expect(entry.indicators.filter((i) => i.type === 'domain')).toHaveLength(6);
    expect(entry.indicators.filter((i) => i.type === 'sha1').map((i) => i.value)).toEqual([
      '68064fc152e23d56e541714af52651cb4ba81aaf',
      'f3805382ae2e23ff1147301d131a06e00e4ff75f',
    ]);
    expect(entry.indicators.some((i) => i.type === 'filename' && i.value === 'Bulletin.doc')).toBe(true);
    expect(entry.tags).toContain('misp-galaxy:threat-actor="Sofacy"');
    expect(entry.tags.filter((t) => t === 'misp-galaxy:threat-actor="Sofacy"')).toHaveLength(1);
    expect(entry.references).toEqual(['https://www.welivesecurity.com/2017/12/21/sednit-update-fancy-bear-spent-year/']);
    expect(entry.contentText).toContain('The Sednit group');
    expect(nextMispCursor([{ uuid: e!.uuid, timestamp: mispUnixSeconds(e!.timestamp)! }], null)).toEqual({ timestamp: 1513948642, seen: [e!.uuid] });
  });

  it.skipIf(!fs.existsSync(api('misp_event.json')))('bare event object: no to_ids, high threat level', () => {
    const e = parseFeedEvent(readJson(api('misp_event.json')));
    const entry = entryFromMispEvent(e, ctx);
    expect(entry).toMatchObject({ title: 'A Random Event', publisher: 'ORGNAME', indicators: [], references: [] });
    expect(entry.contentText).toBe('A Random Event\n\nLocky');
  });

  it.skipIf(!fs.existsSync(api('search_index_result.json')))('/events/index rows take their tags from EventTag', () => {
    const [e] = parseRestSearchResponse(readJson(api('search_index_result.json')));
    expect(entryFromMispEvent(e!, ctx).tags).toEqual(['TLP:GREEN', 'for_intelmq_processing', 'ecsirt:malicious-code="ransomware"']);
  });

  it('non-event documents are refused', () => {
    for (const f of ['event_obj_attr_tag.json', 'galaxy.json', 'sharing_groups.json', 'sighting.json', 'stix2.json']) {
      if (!fs.existsSync(api(f))) continue;
      expect(() => parseRestSearchResponse(readJson(api(f))), f).toThrow(ConnectorParseError);
    }
  });
});

describe.skipIf(!fs.existsSync(path.join(FEED_DIR, 'manifest.json')))('MISP feed fixtures', () => {
  // Read lazily: vitest still runs this callback (to collect) when the suite is skipped.
  const loadManifest = () => parseFeedManifest(readJson(path.join(FEED_DIR, 'manifest.json')));
  const fileFor = (uuid: string): string | undefined => {
    const files = fs.readdirSync(FEED_DIR);
    return files.find((f) => f === `${uuid}.json`) ?? files.find((f) => f.startsWith(`${uuid}.`) && f.endsWith('.json'));
  };
  const LOCKY = path.join(FEED_DIR, '5721c2e4-05ec-4af3-9264-411b950d210f.trimmed.json');

  it('parses the manifest and orders changes oldest first', () => {
    const manifest = loadManifest();
    expect(manifest.length).toBeGreaterThan(0);
    const all = changedFeedEvents(manifest, null);
    expect(new Set(all)).toEqual(new Set(manifest.map((m) => m.uuid)));
    const ts = all.map((u) => manifest.find((m) => m.uuid === u)!.timestamp);
    expect(ts).toEqual([...ts].sort((a, b) => a - b));
    const newest = Math.max(...ts);
    const atNewest = manifest.filter((m) => m.timestamp === newest).map((m) => m.uuid);
    expect(changedFeedEvents(manifest, { timestamp: newest, seen: atNewest })).toEqual([]);
    expect(changedFeedEvents(manifest, { timestamp: newest - 1, seen: [] })).toEqual(all.filter((u) => manifest.find((m) => m.uuid === u)!.timestamp === newest));
  });

  it('every event file present parses into an entry', () => {
    const manifest = loadManifest();
    const present = manifest.filter((m) => fileFor(m.uuid) !== undefined);
    expect(present.length).toBeGreaterThan(0);
    const events: MispEvent[] = [];
    for (const m of present) {
      const file = fileFor(m.uuid)!;
      const e = parseFeedEvent(readJson(path.join(FEED_DIR, file)));
      events.push(e);
      expect(e.uuid, file).toBe(m.uuid);
      const entry = entryFromMispEvent(e, { serverUrl: null, publisher: 'CIRCL OSINT' });
      expect(entry.externalId, file).toBe(m.uuid);
      expect(entry.title, file).toBe(m.info.trim());
      expect(entry.updatedAt, file).toBe(new Date(m.timestamp * 1000).toISOString());
      if (hasToIdsAttribute(e)) expect(entry.indicators.length, file).toBeGreaterThan(0);
      for (const i of entry.indicators) expect(i.origin, file).toMatch(/^misp:attribute:\S+/);
    }
    const cursor = nextMispCursor(unreadRestEvents(events, null).map((e) => ({ uuid: e.uuid, timestamp: e.timestamp! })), null);
    expect(cursor?.timestamp).toBe(Math.max(...present.map((m) => m.timestamp)));
  });

  it.skipIf(!fs.existsSync(LOCKY))('Locky feed event: compound types split', () => {
    const e = parseFeedEvent(readJson(LOCKY));
    const entry = entryFromMispEvent(e, { serverUrl: null, publisher: null });
    const types = new Set(entry.indicators.map((i) => i.type));
    for (const t of ['url', 'domain', 'ipv4', 'filename', 'md5', 'sha1', 'sha256']) expect(types).toContain(t);
    expect(entry.indicators).toContainEqual(expect.objectContaining({ type: 'md5', value: 'f34888e54bb3f7a95fc262cec94afe84', context: 'malware-sample' }));
    expect(entry.indicators.filter((i) => i.type === 'filename' && i.value === 'a1jxlz')).toHaveLength(1);
    expect(entry.references.length).toBe(4);
    expect(entry.url).toMatch(/^https:\/\/www\.virustotal\.com\//);
    expect(entry.publisher).toBe('CIRCL');
  });
});
