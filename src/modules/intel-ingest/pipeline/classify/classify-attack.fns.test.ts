import { describe, expect, it } from 'vitest';
import { EMPTY_CATALOG, type AttackCatalog, type CatalogTechnique } from '../../../intel/index.js';
import { classifyText, type Classification, type ClassifyInput } from './classify-attack.fns.js';

const t = (id: string, name: string, tactics: string[], platforms: string[] = ['Windows', 'Linux', 'macOS']): [string, CatalogTechnique] => [
  id,
  { id, name, tactics, platforms },
];

const CATALOG: AttackCatalog = {
  techniques: new Map([
    t('T1059', 'Command and Scripting Interpreter', ['execution']),
    t('T1059.001', 'PowerShell', ['execution'], ['Windows']),
    t('T1566', 'Phishing', ['initial-access']),
    t('T1566.001', 'Spearphishing Attachment', ['initial-access']),
    t('T1003', 'OS Credential Dumping', ['credential-access']),
    t('T1003.001', 'LSASS Memory', ['credential-access'], ['Windows']),
    t('T1078', 'Valid Accounts', ['defense-evasion', 'persistence', 'privilege-escalation', 'initial-access']),
    t('T1136', 'Create Account', ['persistence']),
    t('T1136.001', 'Local Account', ['persistence']),
    t('T1087', 'Account Discovery', ['discovery']),
    t('T1087.001', 'Local Account', ['discovery']),
    t('T1588', 'Obtain Capabilities', ['resource-development']),
    t('T1588.002', 'Tool', ['resource-development'], ['PRE']),
    t('T1584.008', 'Network Devices', ['resource-development'], ['PRE']),
    t('T1486', 'Data Encrypted for Impact', ['impact'], ['Linux', 'ESXi', 'Windows']),
  ]),
  groups: [
    { id: 'G0007', name: 'APT28', aliases: ['APT28', 'Fancy Bear', 'Sofacy', 'SNAKEMACKEREL', 'Tsar Team'] },
    { id: 'G0082', name: 'APT38', aliases: ['APT38'] },
    { id: 'G0091', name: 'Silence', aliases: ['Silence'] },
  ],
  software: [
    { id: 'S0023', name: 'CHOPSTICK', aliases: ['CHOPSTICK', 'SPLM', 'X-Agent'], type: 'malware' },
    { id: 'S0002', name: 'Mimikatz', aliases: ['Mimikatz'], type: 'tool' },
    { id: 'S0039', name: 'Net', aliases: ['Net', 'net.exe'], type: 'tool' },
    { id: 'S0160', name: 'certutil', aliases: ['certutil', 'certutil.exe'], type: 'tool' },
    { id: 'S9999', name: 'Royal', aliases: ['Royal'], type: 'malware' },
  ],
};

function input(text: string, extra: Partial<ClassifyInput> = {}): ClassifyInput {
  return { title: '', text, tags: [], cves: [], techniqueIds: [], ...extra };
}

/** Every passage is exact and every evidenceRef names one of them. */
function expectProvenance(text: string, r: Classification): void {
  for (const p of r.passages) expect(text.slice(p.charSpan.start, p.charSpan.end)).toBe(p.text);
  const refs = new Set(r.passages.map((p) => p.ref));
  expect(refs.size).toBe(r.passages.length);
  for (const a of r.attack) if (a.evidenceRef !== '') expect(refs.has(a.evidenceRef), a.evidenceRef).toBe(true);
}

function run(text: string, catalog: AttackCatalog = CATALOG, extra: Partial<ClassifyInput> = {}): Classification {
  const r = classifyText(input(text, extra), catalog);
  expectProvenance(text, r);
  return r;
}

const ids = (r: Classification): string[] => r.attack.map((a) => a.subTechnique || a.technique);

describe('classifyText: technique ids', () => {
  it.each([
    ['T1059', [{ technique: 'T1059', subTechnique: '' }]],
    ['T1059.001', [{ technique: 'T1059', subTechnique: 'T1059.001' }]],
    ['https://attack.mitre.org/techniques/T1059/001/', [{ technique: 'T1059', subTechnique: 'T1059.001' }]],
    ['T10590 and TA0001 and xT1059', []],
    ['T1003 then T1003.001 then T1003', [{ technique: 'T1003', subTechnique: '' }, { technique: 'T1003', subTechnique: 'T1003.001' }]],
  ])('recognises %j with an empty catalog', (text, expected) => {
    const r = run(`Seen: ${text}.`, EMPTY_CATALOG);
    expect(r.attack.map(({ technique, subTechnique }) => ({ technique, subTechnique }))).toEqual(expected);
    for (const a of r.attack) {
      expect(a.techniqueName).toBe('');
      expect(a.confidence).toBe(0.9);
      expect(a.evidenceRef).not.toBe('');
    }
    expect(r.killChain).toEqual([]);
  });

  it('names ids from the catalog and orders the kill chain by ATT&CK', () => {
    const text = 'They dumped credentials (T1003.001). Earlier, a lure (T1566.001) ran a script via T1059.001.';
    const r = run(text);
    expect(r.attack.map((a) => [a.subTechnique, a.techniqueName])).toEqual([
      ['T1003.001', 'OS Credential Dumping: LSASS Memory'],
      ['T1566.001', 'Phishing: Spearphishing Attachment'],
      ['T1059.001', 'Command and Scripting Interpreter: PowerShell'],
    ]);
    expect(r.killChain).toEqual(['initial-access', 'execution', 'credential-access']);
    expect(r.passages.map((p) => p.text)).toEqual([
      'They dumped credentials (T1003.001).',
      'Earlier, a lure (T1566.001) ran a script via T1059.001.',
    ]);
    expect(r.attack[1]?.evidenceRef).toBe(r.attack[2]?.evidenceRef);
  });

  it('lowers confidence for an id the catalog does not know', () => {
    const r = run('Uses T1999.');
    expect(r.attack).toEqual([{ technique: 'T1999', subTechnique: '', techniqueName: '', evidenceRef: expect.any(String), confidence: 0.75 }]);
  });

  it('uses given ids with their spans and ignores invalid spans', () => {
    const text = 'The sample abused PowerShell heavily.';
    const start = text.indexOf('PowerShell');
    const r = run(text, EMPTY_CATALOG, {
      techniqueIds: [
        { id: 't1059.001', spans: [{ start, end: start + 10 }] },
        { id: 'T1003', spans: [{ start: 5, end: 999 }] },
        { id: 'bogus', spans: [] },
      ],
    });
    expect(r.attack.map((a) => [ids({ ...r, attack: [a] })[0], a.confidence, a.evidenceRef !== ''])).toEqual([
      ['T1059.001', 0.9, true],
      ['T1003', 0.85, false],
    ]);
    expect(r.passages[0]?.text).toBe(text);
  });
});

describe('classifyText: technique names', () => {
  it.each<[string, string, string[], number[]]>([
    ['bare distinctive sub-technique', 'The macro launched PowerShell.', ['T1059.001'], [0.5]],
    ['Parent: Sub form', 'Mapped to Command and Scripting Interpreter: PowerShell here.', ['T1059.001'], [0.75]],
    ['3+ words, any case', 'They relied on os credential dumping tools.', ['T1003'], [0.5]],
    ['2 words with a distinctive word, any case', 'A spearphishing attachment arrived.', ['T1566.001'], [0.5]],
    ['2 plain words, Title Case only', 'Abuse of Valid Accounts, not valid accounts.', ['T1078'], [0.4]],
    ['2 plain words, lower case ignored', 'Only valid accounts were used.', [], []],
    ['generic 2-word phrase never', 'Network Devices were scanned.', [], []],
    ['non-distinctive single word never', 'A Tool was used.', [], []],
    ['ambiguous sub-technique name alone', 'A Local Account was created.', [], []],
    ['ambiguous name in its full form', 'Create Account: Local Account observed.', ['T1136.001'], [0.75]],
    ['id and name together get a bonus', 'PowerShell (T1059.001) was used.', ['T1059.001'], [0.95]],
  ])('%s', (_name, text, expectedIds, confidences) => {
    const r = run(text);
    expect(ids(r)).toEqual(expectedIds);
    expect(r.attack.map((a) => a.confidence)).toEqual(confidences);
  });

  it('does not match names with an empty catalog', () => {
    expect(run('PowerShell and OS Credential Dumping.', EMPTY_CATALOG).attack).toEqual([]);
  });

  it('anchors a tag-only technique to its sub-technique mention or its name in the text', () => {
    const text = 'Operators ran PowerShell. Later they used os credential dumping.';
    const r = run(text, CATALOG, { tags: ['attack:T1059', 'mitre-attack:T1003', 'attack:T1486'] });
    const byId = new Map(r.attack.map((a) => [a.subTechnique || a.technique, a]));
    const passageOf = (id: string) => r.passages.find((p) => p.ref === byId.get(id)?.evidenceRef)?.text;
    expect(passageOf('T1059')).toBe('Operators ran PowerShell.');
    expect(passageOf('T1003')).toBe('Later they used os credential dumping.');
    expect(byId.get('T1486')?.evidenceRef).toBe('');
    expect(byId.get('T1486')?.confidence).toBe(0.85);
  });

  it('title-only techniques have no passage but count for the kill chain', () => {
    const r = run('Nothing specific here.', CATALOG, { title: 'Phishing wave (T1566)' });
    expect(r.attack).toEqual([{ technique: 'T1566', subTechnique: '', techniqueName: 'Phishing', evidenceRef: '', confidence: 0.9 }]);
    expect(r.killChain).toEqual(['initial-access']);
  });
});

describe('classifyText: actors and malware', () => {
  it('matches names and aliases with catalog aliases', () => {
    const r = run('Fancy Bear (a.k.a. sofacy) deployed X-Agent and SPLM.');
    expect(r.actor).toEqual([{ name: 'APT28', confidence: 0.75, aliases: ['Fancy Bear', 'Sofacy', 'SNAKEMACKEREL', 'Tsar Team'] }]);
    expect(r.malware).toEqual([{ name: 'CHOPSTICK', confidence: 0.75, aliases: ['SPLM', 'X-Agent'] }]);
    expect(r.mappings).toEqual([
      { framework: 'mitre-attack', id: 'G0007', confidence: 0.75 },
      { framework: 'mitre-attack', id: 'S0023', confidence: 0.75 },
    ]);
  });

  it.each<[string, string, string[], string[]]>([
    ['short aliases are case-sensitive', 'splm and apt38 appear; APT38 too.', ['APT38'], []],
    ['ALL-CAPS aliases also in Capitalised form', 'Snakemackerel and snakemackerel.', ['APT28'], []],
    ['common words need a type noun', 'Silence fell. Royal blue.', [], []],
    ['common words with a type noun', 'The Silence group and Royal ransomware.', ['Silence'], ['Royal']],
    ['OS utilities are not malware', 'They ran certutil, net.exe and Net commands.', [], []],
    ['tools count, a bit lower', 'Mimikatz was dropped.', [], ['Mimikatz']],
    ['repeated mentions raise confidence', 'APT28. APT28 again. APT28 once more.', ['APT28'], []],
  ])('%s', (_name, text, actors, malware) => {
    const r = run(text);
    expect(r.actor.map((a) => a.name)).toEqual(actors);
    expect(r.malware.map((m) => m.name)).toEqual(malware);
  });

  it('confidence: canonical 0.85, three mentions +0.05, tools 0.1 lower', () => {
    expect(run('APT28. APT28 again. APT28 once more.').actor[0]?.confidence).toBe(0.9);
    expect(run('Seen: APT28.').actor[0]?.confidence).toBe(0.85);
    expect(run('Mimikatz was dropped.').malware[0]?.confidence).toBe(0.75);
  });

  it('reads actors and malware from tags, resolving names through the catalog', () => {
    const r = run('No names in the text.', CATALOG, {
      tags: ['misp-galaxy:threat-actor="Sofacy"', 'attack.s0023', 'misp-galaxy:threat-actor="Wizard Spider"', 'malware:Emotet'],
    });
    expect(r.actor).toEqual([
      { name: 'APT28', confidence: 0.9, aliases: ['Fancy Bear', 'Sofacy', 'SNAKEMACKEREL', 'Tsar Team'] },
      { name: 'Wizard Spider', confidence: 0.9, aliases: [] },
    ]);
    expect(r.malware.map((m) => m.name)).toEqual(['CHOPSTICK', 'Emotet']);
  });

  it('finds actors in the title', () => {
    expect(run('Details below.', CATALOG, { title: 'Fancy Bear returns' }).actor.map((a) => a.name)).toEqual(['APT28']);
  });
});

describe('classifyText: platforms and mappings', () => {
  it.each<[string, string[]]>([
    ['Targets Windows and Linux servers and macOS laptops.', ['Windows', 'Linux', 'macOS']],
    ['An Android app and an iPhone lure.', ['Android', 'iOS']],
    ['Cisco IOS XE routers were hit.', ['Network Devices']],
    ['Stolen AWS keys and Azure tenants; Kubernetes clusters too.', ['Cloud', 'Containers']],
    ['VMware ESXi hypervisors were encrypted.', ['ESXi']],
    ['The windows of the office were open.', []],
    ['It ran PowerShell.', ['Windows']],
    ['It used os credential dumping.', []],
  ])('%s', (text, platforms) => {
    expect(run(text).platforms).toEqual(platforms);
  });

  it('maps techniques and CVEs (normalised, deduplicated, validated)', () => {
    const r = run('Exploited via T1190.', EMPTY_CATALOG, { cves: ['cve-2024-3400', 'CVE-2024-3400', 'not-a-cve'] });
    expect(r.mappings).toEqual([
      { framework: 'mitre-attack', id: 'T1190', confidence: 0.9 },
      { framework: 'cve', id: 'CVE-2024-3400', confidence: 1 },
    ]);
  });

  it('returns empty results for empty input', () => {
    expect(run('', CATALOG)).toEqual({ attack: [], killChain: [], malware: [], actor: [], platforms: [], mappings: [], passages: [] });
  });
});
