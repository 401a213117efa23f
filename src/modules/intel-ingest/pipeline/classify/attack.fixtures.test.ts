import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogFromStixObjects, type AttackCatalog } from '../../../intel/index.js';
import { classifyText, type Classification } from './classify-attack.fns.js';
import { sharedPath } from '../../../../../test/support/shared-dir.js';

/**
 * Real ATT&CK data, read in place (never copied into the project):
 * - apt28-subset-bundle.json: a STIX 2.0 bundle (APT28, CHOPSTICK, tools, 12 techniques, tactics);
 * - ics-attack-2.1-subset.json: a STIX 2.1 ICS bundle (Dragonfly, Havex, T08xx techniques);
 * - enterprise-attack-index.json: an index of every Enterprise technique, group and software.
 */
const DIR = sharedPath('fixtures/attack');

function readJson(name: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(DIR, name), 'utf8')) as Record<string, unknown>;
}

function bundleObjects(name: string): unknown[] {
  const b = readJson(name);
  return Array.isArray(b.objects) ? b.objects : [];
}

function expectProvenance(text: string, r: Classification): void {
  const refs = new Set(r.passages.map((p) => p.ref));
  for (const p of r.passages) expect(text.slice(p.charSpan.start, p.charSpan.end)).toBe(p.text);
  for (const a of r.attack) expect(refs.has(a.evidenceRef), `${a.subTechnique || a.technique} → ${a.evidenceRef}`).toBe(true);
}

interface IndexRow {
  id: string;
  name: string;
  revoked?: boolean;
  deprecated?: boolean;
  tactics?: string[];
  platforms?: string[];
  aliases?: string[];
  type?: string;
}

/** The index has the catalog's fields under other keys; live rows only. */
function catalogFromIndex(): AttackCatalog {
  const idx = readJson('enterprise-attack-index.json') as unknown as Record<'techniques' | 'groups' | 'software', IndexRow[]>;
  const live = (r: IndexRow): boolean => r.revoked !== true && r.deprecated !== true;
  return {
    techniques: new Map(
      idx.techniques.filter(live).map((r) => [r.id, { id: r.id, name: r.name, tactics: r.tactics ?? [], platforms: r.platforms ?? [] }]),
    ),
    groups: idx.groups.filter(live).map((r) => ({ id: r.id, name: r.name, aliases: r.aliases?.length ? r.aliases : [r.name] })),
    software: idx.software
      .filter(live)
      .map((r) => ({ id: r.id, name: r.name, aliases: r.aliases?.length ? r.aliases : [r.name], type: r.type === 'tool' ? ('tool' as const) : ('malware' as const) })),
  };
}

const APT28_TEXT = [
  'Fancy Bear, also tracked as Sofacy and STRONTIUM, targeted European ministries in March.',
  'The operators sent spearphishing attachment lures (T1566.001) carrying a macro that launched PowerShell.',
  'The second stage installed X-Agent, which beaconed over HTTPS to 198.51.100.7 and update-check[.]com (Application Layer Protocol: Web Protocols).',
  'To obtain credentials the actors dumped LSASS Memory with a renamed tool, and they cleared event logs with wevtutil (T1070.001).',
  'Network defenders should review Windows hosts for certutil downloads (T1105).',
].join(' ');

describe.skipIf(!fs.existsSync(DIR))('ATT&CK fixtures', () => {
  it('builds the catalog from the APT28 bundle', () => {
    const c = catalogFromStixObjects(bundleObjects('apt28-subset-bundle.json'));
    expect(c.techniques.size).toBe(12);
    expect(c.techniques.get('T1059.001')).toEqual({ id: 'T1059.001', name: 'PowerShell', tactics: ['execution'], platforms: ['Windows'] });
    expect(c.techniques.get('T1071')?.platforms).toContain('Network Devices');
    expect(c.groups).toHaveLength(1);
    expect(c.groups[0]?.name).toBe('APT28');
    expect(c.groups[0]?.aliases).toEqual(expect.arrayContaining(['Fancy Bear', 'Sofacy', 'STRONTIUM', 'Forest Blizzard']));
    expect(c.software.map((s) => [s.id, s.name, s.type])).toEqual(
      expect.arrayContaining([
        ['S0023', 'CHOPSTICK', 'malware'],
        ['S0039', 'Net', 'tool'],
        ['S0160', 'certutil', 'tool'],
        ['S0645', 'Wevtutil', 'tool'],
      ]),
    );
  });

  it('classifies an APT28 paragraph against the bundle catalog with exact passages', () => {
    const c = catalogFromStixObjects(bundleObjects('apt28-subset-bundle.json'));
    const r = classifyText({ title: 'Sofacy campaign against ministries', text: APT28_TEXT, tags: [], cves: [], techniqueIds: [] }, c);
    expectProvenance(APT28_TEXT, r);

    expect(r.actor).toHaveLength(1);
    expect(r.actor[0]?.name).toBe('APT28');
    expect(r.actor[0]?.aliases).toEqual(expect.arrayContaining(['Fancy Bear', 'Sofacy']));
    expect(r.actor[0]?.confidence).toBeGreaterThanOrEqual(0.75);
    // X-Agent is an alias of CHOPSTICK; wevtutil and certutil are OS utilities, not malware.
    // (With the full catalog, "Sofacy" is also a CORESHELL alias: a group alias wins.)
    expect(r.malware.map((m) => m.name)).toEqual(['CHOPSTICK']);

    const byId = new Map(r.attack.map((a) => [a.subTechnique || a.technique, a]));
    expect([...byId.keys()]).toEqual(['T1566.001', 'T1059.001', 'T1071.001', 'T1003.001', 'T1070.001', 'T1105']);
    expect(byId.get('T1566.001')).toMatchObject({ technique: 'T1566', techniqueName: 'Phishing: Spearphishing Attachment', confidence: 0.95 });
    expect(byId.get('T1059.001')?.techniqueName).toBe('Command and Scripting Interpreter: PowerShell');
    expect(byId.get('T1003.001')?.techniqueName).toBe('OS Credential Dumping: LSASS Memory');
    // T1070.001 is in the subset without its parent: its own name only.
    expect(byId.get('T1070.001')).toMatchObject({ technique: 'T1070', techniqueName: 'Clear Windows Event Logs', confidence: 0.9 });
    // T1105 is cited by id but is not in this subset: recognised, unnamed, lower confidence.
    expect(byId.get('T1105')).toMatchObject({ technique: 'T1105', subTechnique: '', techniqueName: '', confidence: 0.75 });

    const passage = (id: string): string | undefined => r.passages.find((p) => p.ref === byId.get(id)?.evidenceRef)?.text;
    expect(passage('T1566.001')).toBe(
      'The operators sent spearphishing attachment lures (T1566.001) carrying a macro that launched PowerShell.',
    );
    expect(passage('T1003.001')).toMatch(/^To obtain credentials the actors dumped LSASS Memory/);
    expect(r.killChain).toEqual(['initial-access', 'execution', 'defense-evasion', 'credential-access', 'command-and-control']);
    expect(r.platforms).toEqual(['Windows']);
    expect(r.mappings).toEqual(expect.arrayContaining([{ framework: 'mitre-attack', id: 'G0007', confidence: r.actor[0]?.confidence }]));
  });

  it('reads the ICS (STIX 2.1) subset', () => {
    const c = catalogFromStixObjects(bundleObjects('ics-attack-2.1-subset.json'));
    expect(c.techniques.get('T0817')).toEqual({ id: 'T0817', name: 'Drive-by Compromise', tactics: ['initial-access'], platforms: [] });
    expect(c.groups.map((g) => g.name)).toEqual(['Dragonfly']);
    const text = 'Energetic Bear used Havex (Backdoor.Oldrea) after a Supply Chain Compromise of ICS vendors.';
    const r = classifyText({ title: '', text, tags: [], cves: [], techniqueIds: [] }, c);
    expectProvenance(text, r);
    expect(r.actor.map((a) => a.name)).toEqual(['Dragonfly']);
    expect(r.malware.map((m) => m.name)).toEqual(['Backdoor.Oldrea']);
    expect(r.attack.map((a) => a.technique)).toEqual(['T0862']);
  });

  describe('against the full Enterprise index', () => {
    const catalog = catalogFromIndex();

    it('finds the APT28 paragraph the same way', () => {
      const r = classifyText({ title: '', text: APT28_TEXT, tags: [], cves: [], techniqueIds: [] }, catalog);
      expectProvenance(APT28_TEXT, r);
      expect(r.actor.map((a) => a.name)).toEqual(['APT28']);
      expect(r.malware.map((m) => m.name)).toEqual(['CHOPSTICK']);
      expect(r.attack.map((a) => a.subTechnique || a.technique)).toEqual(
        expect.arrayContaining(['T1566.001', 'T1059.001', 'T1071.001', 'T1003.001', 'T1070.001']),
      );
      expect(r.attack.find((a) => a.subTechnique === 'T1070.001')?.techniqueName).toBe('Indicator Removal: Clear Windows Event Logs');
    });

    it('stays quiet on an ordinary patch advisory', () => {
      const text = [
        'Microsoft released security updates for Exchange Server and SharePoint on Tuesday.',
        'The company said there is no evidence of exploitation, and that network devices, cloud services and email accounts were not affected.',
        'Administrators should play it safe: apply the update, review the Tool settings and check the Server role.',
        'A registry hive backup and a scheduled maintenance window are recommended; the script.ps1 helper ships with the fix.',
      ].join(' ');
      const r = classifyText({ title: 'Patch Tuesday', text, tags: [], cves: [], techniqueIds: [] }, catalog);
      expectProvenance(text, r);
      expect(r.actor).toEqual([]);
      expect(r.malware).toEqual([]);
      expect(r.attack).toEqual([]);
    });

    it('is fast enough for long articles', () => {
      const text = APT28_TEXT.repeat(200);
      const started = Date.now();
      const r = classifyText({ title: '', text, tags: [], cves: [], techniqueIds: [] }, catalog);
      expect(Date.now() - started).toBeLessThan(2000);
      expectProvenance(text, r);
    });
  });
});
