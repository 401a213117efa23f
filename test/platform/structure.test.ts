import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeImports } from '../../scripts/import-graph.js';
import { analyzeTables } from '../../scripts/table-owners.js';
import { createServiceRegistry, MODULES, serviceOrder } from '../../src/composition.js';
import { defineModule, type ModuleManifest, type ServiceDeps } from '../../src/platform/module.js';
import { findIndicatorNormalisers } from '../../scripts/indicator-normalisers.js';
import { analyzeMigrationHomes, analyzeTableTypes } from '../../scripts/table-homes.js';
import { migrations } from '../../src/migrations.js';
import { collectMigrations } from '../../src/platform/db/migrate.js';

/** The import rules of scripts/import-graph.ts, on the real tree and on a tree built to break them. */
describe('module structure', () => {
  it('has no import circle and no import into another module’s internals', () => {
    const report = analyzeImports(path.resolve('src'));
    expect(report.circles).toEqual([]);
    expect(report.intoInternals).toEqual([]);
    expect(report.upward).toEqual([]);
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

  it('lets a flow import modules’ front doors only, and keeps platform/ below modules and flows', () => {
    const t = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-flows-'));
    try {
      const put = (rel: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(t, rel)), { recursive: true });
        fs.writeFileSync(path.join(t, rel), text);
      };
      put('src/modules/alpha/index.ts', "export { x } from './alpha.repo.js';\n");
      put('src/modules/alpha/alpha.repo.ts', 'export const x = 1;\n');
      put('src/composition.ts', 'export const root = 1;\n');
      put('src/flows/good.flow.ts', "import { x } from '../modules/alpha/index.js';\nexport const good = x;\n");
      put('src/flows/bad.flow.ts', "import { x } from '../modules/alpha/alpha.repo.js';\nimport { root } from '../composition.js';\nexport const bad = x + root;\n");
      put('src/platform/low.ts', "import { good } from '../flows/good.flow.js';\nexport const low = good;\n");
      const report = analyzeImports(path.join(t, 'src'));
      expect(report.intoInternals).toEqual(['src/flows/bad.flow.ts -> src/modules/alpha/alpha.repo.ts']);
      expect(report.upward).toEqual(['src/flows/bad.flow.ts -> src/composition.ts', 'src/platform/low.ts -> src/flows/good.flow.ts']);
      // A module calling a flow that reaches back into it is a circle.
      put('src/modules/alpha/alpha.repo.ts', "import { good } from '../../flows/good.flow.js';\nexport const x = 1;\nexport const y = good;\n");
      expect(analyzeImports(path.join(t, 'src')).circles).toEqual([['src/flows/good.flow.ts', 'src/modules/alpha/alpha.repo.ts', 'src/modules/alpha/index.ts']]);
    } finally {
      fs.rmSync(t, { recursive: true, force: true });
    }
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

  it('builds services from needs: a module naming another module’s manifest lists it in needs, and the list order plays no part', () => {
    // A manifest another module's index.ts imports is one it uses (services.of, states.of): it must be needed.
    const byName = new Map(MODULES.map((m) => [m.name, m]));
    const unlisted: string[] = [];
    for (const m of MODULES) {
      const index = fs.readFileSync(path.resolve('src/modules', m.name, 'index.ts'), 'utf8');
      for (const [, names, from] of index.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'\.\.\/([^/']+)\/index\.js'/g)) {
        for (const name of names!.split(',').map((n) => n.trim().replace(/^type\s+/, ''))) {
          if (!/Module$/.test(name)) continue;
          const needed = byName.get(from!);
          if (!needed || !(m.needs ?? []).includes(needed)) unlisted.push(`${m.name} uses ${name} without listing it in needs`);
        }
      }
    }
    expect(unlisted).toEqual([]);
    // Every module comes after what it needs, whatever order src/composition.ts lists them in.
    for (const listed of [MODULES, [...MODULES].reverse()]) {
      const order = serviceOrder(listed);
      expect(new Set(order)).toEqual(new Set(MODULES));
      for (const m of order) for (const n of m.needs ?? []) expect(order.indexOf(n)).toBeLessThan(order.indexOf(m));
    }
    // config needs the modules whose commands its kinds write through.
    expect(MODULES.find((m) => m.name === 'config')!.needs!.map((m) => m.name).sort()).toEqual(['agents', 'alerts', 'destinations', 'models', 'tools', 'triggers']);
  });

  it('fails at start on a circle of needs or a need the composition root does not list, and refuses services not needed', () => {
    const built: string[] = [];
    const make = (name: string, needs: Array<ModuleManifest<any, any>> = []) =>
      defineModule({
        name,
        owns: [],
        needs,
        services: (_deps, needed) => {
          const from = needs.map((n) => needed.of(n));
          built.push(name);
          return { name, from };
        },
      });
    const c = make('c');
    const b = make('b', [c]);
    const a = make('a', [b, c]);
    // Listed in the wrong order: built c, b, a all the same, each once.
    const registry = createServiceRegistry({} as ServiceDeps, new Map(), [a, b, c]);
    registry.buildAll();
    expect(built).toEqual(['c', 'b', 'a']);
    expect(registry.of(a)).toEqual({ name: 'a', from: [{ name: 'b', from: [{ name: 'c', from: [] }] }, { name: 'c', from: [] }] });
    expect(registry.forModule(a).own).toBe(registry.of(a));
    expect(built).toEqual(['c', 'b', 'a']);
    // b did not list a: its routes and jobs may not reach a's services.
    expect(() => registry.forModule(b).of(a)).toThrow('module "b" uses the services of "a" without listing it in its manifest\'s needs');
    expect(() => serviceOrder([a, b])).toThrow('module "b" needs "c", which src/composition.ts does not list');
    const x: ModuleManifest<any, any> = defineModule({ name: 'x', owns: [], needs: [] });
    const y = defineModule({ name: 'y', owns: [], needs: [x] });
    const z = defineModule({ name: 'z', owns: [], needs: [y] });
    (x.needs as Array<ModuleManifest<any, any>>).push(z);
    expect(() => serviceOrder([x, y, z])).toThrow("The modules' needs form a circle: x → z → y → x");
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

/** Issue 42 item 2: tables and migrations live with their owner (scripts/table-homes.ts). */
describe('tables and migrations with their owner', () => {
  const put = (root: string, rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };

  it('declares every table type in its owner’s .tables.ts (platform’s in platform/db/schema.ts)', () => {
    expect(analyzeTableTypes(path.resolve('src'))).toEqual([]);
  });

  it('reports a table type declared by another module, outside a .tables.ts, or of a table nobody owns', () => {
    const t = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-table-types-'));
    try {
      put(t, 'src/platform/db/schema.ts', 'export interface AuditLogsTable { id: string }\nexport interface DB { auditLogs: AuditLogsTable; widgetParts: unknown }\n');
      put(t, 'src/modules/widgets/index.ts', "export const ownedTables = ['widget_parts'] as const;\n");
      put(t, 'src/modules/widgets/widgets.tables.ts', "export interface WidgetPartsTable { id: string }\ndeclare module '../../platform/db/schema.js' { interface DB { widgetParts: WidgetPartsTable } }\n");
      put(t, 'src/modules/gadgets/index.ts', "export const ownedTables = ['gadgets'] as const;\n");
      put(t, 'src/modules/gadgets/gadgets.tables.ts', "declare module '../../platform/db/schema.js' { interface DB { gadgets: {}; widgetParts: {}; orphans: {} } }\n");
      put(t, 'src/modules/gadgets/gadgets.repo.ts', 'export interface GadgetsTable { id: string }\n');
      expect(analyzeTableTypes(path.join(t, 'src'))).toEqual([
        'src/modules/gadgets/gadgets.repo.ts: interface GadgetsTable is a table type outside a .tables.ts (its owner\'s <module>.tables.ts, or platform/db/schema.ts)',
        "src/modules/gadgets/gadgets.tables.ts: DB.orphans names orphans, which no module owns (add it to a module's ownedTables)",
        'src/modules/gadgets/gadgets.tables.ts: declares the type of widget_parts (owned by widgets): it belongs in src/modules/widgets/widgets.tables.ts',
        'src/platform/db/schema.ts: declares the type of widget_parts (owned by widgets): it belongs in src/modules/widgets/widgets.tables.ts',
      ]);
    } finally {
      fs.rmSync(t, { recursive: true, force: true });
    }
  });

  it('keeps every migration in platform’s or a module’s migrations folder, and runs every one there', () => {
    expect(analyzeMigrationHomes(path.resolve('src'), Object.keys(migrations))).toEqual([]);
    // Each module's migrations are its manifest's: what src/migrations.ts collects is exactly the files.
    for (const m of MODULES) {
      const dir = path.resolve('src/modules', m.name, 'migrations');
      const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^\d{4}_/.test(f)).map((f) => f.replace(/\.ts$/, '')).sort() : [];
      expect(Object.keys(m.migrations ?? {}).sort(), m.name).toEqual(files);
    }
  });

  it('reports a migration out of its home, one never run, and one run without a file', () => {
    const t = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-migration-homes-'));
    try {
      put(t, 'src/platform/db/migrations/0001_platform.ts', 'export async function up() {}\n');
      put(t, 'src/modules/widgets/migrations/0002_widgets.ts', 'export async function up() {}\n');
      put(t, 'src/modules/widgets/migrations/0003_forgotten.ts', 'export async function up() {}\n');
      put(t, 'src/modules/widgets/0004_stray.ts', 'export async function up() {}\n');
      expect(analyzeMigrationHomes(path.join(t, 'src'), ['0001_platform', '0002_widgets', '0005_ghost'])).toEqual([
        "src/modules/widgets/0004_stray.ts: a migration outside platform/db/migrations/ and every module's migrations/",
        "0003_forgotten is never run: not in its folder's migrations/index.ts, or its module's manifest has no `migrations`",
        '0005_ghost is run but has no file in a migrations folder',
      ]);
    } finally {
      fs.rmSync(t, { recursive: true, force: true });
    }
  });

  it('collects them in one global order, and refuses a number used twice or a name without one', () => {
    const up = async () => {};
    const collected = collectMigrations([
      { owner: 'platform', migrations: { '0001_platform': { up }, '0142_fair_share': { up } } },
      { owner: 'module b', migrations: { '0013_hunt': { up } } },
    ]);
    expect(Object.keys(collected)).toEqual(['0001_platform', '0013_hunt', '0142_fair_share']);
    expect(Object.keys(migrations)).toEqual([...Object.keys(migrations)].sort());
    expect(() => collectMigrations([{ owner: 'module hunt', migrations: { '0140_hunt_x': { up } } }, { owner: 'module detect', migrations: { '0140_detect_event_matching': { up } } }])).toThrow(
      'Migration number 0140 is used twice: 0140_hunt_x (module hunt) and 0140_detect_event_matching (module detect); give the one not yet shipped the next free number',
    );
    expect(() => collectMigrations([{ owner: 'module x', migrations: { 'add_things': { up } } }])).toThrow('Migration "add_things" of module x is not named NNNN_what');
  });
});
