/**
 * Issue 42 item 5's rule, read by test/platform/structure.test.ts: one function normalises indicator values,
 * intel's `normalizeIndicator` (src/modules/intel/normalize-indicator.fns.ts). Anywhere else under
 * src/, a function or arrow function named like an indicator normaliser (`normalize…Value`,
 * `normalize…Indicator`, `normalize…Ioc`, `normalizeStructured`…) is reported, so a module that
 * needs a stored form calls the one function instead of growing a fourth that disagrees.
 */
import fs from 'node:fs';
import path from 'node:path';

export const NORMALISER_HOME = 'src/modules/intel/normalize-indicator.fns.ts';
const NAME = String.raw`normali[sz]e\w*(?:Values?|Indicators?|Iocs?|Structured|Sightings?)`;
const DECLARATIONS = new RegExp(String.raw`\bfunction\s*\*?\s+(${NAME})\s*[<(]|\b(?:const|let|var)\s+(${NAME})\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)`, 'g');

/** `file:line name` of every indicator normaliser outside NORMALISER_HOME (tests excluded). */
export function findIndicatorNormalisers(srcDir: string): string[] {
  const root = path.dirname(srcDir);
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) {
        const rel = path.relative(root, p).split(path.sep).join('/');
        if (rel === NORMALISER_HOME) continue;
        const text = fs.readFileSync(p, 'utf8');
        for (const m of text.matchAll(DECLARATIONS)) out.push(`${rel}:${text.slice(0, m.index).split('\n').length} ${m[1] ?? m[2]}`);
      }
    }
  };
  walk(srcDir);
  return out.sort();
}
