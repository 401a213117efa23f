import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parseAllDocuments } from 'yaml';
import { sigmaRules, type SigmaInput } from './sigma.fns.js';

const schema = JSON.parse(readFileSync(new URL('./sigma-rule.schema.json', import.meta.url), 'utf8')) as object;
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
const validate = ajv.compile(schema);

const base: SigmaInput = {
  ruleId: '0193f0a4-7c1e-8a2b-9c3d-4e5f60718293',
  title: 'LummaC2 phishing wave',
  description: 'Infostealer delivered by fake CAPTCHA pages',
  reference: 'https://example.org/report',
  date: '2026-11-20',
  techniques: ['T1547.001', 'T1204'],
  indicators: {
    ipv4: ['203.0.113.7'],
    domain: ['c2.example-bad.net'],
    url: ['https://c2.example-bad.net/gate.php'],
    sha256: ['a'.repeat(64)],
    filename: ['lumma.exe'],
    'registry-key': ['HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Run\\LummaUpd'],
  },
  platforms: ['Windows'],
  severity: 'high',
};

type Rule = { title: string; level: string; logsource: Record<string, string>; detection: Record<string, Record<string, string[]>> };
const rules = (input: SigmaInput): Rule[] => parseAllDocuments(sigmaRules(input)).map((d) => d.toJS() as Rule);
const ruleFor = (input: SigmaInput, category: string) => rules(input).find((r) => r.logsource.category === category)!;

describe('sigmaRules', () => {
  it('every generated rule satisfies the Sigma rule schema', () => {
    for (const input of [base, { ...base, platforms: ['Linux', 'Network Devices'], severity: 'none' }, { ...base, reference: null, techniques: [] }]) {
      const docs = rules(input);
      expect(docs).toHaveLength(6);
      for (const doc of docs) expect(validate(doc) ? [] : validate.errors, doc.title).toEqual([]);
    }
  });

  it('the schema refuses what the specification refuses', () => {
    const good = rules(base)[0]!;
    expect(validate({ ...good, level: 'severe' })).toBe(false);
    expect(validate({ ...good, date: '2026/11/20' })).toBe(false);
    expect(validate({ ...good, detection: { selection: { dst_ip: ['1.2.3.4'] } } })).toBe(false); // no condition
    expect(validate({ ...good, logsource: {} })).toBe(false);
    expect(validate({ ...good, tags: ['T1547'] })).toBe(false);
  });

  it('level follows the item severity', () => {
    expect(rules(base).map((r) => r.level)).toEqual(Array(6).fill('high'));
    expect(ruleFor({ ...base, severity: 'critical' }, 'dns').level).toBe('critical');
    expect(ruleFor({ ...base, severity: 'low' }, 'dns').level).toBe('low');
    expect(ruleFor({ ...base, severity: 'none' }, 'dns').level).toBe('informational');
  });

  it('endpoint rules take their product from the item platforms, or leave it out', () => {
    const linux = { ...base, platforms: ['Linux', 'Network Devices'] };
    expect(ruleFor(linux, 'process_creation').logsource).toEqual({ category: 'process_creation', product: 'linux' });
    expect(ruleFor(linux, 'file_event').logsource).toEqual({ category: 'file_event', product: 'linux' });
    expect(ruleFor(base, 'process_creation').logsource).toEqual({ category: 'process_creation', product: 'windows' });
    expect(ruleFor({ ...base, platforms: ['Windows', 'macOS'] }, 'process_creation').logsource).toEqual({ category: 'process_creation' });
    expect(ruleFor({ ...base, platforms: [] }, 'file_event').logsource).toEqual({ category: 'file_event' });
    // registry keys exist only on Windows; network logs name no product
    expect(ruleFor(linux, 'registry_event').logsource).toEqual({ category: 'registry_event', product: 'windows' });
    expect(ruleFor(linux, 'firewall').logsource).toEqual({ category: 'firewall' });
  });

  it('registry rules keep the key as written, one entry per case-insensitive spelling', () => {
    const input = { ...base, indicators: { 'registry-key': [...base.indicators['registry-key']!, 'HKEY_CURRENT_USER\\software\\microsoft\\windows\\currentversion\\run\\lummaupd'] } };
    expect(ruleFor(input, 'registry_event').detection.selection).toEqual({
      'TargetObject|contains': ['HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Run\\LummaUpd'],
    });
  });
});
