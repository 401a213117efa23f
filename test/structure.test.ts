import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeImports } from '../scripts/import-graph.js';
import { analyzeTables } from '../scripts/table-owners.js';
import { findIndicatorNormalisers } from '../scripts/indicator-normalisers.js';

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

  it('has one owner per table, and no module’s SQL naming another module’s table', () => {
    const report = analyzeTables(path.resolve('src'));
    expect(report.ownership).toEqual([]);
    expect(report.crossOwner).toEqual([]);
  });

  it('reports Kysely calls and raw SQL that name another module’s table, in camelCase and snake_case', () => {
    const t = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-tables-'));
    try {
      const put = (rel: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(t, rel)), { recursive: true });
        fs.writeFileSync(path.join(t, rel), text);
      };
      put('src/platform/db/migrations/0001.ts', 'sql`CREATE TABLE widget_parts (id uuid)`; sql`CREATE TABLE gadgets (id uuid)`; sql`CREATE TABLE orphans (id uuid)`;\n');
      put('src/modules/widgets/index.ts', "export const ownedTables = ['widget_parts'] as const;\n");
      put('src/modules/widgets/widgets.repo.ts', "export const own = (db: any) => db.selectFrom('widgetParts').selectAll();\n");
      put('src/modules/gadgets/index.ts', "export const ownedTables = ['gadgets'] as const;\n");
      put(
        'src/modules/gadgets/gadgets.repo.ts',
        [
          "// A comment saying select from widget_parts is no SQL.",
          "export const a = (db: any) => db.selectFrom('gadgets as g').innerJoin('widgetParts as w', 'w.id', 'g.id');",
          "export const b = (db: any) => db.updateTable('widgetParts').set({});",
          'export const c = (db: any, id: string) => sql`DELETE FROM widget_parts WHERE id = ${id}`.execute(db);',
          'export const d = (db: any) => sql<{ n: number }>`SELECT count(*) AS n FROM gadgets g JOIN widget_parts w ON w.id = g.id`.execute(db);',
        ].join('\n'),
      );
      const report = analyzeTables(path.join(t, 'src'), { reads: [], pendingWrites: [] });
      expect(report.ownership).toEqual(["orphans has no owner (add it to a module's ownedTables)"]);
      expect(report.crossOwner).toEqual([
        'src/modules/gadgets/gadgets.repo.ts: reads widget_parts (owned by widgets)',
        'src/modules/gadgets/gadgets.repo.ts: writes widget_parts (owned by widgets)',
      ]);
      // A read exception lets the reads through, never the writes; one nothing needs is reported.
      const excepted = analyzeTables(path.join(t, 'src'), {
        reads: [{ module: 'gadgets', tables: ['widget_parts'], reason: 'test' }, { module: 'widgets', tables: ['gadgets'], reason: 'test' }],
        pendingWrites: [],
      });
      expect(excepted.crossOwner).toEqual(['src/modules/gadgets/gadgets.repo.ts: writes widget_parts (owned by widgets)']);
      expect(excepted.ownership).toContain('stale read exception: widgets no longer reads gadgets');
      // Two modules claiming one table.
      put('src/modules/spares/index.ts', "export const ownedTables = ['gadgets'] as const;\n");
      expect(analyzeTables(path.join(t, 'src'), { reads: [], pendingWrites: [] }).ownership).toContain('gadgets is claimed by gadgets and spares');
      // A manifest that writes its tables in `owns` (no ownedTables constant) claims them too.
      put('src/modules/spares/index.ts', "export const sparesModule = defineModule({ name: 'spares', owns: ['widget_parts'] });\n");
      expect(analyzeTables(path.join(t, 'src'), { reads: [], pendingWrites: [] }).ownership).toContainEqual(expect.stringMatching(/^widget_parts is claimed by (spares and widgets|widgets and spares)$/));
    } finally {
      fs.rmSync(t, { recursive: true, force: true });
    }
  });
});

/** Issue 42 item 5: one indicator normaliser (scripts/indicator-normalisers.ts). */
describe('one indicator normaliser', () => {
  it('has no function normalising indicator values outside intel\'s normalize-indicator.fns.ts', () => {
    expect(findIndicatorNormalisers(path.resolve('src'))).toEqual([]);
  });

  it('reports functions and arrow functions named like one, and leaves variables holding a normalised value alone', () => {
    const t = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-normalisers-'));
    try {
      const put = (rel: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(t, rel)), { recursive: true });
        fs.writeFileSync(path.join(t, rel), text);
      };
      put('src/modules/intel/normalize-indicator.fns.ts', 'export function normalizeIndicator(type: string, v: string) { return v; }\n');
      put('src/modules/hunt/assets.service.ts', 'export function normalizeValue(type: string, v: string): string {\n  return v;\n}\n');
      put('src/modules/tools/x.fns.ts', 'const n = 1;\nexport const normalizeIocValue = (v: string) => v.trim();\nexport const normaliseIndicators = async function (v: string[]) { return v; };\n');
      put('src/modules/intel/ok.ts', 'const normalizedValue = row.normalizedValue.slice(0, 10);\nexport function normalizeHost(h: string) { return h; }\n');
      put('src/modules/intel/ok.test.ts', 'function normalizeValue(v: string) { return v; }\n');
      expect(findIndicatorNormalisers(path.join(t, 'src'))).toEqual([
        'src/modules/hunt/assets.service.ts:1 normalizeValue',
        'src/modules/tools/x.fns.ts:2 normalizeIocValue',
        'src/modules/tools/x.fns.ts:3 normaliseIndicators',
      ]);
    } finally {
      fs.rmSync(t, { recursive: true, force: true });
    }
  });
});
