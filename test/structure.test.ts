import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeImports } from '../scripts/import-graph.js';

/** The import rules of scripts/import-graph.ts, on the real tree and on a tree built to break them. */
describe('module structure', () => {
  it('has no import circle and no import into another module’s internals', () => {
    const report = analyzeImports(path.resolve('src'));
    expect(report.circles).toEqual([]);
    expect(report.intoInternals).toEqual([]);
  });

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-structure-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(tmp, rel)), { recursive: true });
    fs.writeFileSync(path.join(tmp, rel), text);
  };

  it('reports a circle, type-only imports included', () => {
    write('src/platform/a.ts', "import type { B } from './b.js';\nexport type A = B;\n");
    write('src/platform/b.ts', "import type { A } from './a.js';\nexport type B = { a?: A };\n");
    const report = analyzeImports(path.join(tmp, 'src'));
    expect(report.circles).toEqual([['src/platform/a.ts', 'src/platform/b.ts']]);
  });

  it('reports an import into another module’s internals, and allows its index.ts', () => {
    write('src/modules/alpha/index.ts', "export { x } from './alpha.service.js';\n");
    write('src/modules/alpha/alpha.service.ts', 'export const x = 1;\n');
    write('src/modules/beta/index.ts', "import { x } from '../alpha/index.js';\nimport { x as y } from '../alpha/alpha.service.js';\nexport const z = x + y;\n");
    const report = analyzeImports(path.join(tmp, 'src'));
    expect(report.intoInternals).toEqual(['src/modules/beta/index.ts -> src/modules/alpha/alpha.service.ts']);
  });
});
