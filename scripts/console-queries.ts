import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The console's query rules, checked by test/console/console-queries.test.ts (docs/architecture.md#the-console):
 * - every query key comes from a resource's key factory (`agentKeys.detail(id)`, an identifier
 *   ending in `Keys`): a `queryKey` and the key given to a QueryClient method (invalidateQueries,
 *   setQueryData, …) is never an array written in place, nor a constant of the screen's own. A
 *   key written twice by hand is how `['agents']` came to mean three things and an invalidation
 *   came to miss the query it meant;
 * - screens (`web/src/screens/`) fetch only through the hooks of `web/src/api/<resource>.ts`: no
 *   TanStack Query import and no call of the typed client (`api`, `unwrap`) there;
 * - each resource file exports a key factory made by `resourceKeys('<root>')` (web/src/query-keys.ts:
 *   one shape for all, the resource's own keys added with `.with(…)`), and no two factories share
 *   a root (`all`), so invalidating one resource never reaches another's queries.
 */
export interface ConsoleQueryReport {
  /** `file:line: text` of a key not taken from a factory. */
  literalKeys: string[];
  /** `file: import` of a screen reaching TanStack Query or the client itself. */
  screenFetches: string[];
  /** A resource file without a key factory, or a root that two factories share. */
  factories: string[];
}

/** QueryClient methods whose first argument is a key, or filters holding one. */
const KEY_METHODS = new Set([
  'invalidateQueries', 'refetchQueries', 'cancelQueries', 'removeQueries', 'resetQueries', 'isFetching',
  'setQueryData', 'getQueryData', 'getQueryState', 'setQueriesData', 'getQueriesData', 'ensureQueryData', 'fetchQuery', 'prefetchQuery',
]);

function files(dir: string, out: string[] = []): string[] {
  if (!fs.existsSync(dir)) return out;
  // Sorted: the report reads the same on every file system.
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) files(p, out);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** A key taken from a factory: `xKeys.all`, `xKeys.detail(id)`, `[...xKeys.detail(id), 'more']` is not one. */
function fromFactory(e: ts.Expression): boolean {
  let x: ts.Expression = e;
  for (;;) {
    if (ts.isParenthesizedExpression(x) || ts.isAsExpression(x) || ts.isNonNullExpression(x)) x = x.expression;
    else if (ts.isCallExpression(x)) x = x.expression;
    else if (ts.isPropertyAccessExpression(x)) x = x.expression;
    else break;
  }
  return ts.isIdentifier(x) && /Keys$/.test(x.text) && x !== e;
}

/** The root of a factory made by `resourceKeys('<root>')`, extended or not (`.with(…)`); undefined for any other shape. */
function factoryRoot(e: ts.Expression): string | undefined {
  if (!ts.isCallExpression(e)) return undefined;
  if (ts.isPropertyAccessExpression(e.expression)) return factoryRoot(e.expression.expression);
  const [first] = e.arguments;
  return ts.isIdentifier(e.expression) && e.expression.text === 'resourceKeys' && first && ts.isStringLiteral(first) ? first.text : undefined;
}

export function analyzeConsoleQueries(webSrc: string): ConsoleQueryReport {
  const report: ConsoleQueryReport = { literalKeys: [], screenFetches: [], factories: [] };
  const roots = new Map<string, string>();
  const rel = (f: string) => path.relative(path.dirname(path.dirname(webSrc)), f).split(path.sep).join('/');
  for (const file of files(webSrc)) {
    const text = fs.readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const where = (n: ts.Node) => `${rel(file)}:${source.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${n.getText().replace(/\s+/g, ' ').slice(0, 100)}`;
    const isScreen = path.dirname(file).startsWith(path.join(webSrc, 'screens'));
    const isResource = path.dirname(file) === path.join(webSrc, 'api');
    let factoryCount = 0;
    const visit = (n: ts.Node): void => {
      // `{ queryKey: … }` of a query, of useQueries' list and of a QueryClient method's filters.
      if (ts.isPropertyAssignment(n) && ts.isIdentifier(n.name) && n.name.text === 'queryKey' && !fromFactory(n.initializer)) report.literalKeys.push(where(n));
      if (ts.isShorthandPropertyAssignment(n) && n.name.text === 'queryKey') report.literalKeys.push(where(n));
      // A key given to a QueryClient method as such (setQueryData(key, data)); filters are checked above.
      const arg = ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && KEY_METHODS.has(n.expression.name.text) ? n.arguments[0] : undefined;
      if (arg && !ts.isObjectLiteralExpression(arg) && !fromFactory(arg)) report.literalKeys.push(where(n));
      if (isResource && ts.isVariableStatement(n) && n.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
        for (const d of n.declarationList.declarations) {
          if (!ts.isIdentifier(d.name) || !/Keys$/.test(d.name.text) || !d.initializer) continue;
          factoryCount++;
          const root = factoryRoot(d.initializer);
          if (!root) {
            report.factories.push(`${rel(file)}: ${d.name.text} is not made by resourceKeys('<resource>') (web/src/query-keys.ts)`);
            continue;
          }
          const owner = roots.get(root);
          if (owner) report.factories.push(`${rel(file)}: ${d.name.text} shares the root '${root}' with ${owner}`);
          else roots.set(root, `${rel(file)} ${d.name.text}`);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
    if (isResource && factoryCount === 0) report.factories.push(`${rel(file)}: exports no key factory (export const <resource>Keys = resourceKeys('<resource>'))`);
    if (isScreen) {
      for (const st of source.statements) {
        if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || st.importClause?.isTypeOnly) continue;
        const spec = st.moduleSpecifier.text;
        const named = st.importClause?.namedBindings && ts.isNamedImports(st.importClause.namedBindings) ? st.importClause.namedBindings.elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text) : [];
        if (spec === '@tanstack/react-query' && named.length > 0) report.screenFetches.push(`${rel(file)}: imports ${named.join(', ')} from @tanstack/react-query`);
        if (spec === '../api') {
          const client = named.filter((n) => n === 'api' || n === 'unwrap');
          if (client.length) report.screenFetches.push(`${rel(file)}: imports ${client.join(', ')} from ../api (fetch through web/src/api/<resource>.ts)`);
        }
      }
    }
  }
  return report;
}
