/** Small text helpers shared by the connectors. */

/**
 * Runs of horizontal whitespace that are not already one plain space: every such run becomes one
 * space. The rule is `/[^\S\n]+/g → ' '`, without matching (and rebuilding) each single space
 * between two words, which the plain rule did for every word of every entry (~11 µs per OSV
 * record of ~700 characters, half of normaliseText; text.fns.test.ts compares the two).
 */
const SPACE_RUNS = / [^\S\n]+|[^\S\n ][^\S\n]*/g;
/** Spaces beside a newline (removed), without matching each bare newline: the rule `/ *\n *\/g → '\n'`. */
const SPACES_AT_NEWLINES = / +\n *|\n +/g;

/** Plain text with unified newlines, single spaces and at most one blank line in a row. */
export function normaliseText(s: string): string {
  return (s.includes('\r') ? s.replace(/\r\n?/g, '\n') : s)
    .replace(SPACE_RUNS, ' ')
    .replace(SPACES_AT_NEWLINES, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
