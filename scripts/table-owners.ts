import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './import-graph.js';

/**
 * The table rule of the code base, checked by test/platform/structure.test.ts in `npm test`: every table
 * has one owner, and only its owner's SQL names it.
 * - A module declares the tables it owns in its `index.ts`: `export const ownedTables = [...] as const`,
 *   which its manifest's `owns` names (or `owns: [...]` written in the manifest).
 * - Tables below every module (PLATFORM_TABLES) are written by platform/ and may be read by any module.
 * - Every table a migration creates has exactly one owner (a module or the platform).
 * - A module's Kysely calls (`selectFrom`, `insertInto`, `updateTable`, `deleteFrom`, `mergeInto`,
 *   joins) and raw SQL (`sql` templates: FROM, JOIN, INSERT INTO, UPDATE, DELETE FROM) name only
 *   its own tables and the platform's; another module's data is read through the owner's readers
 *   or changed through its commands, exported by the owner's `index.ts`.
 * - READ_EXCEPTIONS lists the reads that still cross an owner, each with its reason; a write
 *   across owners is never excepted.
 * Kysely names tables in camelCase (CamelCasePlugin), SQL in snake_case; both are compared in snake_case.
 */
export interface TableReport {
  /** `file: reads|writes table (owned by m)` */
  crossOwner: string[];
  /** Tables a migration creates that no module or platform list owns, or that two claim. */
  ownership: string[];
}

/** Tables written by platform/ (audit trail, worker bookkeeping) and the tenancy every row hangs off. */
export const PLATFORM_TABLES: Record<string, string> = {
  audit_logs: 'written by platform/audit.ts in the writer’s transaction; the audit-logs module lists it',
  worker_heartbeats: 'platform/jobs: the worker runner’s heartbeats',
  job_failures: 'platform/jobs: jobs that failed for good, read by the run sweep',
  reference_data_seeds: 'platform/db/reference-seeds.ts: the fingerprint of each reference-data seed last applied',
};

/**
 * Reads that cross an owner, kept on purpose (one SQL statement joining or aggregating another
 * module's rows where a reader would mean N queries or shipping every id across). Each is
 * read-only; the owner stays free to change its writes, and a column rename shows up here.
 */
export const READ_EXCEPTIONS: Array<{ module: string; tables: string[]; reason: string }> = [
  {
    module: 'delivery',
    tables: ['alerts', 'output_destinations'],
    reason: 'finds the alert.created deliveries a crash lost (alerts × subscribed destinations without a delivery) in one set-based query; read-only',
  },
  {
    module: 'insights',
    tables: ['alerts', 'agents', 'agent_runs', 'destination_deliveries', 'output_destinations', 'intel_items', 'intel_indicators', 'intel_sources', 'hunt_threats', 'tool_approvals'],
    reason: 'read-only aggregates over many modules in one query each (GET /api/insights); it writes nothing and no module calls it',
  },
  {
    module: 'audit-logs',
    tables: ['users', 'agents', 'output_destinations', 'roles', 'api_keys', 'intel_sources', 'code_detections', 'alerts'],
    reason: 'names each entry’s actor and resource in the page query (one LEFT JOIN per resource type); read-only',
  },
  {
    module: 'intel-out',
    tables: ['intel_items', 'intel_indicators', 'intel_sources'],
    reason: 'materializes STIX objects from intel’s rows in set-based SQL (change queue fed by intel’s triggers); read-only',
  },
  {
    module: 'hunt',
    tables: ['intel_items', 'intel_indicators', 'intel_sources', 'intel_epss_scores', 'intel_vulnerabilities', 'organizations'],
    reason: 'threat sync and assessment join intel items in set-based SQL over whole organizations (the sync pass crosses every organization with its hunt settings); the assessment and the threat views join a CSAF, NVD or KEV item to its vulnerability-store row by primary key (migration 0159); read-only',
  },
  { module: 'sessions', tables: ['users', 'roles', 'api_keys'], reason: 'the cookie authenticator resolves a session to its user, role and permissions in one query per request, like platform/auth does for API keys' },
  { module: 'api-keys', tables: ['users', 'roles'], reason: 'lists keys with their owner’s name and role in the page query' },
  { module: 'runs', tables: ['users', 'roles'], reason: 'the run list names who started each run in the page query' },
  { module: 'users', tables: ['roles'], reason: 'the user list names each user’s role in the page query' },
  { module: 'identity-providers', tables: ['users'], reason: 'SCIM lists and filters a provider’s users (email, name, active) and group members in the page query; every write goes through the users module’s directory commands' },
  { module: 'triggers', tables: ['agents'], reason: 'intake’s trigger cache loads each webhook trigger with its agent’s enabled flag in one query' },
  { module: 'operations', tables: ['intel_sources', 'intel_source_states'], reason: 'sync metrics aggregate source states in the scrape query' },
  { module: 'delivery', tables: ['output_destinations'], reason: 'the event-subscription cache and the delivery job read destinations with their delivery rows' },
  { module: 'alerts', tables: ['users', 'organizations'], reason: 'alert numbering locks the organization row; the alert list names the assignee in the page query' },
  {
    module: 'destinations',
    tables: ['agents'],
    reason: 'deleting a destination an agent delivers to is a 409 naming the agents; agents build on destinations (agents → tools → destinations), so destinations cannot import their reader',
  },
  { module: 'tools', tables: ['agents'], reason: 'deleting an MCP server an agent uses is a 409 naming the agents; agents build on tools, so tools cannot import their reader' },
  { module: 'alerts', tables: ['agent_triggers'], reason: 'routing simulation with triggerId reads the trigger’s agent and routeAlerts; triggers build on alerts, so alerts cannot import their reader' },
  { module: 'intel', tables: ['organizations'], reason: 'the sync scheduler crosses every organization with the sources it subscribes to' },
];

/**
 * The one write across owners left, waiting for the event bus of issue 34 part A (a triggers
 * subscriber of `run.ended` replaces it); listed by file so no other write can hide behind it.
 */
export const PENDING_WRITES: Array<{ file: string; table: string; reason: string }> = [
];

const KYSELY_WRITES = new Set(['insertInto', 'replaceInto', 'updateTable', 'deleteFrom', 'mergeInto']);
const KYSELY_READS = new Set(['selectFrom', 'innerJoin', 'leftJoin', 'rightJoin', 'fullJoin', 'innerJoinLateral', 'leftJoinLateral', 'using']);
const SQL_NAMES = /\b(insert\s+into|update|delete\s+from|from|join)\s+(?:only\s+)?([a-z_][a-z0-9_]*)/gi;

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Tables created by the migrations, platform's and every module's (partitions belong to their parent). */
function migrationTables(srcDir: string): Set<string> {
  const modulesDir = path.join(srcDir, 'modules');
  const dirs = [path.join(srcDir, 'platform', 'db', 'migrations')];
  if (fs.existsSync(modulesDir)) for (const m of fs.readdirSync(modulesDir)) dirs.push(path.join(modulesDir, m, 'migrations'));
  const tables = new Set<string>();
  for (const file of dirs.filter((d) => fs.existsSync(d)).flatMap((d) => sourceFiles(d))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)(\s+PARTITION OF)?/g)) if (!m[2]) tables.add(m[1]!);
    for (const m of text.matchAll(/createTable\(\s*'([A-Za-z_][A-Za-z0-9_]*)'/g)) tables.add(snake(m[1]!));
  }
  return tables;
}

/**
 * The tables a module's index.ts declares: `export const ownedTables = ['a', 'b'] as const` (which
 * its manifest's `owns` names), or an array written in the manifest itself (`owns: ['a', 'b']`).
 */
export function ownedTablesOf(indexFile: string): string[] {
  if (!fs.existsSync(indexFile)) return [];
  const source = ts.createSourceFile(indexFile, fs.readFileSync(indexFile, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const declared =
      ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === 'ownedTables' ? node.initializer
      : ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && node.name.text === 'owns' ? node.initializer
      : undefined;
    if (declared) {
      let init: ts.Expression = declared;
      while (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init)) init = init.expression;
      if (ts.isArrayLiteralExpression(init)) for (const e of init.elements) if (ts.isStringLiteralLike(e)) found.push(e.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every table a file names, with whether it writes it. */
function tablesNamed(file: string): Array<{ table: string; write: boolean }> {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const named: Array<{ table: string; write: boolean }> = [];
  const literal = (e: ts.Expression | undefined): string[] => {
    if (!e) return [];
    if (ts.isStringLiteralLike(e)) return [e.text.split(/\s+as\s+/)[0]!.trim()];
    if (ts.isArrayLiteralExpression(e)) return e.elements.flatMap((x) => literal(x));
    return [];
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      if (KYSELY_WRITES.has(method) || KYSELY_READS.has(method)) {
        for (const t of literal(node.arguments[0])) named.push({ table: snake(t), write: KYSELY_WRITES.has(method) });
      }
    }
    if (ts.isTaggedTemplateExpression(node)) {
      let tag: ts.Expression = node.tag;
      if (ts.isExpressionWithTypeArguments?.(tag)) tag = tag.expression;
      const tagText = tag.getText(source).replace(/<.*$/s, '');
      if (tagText === 'sql') {
        const t = node.template;
        const text = ts.isNoSubstitutionTemplateLiteral(t) ? t.text : [t.head.text, ...t.templateSpans.map((s) => s.literal.text)].join(' ? ');
        for (const m of text.matchAll(SQL_NAMES)) {
          const keyword = m[1]!.toLowerCase().replace(/\s+/g, ' ');
          named.push({ table: m[2]!.toLowerCase(), write: keyword !== 'from' && keyword !== 'join' });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return named;
}

export interface Allowances {
  reads: typeof READ_EXCEPTIONS;
  pendingWrites: typeof PENDING_WRITES;
}

export function analyzeTables(srcDir: string, allowances: Allowances = { reads: READ_EXCEPTIONS, pendingWrites: PENDING_WRITES }): TableReport {
  const modulesDir = path.join(srcDir, 'modules');
  const rel = (f: string) => path.relative(path.dirname(srcDir), f);
  const modules = fs.readdirSync(modulesDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  const owner = new Map<string, string>();
  const ownership: string[] = [];
  for (const [table] of Object.entries(PLATFORM_TABLES)) owner.set(table, 'platform');
  for (const m of modules) {
    for (const table of ownedTablesOf(path.join(modulesDir, m, 'index.ts'))) {
      const previous = owner.get(table);
      if (previous) ownership.push(`${table} is claimed by ${previous} and ${m}`);
      else owner.set(table, m);
    }
  }
  for (const table of migrationTables(srcDir)) if (!owner.has(table)) ownership.push(`${table} has no owner (add it to a module's ownedTables)`);

  const crossOwner: string[] = [];
  const used = new Set<string>();
  for (const m of modules) {
    const excepted = new Set(allowances.reads.filter((e) => e.module === m).flatMap((e) => e.tables));
    // A module's migrations are its schema's history, not its runtime SQL: one may alter another
    // module's table where a change spans both (docs/architecture.md#tables-and-migrations).
    const migrationsDir = path.join(modulesDir, m, 'migrations') + path.sep;
    for (const file of sourceFiles(path.join(modulesDir, m)).filter((f) => !f.startsWith(migrationsDir))) {
      const seen = new Set<string>();
      for (const { table, write } of tablesNamed(file)) {
        const tableOwner = owner.get(table);
        // Words after FROM that are no table (CTE names, functions, aliases) have no owner: not our business.
        if (!tableOwner || tableOwner === m) continue;
        if (!write && tableOwner === 'platform') continue;
        if (!write && excepted.has(table)) {
          used.add(`${m}:${table}`);
          continue;
        }
        if (write && allowances.pendingWrites.some((p) => p.file === rel(file) && p.table === table)) {
          used.add(`${rel(file)}:${table}`);
          continue;
        }
        const line = `${rel(file)}: ${write ? 'writes' : 'reads'} ${table} (owned by ${tableOwner})`;
        if (!seen.has(line)) crossOwner.push(line);
        seen.add(line);
      }
    }
  }
  // An exception nothing needs any more is removed, so the list stays the true debt.
  for (const e of allowances.reads) for (const t of e.tables) if (!used.has(`${e.module}:${t}`)) ownership.push(`stale read exception: ${e.module} no longer reads ${t}`);
  for (const p of allowances.pendingWrites) if (!used.has(`${p.file}:${p.table}`)) ownership.push(`stale pending write: ${p.file} no longer writes ${p.table}`);
  return { crossOwner, ownership };
}

// `npx tsx scripts/table-owners.ts` prints the report and fails like the test does.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const report = analyzeTables(path.resolve('src'));
  for (const o of report.ownership) console.log(`ownership: ${o}`);
  for (const c of report.crossOwner) console.log(`across owners: ${c}`);
  console.log(`ownership problems ${report.ownership.length}, SQL across owners ${report.crossOwner.length}`);
  process.exit(report.ownership.length + report.crossOwner.length === 0 ? 0 : 1);
}
