/**
 * Whether the versions written at a product mention are affected versions at all. Advisories
 * name fixed versions in the same breath as affected ones ("fixed in 7.31.0", "upgrade to
 * 6.4.0", "5.0 and later are not affected", "Fastify 5 is not affected"); read as ranges, those
 * turn a patched install into an affected one. Pure, no I/O.
 */

// The clause around the mention: from the last sentence or clause break before it to the next one after.
function clauseBounds(text: string, start: number, end: number): { from: number; to: number } {
  let from = start;
  while (from > 0 && !/[.;!?\n]/.test(text[from - 1]!) ) from--;
  let to = end;
  while (to < text.length && !/[;!?\n]/.test(text[to]!) && !(text[to] === '.' && !/\d/.test(text[to + 1] ?? ''))) to++;
  return { from, to };
}

const NEGATED_RE = /\b(?:(?:is|are|was|were)\s+not\s+(?:affected|vulnerable|impacted)|not\s+(?:affected|vulnerable|impacted)\s+by|unaffected|does\s+not\s+affect|do\s+not\s+affect|aren't\s+affected|isn't\s+affected)\b/i;
const FIX_BEFORE_RE = /\b(?:(?:fixed|patched|resolved|addressed|remediated|corrected)\s+in|(?:upgrad|updat)(?:e|es|ed|ing)\s+to|fix(?:es)?\s+(?:is|are)\s+(?:available\s+)?in|patches?\s+(?:for|in)|(?:is|are)\s+(?:available|released)\s+in|move\s+to|migrate\s+to)\s*(?:\S+\s+){0,4}$/i;
const FIX_AFTER_RE = /^\s*(?:,\s*)?(?:(?:and|or)\s+(?:later|newer|above|higher)\s+)?(?:(?:which|that)\s+)?(?:is\s+|are\s+)?(?:(?:not\s+(?:affected|vulnerable))|unaffected|(?:contains?|includes?|ships?|has|have)\s+(?:the\s+|a\s+)?fix|fix(?:es)?\s+(?:this|the|these)|(?:is|are)\s+patched|patched|resolves?\b)/i;

export interface VersionContext {
  /** The clause says the product is not affected: it names no affected version. */
  negated: boolean;
  /** The mention follows "fixed in", "upgrade to"…: its versions are fixes. */
  fixBefore: boolean;
  /** The versions parsed up to `versionsEnd` are followed by "are not affected", "contain the fix"…. */
  fixAfter(versionsEnd: number): boolean;
}

export function versionContext(text: string, start: number, end: number): VersionContext {
  const { from, to } = clauseBounds(text, start, end);
  const clause = text.slice(from, to);
  return {
    negated: NEGATED_RE.test(clause),
    fixBefore: FIX_BEFORE_RE.test(text.slice(Math.max(from, start - 80), start)),
    fixAfter: (versionsEnd) => FIX_AFTER_RE.test(text.slice(versionsEnd, Math.max(versionsEnd, to))),
  };
}

/** True when the versions written at this mention are not affected versions (negated clause or a fix). */
export function versionsAreFixes(text: string, start: number, end: number, versionsEnd: number): boolean {
  const c = versionContext(text, start, end);
  return c.negated || c.fixBefore || c.fixAfter(versionsEnd);
}
