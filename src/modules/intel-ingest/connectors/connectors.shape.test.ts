import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The shape every connector folder has (docs/architecture.md#connectors), and the file suffixes
 * of intel and intel-ingest against the glossary (docs/architecture.md#glossary-file-suffixes).
 */
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const CONNECTORS = path.join(ROOT, 'src/modules/intel-ingest/connectors');
const kinds = fs.readdirSync(CONNECTORS, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((d) => d.isFile()).map((d) => path.relative(ROOT, path.join(d.parentPath, d.name)));
}

/** The suffixes the glossary names: `*.fns.ts`, `*.job-def.ts`… */
function glossarySuffixes(): Set<string> {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const glossary = doc.slice(doc.indexOf('## Glossary'), doc.indexOf('\n## ', doc.indexOf('## Glossary') + 1));
  return new Set([...glossary.matchAll(/`\*(\.[a-z-]+)\.ts`/g)].map((m) => m[1]!));
}

/** A file's suffix as the glossary reads it: `.fns` of `csaf.fns.ts`, null for `connector.ts`; tests are `.test`. */
function suffixOf(file: string): string | null {
  const name = path.basename(file);
  if (name.endsWith('.test.ts')) return '.test';
  const dotted = /^[^.]+(\.[a-z-]+)\.ts$/.exec(name);
  if (dotted) return dotted[1]!;
  return /^[^.]+\.ts$/.test(name) ? null : `unreadable name ${name}`;
}

describe('connector folders', () => {
  it('are found', () => {
    expect(kinds).toEqual(expect.arrayContaining(['csaf', 'epss', 'kev', 'misp', 'nvd', 'osv', 'rss', 'taxii']));
  });

  it.each(kinds)('%s has <kind>.connector.ts and <kind>.fns.ts, registered in registry.ts, and only glossary suffixes', (kind) => {
    const files = fs.readdirSync(path.join(CONNECTORS, kind));
    expect(files).toContain(`${kind}.connector.ts`);
    expect(files).toContain(`${kind}.fns.ts`);
    const registry = fs.readFileSync(path.join(CONNECTORS, 'registry.ts'), 'utf8');
    expect(registry).toContain(`from './${kind}/${kind}.connector.js'`);
    const allowed = new Set(['.fns', '.connector', '.schemas', '.test']);
    expect(files.filter((f) => f.endsWith('.ts') && !allowed.has(suffixOf(f) ?? '.fns'))).toEqual([]);
  });
});

describe('intel and intel-ingest file names', () => {
  it('use only suffixes of the glossary (or none)', () => {
    const glossary = glossarySuffixes();
    expect(glossary).toContain('.connector');
    const outside = ['src/modules/intel', 'src/modules/intel-ingest']
      .flatMap((d) => filesUnder(path.join(ROOT, d)))
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => {
        const suffix = suffixOf(f);
        return suffix !== null && suffix !== '.test' && !glossary.has(suffix);
      });
    expect(outside).toEqual([]);
  });
});

describe('the direction between intel and intel-ingest', () => {
  it('intel-ingest reaches intel through its index.ts only, and intel imports nothing of intel-ingest', () => {
    const importsOf = (file: string) => [...fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), m[1]!)));
    const intoIngest = filesUnder(path.join(ROOT, 'src/modules/intel')).filter((f) => f.endsWith('.ts')).filter((f) => importsOf(f).some((t) => t.startsWith('src/modules/intel-ingest/')));
    expect(intoIngest).toEqual([]);
    const intoIntel = filesUnder(path.join(ROOT, 'src/modules/intel-ingest'))
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => importsOf(f).filter((t) => t.startsWith('src/modules/intel/') && t !== 'src/modules/intel/index.js').map((t) => `${f} -> ${t}`));
    expect(intoIntel).toEqual([]);
  });
});
