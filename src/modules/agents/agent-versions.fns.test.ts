import { describe, expect, it } from 'vitest';
import { diffSnapshots, lineDiff } from './agent-versions.fns.js';

const base = { id: 'a', name: 'Triage', systemPrompt: 'Line one\nLine two\nLine three', modelAlias: 'default', toolNames: ['http_request'], maxSteps: 10, triggers: [] };

describe('diffSnapshots', () => {
  it('reports nothing for equal snapshots, whatever their key order', () => {
    expect(diffSnapshots(base, { ...base, toolNames: ['http_request'] })).toEqual([]);
    expect(diffSnapshots({ ...base, structuredOutputSchema: { a: 1, b: 2 } }, { ...base, structuredOutputSchema: { b: 2, a: 1 } })).toEqual([]);
  });

  it('gives scalars their two values and text a line diff', () => {
    const changes = diffSnapshots(base, { ...base, maxSteps: 4, systemPrompt: 'Line one\nLine 2\nLine three' });
    expect(changes).toEqual([
      {
        field: 'systemPrompt',
        before: base.systemPrompt,
        after: 'Line one\nLine 2\nLine three',
        lines: [
          { op: 'unchanged', text: 'Line one' },
          { op: 'removed', text: 'Line two' },
          { op: 'added', text: 'Line 2' },
          { op: 'unchanged', text: 'Line three' },
        ],
      },
      { field: 'maxSteps', before: 10, after: 4 },
    ]);
  });

  it('diffs structured fields as indented JSON and compares the first version with nothing', () => {
    const [tools] = diffSnapshots(base, { ...base, toolNames: ['http_request', 'search_intel_items'] });
    expect(tools!.lines!.filter((l) => l.op !== 'unchanged')).toEqual([
      { op: 'removed', text: '  "http_request"' },
      { op: 'added', text: '  "http_request",' },
      { op: 'added', text: '  "search_intel_items"' },
    ]);
    const first = diffSnapshots(null, base);
    // A snapshot written before a versioned field existed shows that field's default.
    expect(first.map((c) => c.field)).toEqual(['name', 'systemPrompt', 'modelAlias', 'toolNames', 'maxSteps', 'acceptanceCriteria', 'notifyCriteriaFailed', 'toolPolicies', 'approvalSettings', 'triggers']);
    expect(first[0]).toEqual({ field: 'name', before: null, after: 'Triage' });
  });

  it('keeps a text without a trailing newline whole', () => {
    expect(lineDiff('a', 'a\nb')).toEqual([
      { op: 'removed', text: 'a' },
      { op: 'added', text: 'a' },
      { op: 'added', text: 'b' },
    ]);
  });
});
