import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeConsoleQueries } from '../../scripts/console-queries.js';

/** The console's query rules of scripts/console-queries.ts, on the real console and on one built to break them. */
describe('console queries', () => {
  it('takes every query key from a resource’s factory, and screens fetch only through web/src/api/', () => {
    const report = analyzeConsoleQueries(path.resolve('web/src'));
    expect(report.literalKeys).toEqual([]);
    expect(report.screenFetches).toEqual([]);
    expect(report.factories).toEqual([]);
  });

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-console-queries-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(tmp, rel)), { recursive: true });
    fs.writeFileSync(path.join(tmp, rel), text);
  };

  it('reports keys written in place, a screen fetching by itself, a resource without a factory and a shared root', () => {
    write('web/src/api/agents.ts', [
      "export const agentKeys = resourceKeys('agents');",
      'export const useAgent = (id: string) => useQuery({ queryKey: agentKeys.detail(id), queryFn });',
      "export const useRaw = () => useQuery({ queryKey: [...agentKeys.all, 'raw'], queryFn });",
    ].join('\n'));
    write('web/src/api/bots.ts', "export const botKeys = resourceKeys('agents').with((k) => ({ picker: () => [...k.lists(), 'picker'] as const }));\n");
    write('web/src/api/robots.ts', "export const robotKeys = { all: ['robots'] as const };\n");
    write('web/src/api/loose.ts', "export const useLoose = () => 1;\n");
    write('web/src/screens/page.tsx', [
      "import { useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';",
      "import { api, unwrap, type Schemas } from '../api';",
      "import type { UseQueryResult } from '@tanstack/react-query';",
      "import { agentKeys } from '../api/agents';",
      "const KEY = ['settings'];",
      'export function Page() {',
      '  const qc = useQueryClient();',
      "  void qc.invalidateQueries({ queryKey: ['agents'] });",
      '  void qc.invalidateQueries({ queryKey: agentKeys.all });',
      '  qc.setQueryData(KEY, 1);',
      "  qc.setQueryData(agentKeys.detail('a'), 1);",
      '  return useQuery({ queryKey: KEY, queryFn: () => unwrap(api.GET()) });',
      '}',
    ].join('\n'));
    const report = analyzeConsoleQueries(path.join(tmp, 'web/src'));
    expect(report.literalKeys).toEqual([
      "web/src/api/agents.ts:3: queryKey: [...agentKeys.all, 'raw']",
      "web/src/screens/page.tsx:8: queryKey: ['agents']",
      'web/src/screens/page.tsx:10: qc.setQueryData(KEY, 1)',
      'web/src/screens/page.tsx:12: queryKey: KEY',
    ]);
    expect(report.screenFetches).toEqual([
      'web/src/screens/page.tsx: imports useQuery, useQueryClient from @tanstack/react-query',
      'web/src/screens/page.tsx: imports api, unwrap from ../api (fetch through web/src/api/<resource>.ts)',
    ]);
    expect(report.factories).toEqual([
      "web/src/api/bots.ts: botKeys shares the root 'agents' with web/src/api/agents.ts agentKeys",
      'web/src/api/loose.ts: exports no key factory (export const <resource>Keys = resourceKeys(\'<resource>\'))',
      "web/src/api/robots.ts: robotKeys is not made by resourceKeys('<resource>') (web/src/query-keys.ts)",
    ]);
  });
});
