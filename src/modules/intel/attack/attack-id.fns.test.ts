import { describe, expect, it } from 'vitest';
import { classificationSummary, techniqueIdOf, techniqueIdsOf } from './attack-id.fns.js';

describe('techniqueIdOf', () => {
  it('answers the sub-technique’s full id, else the technique’s', () => {
    expect(techniqueIdOf({ technique: 'T1059', subTechnique: 'T1059.001' })).toBe('T1059.001');
    expect(techniqueIdOf({ technique: 'T1059', subTechnique: '' })).toBe('T1059');
    expect(techniqueIdOf({ technique: 'T1059' })).toBe('T1059');
  });
  it('completes a sub-technique given as its suffix alone', () => {
    expect(techniqueIdOf({ technique: 'T1059', subTechnique: '001' })).toBe('T1059.001');
  });
  it('answers empty for an entry with neither', () => {
    expect(techniqueIdOf({})).toBe('');
    expect(techniqueIdsOf([{}, { technique: 'T1566' }, { technique: 'T1059', subTechnique: 'T1059.001' }, { technique: 'T1566' }])).toEqual(['T1059.001', 'T1566']);
  });
});

describe('classificationSummary', () => {
  it('reads names and techniques, and survives any shape', () => {
    expect(classificationSummary({ malware: [{ name: 'Emotet' }], actor: [{ name: 'TA542' }, {}], attack: [{ technique: 'T1566', subTechnique: 'T1566.001', techniqueName: 'Spearphishing Attachment' }] })).toEqual({
      malware: ['Emotet'],
      actors: ['TA542'],
      techniques: [{ id: 'T1566.001', name: 'Spearphishing Attachment' }],
    });
    expect(classificationSummary(null)).toEqual({ malware: [], actors: [], techniques: [] });
    expect(classificationSummary({ attack: 'nope', malware: [1] })).toEqual({ malware: [], actors: [], techniques: [] });
  });
});
