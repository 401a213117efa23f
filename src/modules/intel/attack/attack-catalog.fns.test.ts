import { describe, expect, it } from 'vitest';
import {
  catalogFromJson,
  catalogFromStixObjects,
  catalogToJson,
  EMPTY_CATALOG,
  isCatalogEmpty,
  mergeSyncedCatalog,
  sortTactics,
  type CatalogRow,
  withdrawnIdsFromStixObjects,
  tacticName,
} from './attack-catalog.fns.js';

const ref = (id: string, source = 'mitre-attack') => [{ source_name: source, external_id: id, url: `https://attack.mitre.org/${id}` }];
const phase = (name: string, chain = 'mitre-attack') => ({ kill_chain_name: chain, phase_name: name });

const OBJECTS: unknown[] = [
  { type: 'identity', id: 'identity--1', name: 'The MITRE Corporation' },
  {
    type: 'attack-pattern',
    id: 'attack-pattern--1',
    name: 'Command and Scripting Interpreter',
    external_references: [{ source_name: 'capec', external_id: 'CAPEC-1' }, ...ref('T1059')],
    kill_chain_phases: [phase('execution')],
    x_mitre_platforms: ['Windows', 'Linux'],
  },
  {
    type: 'attack-pattern',
    id: 'attack-pattern--2',
    name: 'PowerShell',
    external_references: ref('T1059.001'),
    kill_chain_phases: [phase('execution'), phase('not-attack', 'lockheed')],
    x_mitre_platforms: ['Windows'],
  },
  { type: 'attack-pattern', id: 'attack-pattern--3', name: 'Old', revoked: true, external_references: ref('T1000') },
  { type: 'attack-pattern', id: 'attack-pattern--4', name: 'Deprecated', x_mitre_deprecated: true, external_references: ref('T1001') },
  {
    type: 'attack-pattern',
    id: 'attack-pattern--5',
    name: 'Drive-by Compromise',
    external_references: ref('T0817'),
    kill_chain_phases: [phase('initial-access', 'mitre-ics-attack')],
    x_mitre_platforms: ['None'],
  },
  {
    type: 'attack-pattern',
    id: 'attack-pattern--6',
    name: 'Valid Accounts',
    external_references: ref('T1078'),
    kill_chain_phases: [phase('privilege-escalation'), phase('initial-access'), phase('persistence'), phase('defense-evasion')],
    x_mitre_platforms: ['Windows'],
  },
  { type: 'attack-pattern', id: 'attack-pattern--7', name: 'No id', external_references: [] },
  { type: 'intrusion-set', id: 'intrusion-set--1', name: 'APT28', aliases: ['APT28', 'Fancy Bear', 'Sofacy'], external_references: ref('G0007') },
  { type: 'intrusion-set', id: 'intrusion-set--2', name: 'Gone', revoked: true, aliases: ['Gone'], external_references: ref('G0999') },
  { type: 'malware', id: 'malware--1', name: 'CHOPSTICK', x_mitre_aliases: ['CHOPSTICK', 'X-Agent'], external_references: ref('S0023') },
  { type: 'tool', id: 'tool--1', name: 'Mimikatz', external_references: ref('S0002') },
  { type: 'malware', id: 'malware--2', name: 'Stix only', aliases: ['SO'], external_references: ref('S0100') },
  { type: 'relationship', id: 'relationship--1', relationship_type: 'uses', source_ref: 'intrusion-set--1', target_ref: 'malware--1' },
  null,
  'junk',
  42,
];

describe('catalogFromStixObjects', () => {
  const c = catalogFromStixObjects(OBJECTS);

  it('keeps live techniques with tactics in ATT&CK order and platforms without "None"', () => {
    expect([...c.techniques.keys()].sort()).toEqual(['T0817', 'T1059', 'T1059.001', 'T1078']);
    expect(c.techniques.get('T1059.001')).toEqual({ id: 'T1059.001', name: 'PowerShell', tactics: ['execution'], platforms: ['Windows'] });
    expect(c.techniques.get('T1078')?.tactics).toEqual(['initial-access', 'persistence', 'privilege-escalation', 'defense-evasion']);
    expect(c.techniques.get('T0817')).toEqual({ id: 'T0817', name: 'Drive-by Compromise', tactics: ['initial-access'], platforms: [] });
  });

  it('reads groups with aliases (name first, deduplicated) and skips revoked ones', () => {
    expect(c.groups).toEqual([{ id: 'G0007', name: 'APT28', aliases: ['APT28', 'Fancy Bear', 'Sofacy'] }]);
  });

  it('reads malware and tools with x_mitre_aliases, falling back to aliases and the name', () => {
    expect(c.software).toEqual([
      { id: 'S0023', name: 'CHOPSTICK', aliases: ['CHOPSTICK', 'X-Agent'], type: 'malware' },
      { id: 'S0002', name: 'Mimikatz', aliases: ['Mimikatz'], type: 'tool' },
      { id: 'S0100', name: 'Stix only', aliases: ['Stix only', 'SO'], type: 'malware' },
    ]);
  });

  it('merges a technique present in two domains', () => {
    const merged = catalogFromStixObjects([
      { type: 'attack-pattern', name: 'X', external_references: ref('T1111'), kill_chain_phases: [phase('impact')], x_mitre_platforms: ['Linux'] },
      { type: 'attack-pattern', name: 'X', external_references: ref('T1111', 'mitre-mobile-attack'), kill_chain_phases: [phase('initial-access', 'mitre-mobile-attack')], x_mitre_platforms: ['Android'] },
    ]);
    expect(merged.techniques.get('T1111')).toEqual({ id: 'T1111', name: 'X', tactics: ['initial-access', 'impact'], platforms: ['Linux', 'Android'] });
  });

  it('lists the withdrawn (revoked or deprecated) ids', () => {
    expect(withdrawnIdsFromStixObjects(OBJECTS).sort()).toEqual(['G0999', 'T1000', 'T1001']);
  });

  it('gives an empty catalog for no objects', () => {
    expect(isCatalogEmpty(catalogFromStixObjects([]))).toBe(true);
    expect(isCatalogEmpty(EMPTY_CATALOG)).toBe(true);
    expect(isCatalogEmpty(c)).toBe(false);
  });

  it('round-trips through JSON', () => {
    const json = JSON.parse(JSON.stringify(catalogToJson(c))) as unknown;
    const back = catalogFromJson(json);
    expect([...back.techniques.entries()]).toEqual([...c.techniques.entries()]);
    expect(back.groups).toEqual(c.groups);
    expect(back.software).toEqual(c.software);
  });

  it.each([null, 'x', { techniques: [{ id: 'bad', name: 'x' }, 7], groups: [{}], software: 'no' }])('catalogFromJson tolerates %j', (json) => {
    expect(isCatalogEmpty(catalogFromJson(json))).toBe(true);
  });
});

describe('tactics', () => {
  it.each([
    [['impact', 'initial-access', 'execution', 'initial-access'], ['initial-access', 'execution', 'impact']],
    [['zeta', 'reconnaissance', 'alpha'], ['reconnaissance', 'alpha', 'zeta']],
    [['inhibit-response-function', 'evasion', 'defense-evasion'], ['defense-evasion', 'evasion', 'inhibit-response-function']],
  ])('sortTactics(%j)', (input, expected) => {
    expect(sortTactics(input)).toEqual(expected);
  });

  it.each([
    ['command-and-control', 'Command and Control'],
    ['initial-access', 'Initial Access'],
    ['something-new', 'Something New'],
  ])('tacticName(%s)', (shortname, name) => {
    expect(tacticName(shortname)).toBe(name);
  });
});

describe('mergeSyncedCatalog', () => {
  const shipped = {
    releasedAt: new Date('2025-11-13T00:00:00Z'),
    catalog: catalogFromJson({
      techniques: [{ id: 'T1566', name: 'Phishing', tactics: ['initial-access'], platforms: ['Windows'] }],
      groups: [{ id: 'G0007', name: 'APT28', aliases: ['APT28', 'Fancy Bear'] }],
      software: [{ id: 'S1213', name: 'Lumma Stealer', aliases: ['Lumma Stealer', 'LummaC2'], type: 'malware' }],
    }),
  };
  const row = (id: string, kind: CatalogRow['kind'], name: string, updatedAt: string): CatalogRow => ({ id, kind, name, aliases: [name], tactics: [], platforms: [], updatedAt: new Date(updatedAt) });

  it('is the shipped catalog until something is synced', () => {
    expect(mergeSyncedCatalog(shipped, [])).toBe(shipped.catalog);
  });

  it('takes synced entries newer than the shipped release, and any entry the shipped catalog lacks', () => {
    const merged = mergeSyncedCatalog(shipped, [
      row('T1566', 'technique', 'Phishing (renamed)', '2026-01-05T00:00:00Z'),
      row('G0007', 'group', 'APT28 (stale)', '2025-01-01T00:00:00Z'),
      row('S9999', 'tool', 'NewTool', '2024-01-01T00:00:00Z'),
    ]);
    expect(merged.techniques.get('T1566')?.name).toBe('Phishing (renamed)');
    expect(merged.groups).toEqual([{ id: 'G0007', name: 'APT28', aliases: ['APT28', 'Fancy Bear'] }]);
    expect(merged.software.map((s) => [s.id, s.type])).toEqual([['S1213', 'malware'], ['S9999', 'tool']]);
    expect(shipped.catalog.software).toHaveLength(1); // the shipped catalog is not modified
  });
});
