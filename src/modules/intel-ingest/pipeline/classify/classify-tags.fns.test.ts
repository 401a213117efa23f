import { describe, expect, it } from 'vitest';
import { signalsFromTags } from './classify-tags.fns.js';

describe('signalsFromTags', () => {
  it.each<[string, string[], Array<{ id: string | null; name: string | null; kind: string }>]>([
    ['attack:T1059', ['T1059'], []],
    ['mitre-attack:T1059.001', ['T1059.001'], []],
    ['attack.t1059.001', ['T1059.001'], []],
    ['attack.g0007', [], [{ id: 'G0007', name: null, kind: 'actor' }]],
    ['attack.s0023', [], [{ id: 'S0023', name: null, kind: 'malware' }]],
    ['misp-galaxy:mitre-attack-pattern="Spearphishing Attachment - T1566.001"', ['T1566.001'], []],
    ['misp-galaxy:mitre-intrusion-set="APT28 - G0007"', [], [{ id: 'G0007', name: 'APT28', kind: 'actor' }]],
    ['misp-galaxy:mitre-malware="CHOPSTICK - S0023"', [], [{ id: 'S0023', name: 'CHOPSTICK', kind: 'malware' }]],
    ['misp-galaxy:mitre-tool="Mimikatz - S0002"', [], [{ id: 'S0002', name: 'Mimikatz', kind: 'tool' }]],
    ['misp-galaxy:threat-actor="Sofacy"', [], [{ id: null, name: 'Sofacy', kind: 'actor' }]],
    ['threat-actor:Wizard Spider', [], [{ id: null, name: 'Wizard Spider', kind: 'actor' }]],
    ['misp-galaxy:malpedia="X-Agent"', [], [{ id: null, name: 'X-Agent', kind: 'malware' }]],
    ['misp-galaxy:ransomware="LockBit"', [], [{ id: null, name: 'LockBit', kind: 'malware' }]],
    ['misp-galaxy:rat="njRAT"', [], [{ id: null, name: 'njRAT', kind: 'malware' }]],
    ['malware:Emotet', [], [{ id: null, name: 'Emotet', kind: 'malware' }]],
    ['tlp:white', [], []],
    ['type:OSINT', [], []],
    ['misp-galaxy:sector="Government"', [], []],
    ['attack:TA0001', [], []],
    ['', [], []],
  ])('%s', (tag, techniques, named) => {
    const s = signalsFromTags([tag]);
    expect(s.techniques.map((t) => t.id)).toEqual(techniques);
    expect(s.named.map(({ id, name, kind }) => ({ id, name, kind }))).toEqual(named);
  });

  it('keeps the tag each signal came from', () => {
    const s = signalsFromTags(['attack:T1003', 'misp-galaxy:threat-actor="APT28"']);
    expect(s.techniques[0]?.tag).toBe('attack:T1003');
    expect(s.named[0]?.tag).toBe('misp-galaxy:threat-actor="APT28"');
  });
});
