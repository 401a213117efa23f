import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link in README.md and docs/*.md points at a file that exists, and every
 * `#anchor` at a heading of that file (GitHub's slugs): moving a section must not break a door.
 */
const root = path.resolve('.');
const pages = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_[\]()]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!)));
}

function linksOf(text: string): string[] {
  const withoutCode = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l));
}

describe('documentation links', () => {
  it('README is a door: under 12 kB, linking every page of docs/', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(Buffer.byteLength(readme)).toBeLessThan(12_000);
    for (const page of pages.filter((p) => p.startsWith('docs/'))) expect(readme, page).toContain(`(${page})`);
  });

  for (const page of pages) {
    it(`${page}: every relative link resolves`, () => {
      const broken: string[] = [];
      for (const link of linksOf(fs.readFileSync(path.join(root, page), 'utf8'))) {
        const [target, anchor] = link.split('#') as [string, string | undefined];
        const file = target ? path.resolve(path.dirname(path.join(root, page)), target) : path.join(root, page);
        if (!fs.existsSync(file)) broken.push(`${link} (no such file)`);
        else if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor)) broken.push(`${link} (no such heading)`);
      }
      expect(broken).toEqual([]);
    });
  }
});
