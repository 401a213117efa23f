import path from 'node:path';
import { tool as aiTool } from 'ai';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { tool } from '../../src/platform/ai-sdk.js';

/**
 * What each role loads at start (docs/performance.md, start-up and memory): the files and
 * packages reachable by static imports from src/main.ts plus the role's own entry points, which
 * main.ts imports dynamically. Type-only imports are erased (esbuild, as the build does);
 * dynamic imports (the AI SDK at a run's start, the MCP SDK at a first connection, a provider's
 * SDK when a model is resolved) are not followed.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

async function staticGraph(entries: string[]): Promise<{ files: Set<string>; packages: Set<string> }> {
  const { metafile } = await build({
    entryPoints: entries.map((e) => path.join(ROOT, e)),
    absWorkingDir: ROOT,
    bundle: true,
    packages: 'external',
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    outdir: 'unused',
    logLevel: 'silent',
  });
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [...entries];
  while (queue.length) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const imp of metafile.inputs[file]?.imports ?? []) {
      if (imp.kind !== 'import-statement') continue;
      if (metafile.inputs[imp.path]) queue.push(imp.path);
      else packages.add(imp.path.startsWith('@') ? imp.path.split('/').slice(0, 2).join('/') : imp.path.split('/')[0]!);
    }
  }
  return { files, packages };
}

/**
 * Each graph is an esbuild bundle of most of src/: 11-16 s a test at the load of a shared CI
 * machine (measured with the test's process pinned to a core two busy loops shared), too near the
 * default 20 s. The limit only bounds a hang.
 */
const BUILD_LIMIT = 120_000;

/** What every role imports after main.ts has spawned the embedded PostgreSQL (src/main.ts). */
const ROLE_COMMON = ['src/main.ts', 'src/runtime.ts', 'src/modules/organizations/index.ts', 'src/modules/sessions/index.ts'];

describe('start-up imports per role', () => {
  it("main.ts's own static graph is light: the embedded PostgreSQL is spawned before the database layer, the modules and the app load", async () => {
    const main = await staticGraph(['src/main.ts']);
    expect(main.files).toContain('src/platform/db/postmaster.ts'); // the graph is real
    expect(main.files).not.toContain('src/runtime.ts');
    expect([...main.files].filter((f) => f.startsWith('src/modules/'))).toEqual([]);
    expect([...main.packages].filter((p) => ['kysely', 'fastify', 'graphile-worker'].includes(p))).toEqual([]);
  }, BUILD_LIMIT);

  it('the API role loads neither the AI SDK, a provider SDK, the MCP SDK, the feed parsers nor the job runner', async () => {
    const api = await staticGraph([...ROLE_COMMON, 'src/app.ts']);
    expect(api.packages).toContain('fastify'); // the graph is real
    expect([...api.packages].filter((p) => p === 'ai' || p.startsWith('@ai-sdk/') || p === '@modelcontextprotocol/sdk')).toEqual([]);
    // Nor the feed parsers: the intel connectors load at a source's first sync.
    expect([...api.packages].filter((p) => ['feedsmith', 'fast-xml-parser', 'html-to-text', 'fflate', 'iconv-lite'].includes(p))).toEqual([]);
    expect(api.files).not.toContain('src/platform/jobs/runner.ts');
    expect(api.files).not.toContain('src/jobs.ts');
  }, BUILD_LIMIT);

  it('the worker role loads neither the HTTP app, the console nor the API documentation', async () => {
    const worker = await staticGraph([...ROLE_COMMON, 'src/jobs.ts', 'src/platform/jobs/runner.ts', 'src/platform/jobs/maintenance.jobs.ts', 'src/scheduler.ts']);
    expect(worker.packages).toContain('graphile-worker');
    expect(worker.files).not.toContain('src/app.ts');
    expect(worker.files).not.toContain('src/platform/http/console.ts');
    expect([...worker.packages].filter((p) => p === 'fastify' || p.startsWith('@fastify/') || p === 'ai')).toEqual([]);
  }, BUILD_LIMIT);

  it("tools are defined without the SDK by a tool() that is the SDK's own identity", () => {
    const definition = { description: 'x', inputSchema: { type: 'object' } } as unknown as Parameters<typeof aiTool>[0];
    // Should the SDK's tool() ever do more than type its argument, ours must follow.
    expect(aiTool(definition)).toBe(definition);
    expect(tool(definition)).toBe(definition);
  });
});
