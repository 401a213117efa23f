import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The import rules of the code base, checked by test/platform/structure.test.ts in `npm test`:
 * - no import circle among the files of `src/` (type-only imports count: a circle of types is
 *   still a tangle a reader has to hold in their head);
 * - a module (`src/modules/<name>/`) reaches another only through that module's `index.ts`.
 *   `src/composition.ts` (the composition root) and the flows (`src/flows/`) are treated like any
 *   other outsider: they too may only import a module's `index.ts`;
 * - the layers point down: `platform/` imports nothing above it (modules, flows, the root), a
 *   flow imports modules' front doors, platform and other flows, never the root (src/config.ts,
 *   the configuration's type, is below them all).
 * A module may call a flow (triggers fire through flows/trigger-firing.flow.ts), but never one
 * that imports it back: that is a circle.
 */
export interface ImportReport {
  circles: string[][];
  intoInternals: string[];
  /** An import against the layers: platform/ importing above it, a flow importing the composition root. */
  upward: string[];
}

/** The `.ts` source files under `dir` (no tests, no declarations); table-owners.ts reads the same set. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(p));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null; // packages are not part of the graph
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** `src/modules/<name>/…` → `<name>`; the composition file and non-module files → null. */
function moduleOf(modulesDir: string, file: string): string | null {
  const rel = path.relative(modulesDir, file);
  if (rel.startsWith('..')) return null;
  const parts = rel.split(path.sep);
  return parts.length > 1 ? parts[0]! : null;
}

export function analyzeImports(srcDir: string): ImportReport {
  const modulesDir = path.join(srcDir, 'modules');
  const graph = new Map<string, string[]>();
  const intoInternals: string[] = [];
  const upward: string[] = [];
  const rel = (f: string) => path.relative(path.dirname(srcDir), f);
  const under = (dir: string, f: string) => !path.relative(path.join(srcDir, dir), f).startsWith('..');

  for (const file of sourceFiles(srcDir)) {
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const deps: string[] = [];
    for (const imported of info.importedFiles) {
      const target = resolveImport(file, imported.fileName);
      if (!target) continue;
      deps.push(target);
      // src/config.ts (the configuration's type and loader) sits below every layer.
      const below = target === path.join(srcDir, 'config.ts');
      if (below) {
        /* allowed from anywhere */
      } else if (under('platform', file) && !under('platform', target)) upward.push(`${rel(file)} -> ${rel(target)}`);
      else if (under('flows', file) && !under('flows', target) && !under('modules', target) && !under('platform', target)) upward.push(`${rel(file)} -> ${rel(target)}`);
      const targetModule = moduleOf(modulesDir, target);
      if (!targetModule || targetModule === moduleOf(modulesDir, file)) continue;
      if (target !== path.join(modulesDir, targetModule, 'index.ts')) intoInternals.push(`${rel(file)} -> ${rel(target)}`);
    }
    graph.set(file, deps);
  }
  return { circles: stronglyConnected(graph).map((c) => c.map(rel).sort()), intoInternals, upward };
}

/** Tarjan's strongly connected components with more than one file (or a file importing itself). */
function stronglyConnected(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

// `npx tsx scripts/import-graph.ts` prints the report and fails like the test does.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const report = analyzeImports(path.resolve('src'));
  for (const c of report.circles) console.log(`circle: ${c.join(', ')}`);
  for (const i of report.intoInternals) console.log(`into internals: ${i}`);
  for (const u of report.upward) console.log(`against the layers: ${u}`);
  console.log(`circles ${report.circles.length}, imports into other modules' internals ${report.intoInternals.length}, against the layers ${report.upward.length}`);
  process.exit(report.circles.length + report.intoInternals.length + report.upward.length === 0 ? 0 : 1);
}
