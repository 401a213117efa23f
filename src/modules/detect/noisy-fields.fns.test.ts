import { describe, expect, it } from 'vitest';
import { compileSigma } from '../alerts/index.js';
import { noisyFields, selectionFields } from './noisy-fields.fns.js';

const unit = compileSigma(`title: Encoded PowerShell
logsource: { product: windows, category: process_creation }
detection:
  selection_img:
    - Image|endswith: '\\\\powershell.exe'
    - OriginalFileName: PowerShell.EXE
  selection_cli:
    CommandLine|contains|all: ['-nop', '-enc ']
  keywords:
    - 'IEX'
  filter:
    User: 'NT AUTHORITY\\\\SYSTEM'
  condition: all of selection_* and not filter
`);
const rule = unit.rules[0]!;
const ev = (image: string, cli: string, user = 'CORP\\alice') => ({ Image: image, OriginalFileName: 'PowerShell.EXE', CommandLine: cli, User: user });

describe('noisy fields', () => {
  it('a selection names its fields without modifiers; keywords name none', () => {
    expect(selectionFields(rule, 'selection_img')).toEqual(['Image', 'OriginalFileName']);
    expect(selectionFields(rule, 'selection_cli')).toEqual(['CommandLine']);
    expect(selectionFields(rule, 'keywords')).toEqual([]);
  });

  it('counts each field/value once per event, over the selections that matched, most frequent first', () => {
    const sample = [
      ev('C:\\ps\\powershell.exe', 'powershell -nop -enc AAA'),
      ev('C:\\ps\\powershell.exe', 'powershell -nop -enc BBB'),
      ev('D:\\tools\\powershell.exe', 'powershell -nop -enc AAA'),
    ].map((event) => ({ ruleTitle: 'Encoded PowerShell', event }));
    expect(noisyFields(unit, sample, 3)).toEqual([
      { field: 'OriginalFileName', value: 'PowerShell.EXE', matches: 3, selections: ['selection_img'] },
      { field: 'CommandLine', value: 'powershell -nop -enc AAA', matches: 2, selections: ['selection_cli'] },
      { field: 'Image', value: 'C:\\ps\\powershell.exe', matches: 2, selections: ['selection_img'] },
    ]);
    // The filter did not match these events: User is not counted.
    expect(noisyFields(unit, sample, 100).some((f) => f.field === 'User')).toBe(false);
  });
});
