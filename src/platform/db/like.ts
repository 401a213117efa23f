/** A LIKE/ILIKE pattern matching `s` anywhere, its wildcards escaped: a search for "a_b%" means exactly that. */
export function containsPattern(s: string): string {
  return `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
