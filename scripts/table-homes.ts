import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './import-graph.js';
import { ownedTablesOf, PLATFORM_TABLES } from './table-owners.js';

/**
 * Where a table's type and a migration live, checked by test/platform/structure.test.ts in `npm test`
 * (issue 42 item 2):
 * - A table's row type is declared by its owner: a module's in `src/modules/<m>/<m>.tables.ts`,
 *   merged into platform's `DB` (`declare module '…/platform/db/schema.js' { interface DB {…} }`);
 *   platform's own tables (PLATFORM_TABLES) in `src/platform/db/schema.ts`. An interface named
 *   `…Table` anywhere else is a table type out of its home.
 * - A migration (`NNNN_what.ts`) sits in platform's `src/platform/db/migrations/` or in a module's
 *   `src/modules/<m>/migrations/`, and every one there is given to the migrator (listed by its
 *   folder's index.ts, which the module's manifest passes as `migrations`).
 */
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const MIGRATION_FILE = /^\d{4}_.+\.ts$/;
const PLATFORM_SCHEMA = path.join('platform', 'db', 'schema.ts');
const PLATFORM_MIGRATIONS = path.join('platform', 'db', 'migrations');

/** Table owner by snake_case name: every module's `ownedTables`, and platform's. */
function owners(srcDir: string): Map<string, string> {
  const owner = new Map<string, string>(Object.keys(PLATFORM_TABLES).map((t) => [t, 'platform']));
  const modulesDir = path.join(srcDir, 'modules');
  for (const m of fs.readdirSync(modulesDir)) for (const t of ownedTablesOf(path.join(modulesDir, m, 'index.ts'))) owner.set(t, m);
  return owner;
}

/** The file a table's type must be declared in, relative to srcDir. */
const homeOf = (owner: string) => (owner === 'platform' ? PLATFORM_SCHEMA : path.join('modules', owner, `${owner}.tables.ts`));

export function analyzeTableTypes(srcDir: string): string[] {
  const owner = owners(srcDir);
  const problems: string[] = [];
  for (const file of sourceFiles(srcDir)) {
    const rel = path.relative(srcDir, file);
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isInterfaceDeclaration(node)) {
        const name = node.name.text;
        if (name === 'DB') {
          for (const member of node.members) {
            if (!member.name || !(ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))) continue;
            const table = snake(member.name.text);
            const tableOwner = owner.get(table);
            if (!tableOwner) problems.push(`src/${rel}: DB.${member.name.text} names ${table}, which no module owns (add it to a module's ownedTables)`);
            else if (rel !== homeOf(tableOwner)) problems.push(`src/${rel}: declares the type of ${table} (owned by ${tableOwner}): it belongs in src/${homeOf(tableOwner)}`);
          }
        } else if (/Table$/.test(name) && !rel.endsWith('.tables.ts') && rel !== PLATFORM_SCHEMA) {
          problems.push(`src/${rel}: interface ${name} is a table type outside a .tables.ts (its owner's <module>.tables.ts, or platform/db/schema.ts)`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return problems.sort();
}

/** `given`: the names the migrator is given (src/migrations.ts `migrations`). */
export function analyzeMigrationHomes(srcDir: string, given: readonly string[]): string[] {
  const problems: string[] = [];
  const onDisk = new Set<string>();
  for (const file of sourceFiles(srcDir)) {
    const rel = path.relative(srcDir, file);
    if (!MIGRATION_FILE.test(path.basename(rel))) continue;
    const dir = path.dirname(rel);
    const inHome = dir === PLATFORM_MIGRATIONS || /^modules[\\/][^\\/]+[\\/]migrations$/.test(dir);
    if (!inHome) problems.push(`src/${rel}: a migration outside platform/db/migrations/ and every module's migrations/`);
    else onDisk.add(path.basename(rel, '.ts'));
  }
  const givenSet = new Set(given);
  for (const name of [...onDisk].sort()) if (!givenSet.has(name)) problems.push(`${name} is never run: not in its folder's migrations/index.ts, or its module's manifest has no \`migrations\``);
  for (const name of given) if (!onDisk.has(name)) problems.push(`${name} is run but has no file in a migrations folder`);
  return problems;
}

// `npx tsx scripts/table-homes.ts` prints the table-type report.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const problems = analyzeTableTypes(path.resolve('src'));
  for (const p of problems) console.log(p);
  console.log(`table types out of their home: ${problems.length}`);
  process.exit(problems.length === 0 ? 0 : 1);
}
