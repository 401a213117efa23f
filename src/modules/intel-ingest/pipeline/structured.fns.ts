import type { VulnerabilityRecord } from '../../intel/index.js';
import { cvss2BaseScore, cvss3BaseScore } from './classify/cvss.fns.js';
import { SEVERITIES, severityFromCvss, type Severity } from './classify/severity.fns.js';
import { ABSTRACT_MAX, SUMMARY_MAX, TLDR_MAX, truncate } from './classify/summarize.fns.js';

/**
 * The enrichment of a structured vulnerability record (an OSV record, a CSAF vulnerability),
 * without reading its prose: such a record already says what the generic enrichment would
 * guess from text — which packages, which versions, how severe, which CVE. Extracting
 * indicators from its text found only noise (reference URLs, package names as domains),
 * classification found nothing, and the prose enrichment was most of the CPU of an OSV sync
 * (200,000 records: docs/performance.md). Pure, no I/O; processItem (process.fns.ts) assembles
 * the result.
 */

/** Record formats that name their packages and versions: enriched from their fields only. */
const STRUCTURED_FORMATS = new Set<VulnerabilityRecord['format']>(['osv', 'csaf']);

export function isStructuredRecord(v: VulnerabilityRecord | null | undefined): v is VulnerabilityRecord {
  return !!v && STRUCTURED_FORMATS.has(v.format);
}

const CVE_RE = /^CVE-\d{4}-\d{4,}$/i;
/** Paragraphs the connectors append after the record's own prose (osv.fns.ts, csaf.fns.ts). */
const GENERATED_RE = /^(?:Identifiers|Packages|Affected|Withdrawn) /;
const KNOWN_EXPLOITED = /\b(known[- ]exploited|exploited in the wild|actively exploited|under active exploitation|CISA KEV)\b/i;
/** Database severity words (GitHub's MODERATE, CSAF's aggregate severity text) → our scale. */
const WORDS: Record<string, Severity> = { critical: 'critical', important: 'high', high: 'high', moderate: 'medium', medium: 'medium', low: 'low', none: 'none' };

export interface StructuredFacts {
  severity: Severity;
  cvss: number | null;
  knownExploited: boolean;
  cves: string[];
  summary: string;
  tldr: string;
  abstract: string;
  affectedProducts: Array<{ vendor: string; product: string; versions: string[]; confidence: number }>;
}

/**
 * What the record states: severity from its CVSS vectors (the highest base score), else its
 * database's severity word; "known exploited" raises it as the generic rule does; the CVEs are
 * its own id and aliases; the summaries are its own first paragraphs (the OSV `summary`, then
 * `details`; a CSAF vulnerability's title and notes); the affected products are its packages with
 * their ranges as written.
 */
export function structuredFacts(input: { title: string; contentText: string; tags: string[]; vulnerability: VulnerabilityRecord }): StructuredFacts {
  const v = input.vulnerability;
  const scores = v.severity.map((s) => scoreOf(s.type, s.score)).filter((n): n is number => n !== null);
  const cvss = scores.length ? Math.max(...scores) : null;
  let severity: Severity = cvss !== null ? severityFromCvss(cvss) : (WORDS[v.databaseSeverity?.toLowerCase() ?? ''] ?? 'none');
  const knownExploited = !!v.exploited || input.tags.some((t) => /kev|exploited/i.test(t)) || KNOWN_EXPLOITED.test(`${input.title}\n${input.contentText}`);
  if (knownExploited) severity = higher(severity, cvss !== null && cvss >= 7 ? 'critical' : 'high');
  const cves = [...new Set([v.id, ...v.aliases].filter((a) => CVE_RE.test(a)).map((a) => a.toUpperCase()))].sort();
  if (cves.length) severity = higher(severity, 'low');

  const prose = input.contentText.split(/\n{2,}/).filter((p) => p && !GENERATED_RE.test(p));
  const lead = prose[0] ?? input.title;
  const firstSentence = /^.*?[.!?](?=\s|$)/s.exec(lead)?.[0] ?? lead;
  return {
    severity,
    cvss,
    knownExploited,
    cves,
    tldr: truncate(oneLine(firstSentence), TLDR_MAX),
    // The OSV summary is a title without a full stop: joined to the details as a sentence.
    summary: truncate(oneLine(prose.slice(0, 2).map((p) => (/[.!?:]$/.test(p) ? p : `${p}.`)).join(' ')) || input.title, SUMMARY_MAX),
    abstract: truncate(oneLine(lead), ABSTRACT_MAX),
    affectedProducts: v.affected.map((a) => ({
      vendor: a.ecosystem,
      product: a.name,
      versions: [...a.ranges.flatMap((r) => rangeText(r.events)), ...a.versions],
      confidence: 1,
    })),
  };
}

/** Whitespace other than a lone plain space: where `replace(/\s+/g, ' ')` changes anything. */
const WS_TO_COLLAPSE = /[^\S ]| {2}/;

/**
 * `s.replace(/\s+/g, ' ')`, skipped when it would change nothing: the connectors' text is
 * normalised already (single spaces), and the replace matched and rebuilt every space between
 * two words, ~13 µs of the ~40 µs structuredFacts cost an OSV record (micro-benchmark,
 * docs/performance-history.md, 2026-11-30, branch osvsync).
 */
function oneLine(s: string): string {
  return WS_TO_COLLAPSE.test(s) ? s.replace(/\s+/g, ' ') : s;
}

/**
 * Base scores by vector, bounded: a feed repeats a few hundred vectors over thousands of records
 * (the bench's 20,000 share one), and parsing one costs ~4 µs. Pure, so a memo cannot go stale.
 */
const SCORES = new Map<string, number | null>();
const SCORES_MAX = 4096;

/** A severity entry's base score: CVSS 3.x by its prefix, 2.0 by its type; else none. */
function scoreOf(type: string, score: string): number | null {
  const key = `${type}\u0000${score}`;
  let out = SCORES.get(key);
  if (out !== undefined) return out;
  out = /^CVSS:3\./.test(score) ? cvss3BaseScore(score) : type === 'CVSS_V2' ? cvss2BaseScore(score) : null;
  if (SCORES.size >= SCORES_MAX) SCORES.clear();
  SCORES.set(key, out);
  return out;
}

function higher(a: Severity, b: Severity): Severity {
  return SEVERITIES.indexOf(a) >= SEVERITIES.indexOf(b) ? a : b;
}

/** OSV range events as the comparisons they mean: `>=1.0.0 <1.4.3`, `<=2.0.1`, `>=3.0.0`. */
function rangeText(events: VulnerabilityRecord['affected'][number]['ranges'][number]['events']): string[] {
  const out: string[] = [];
  let from: string | null = null;
  for (const e of events) {
    if (e.introduced !== undefined) {
      if (from !== null) out.push(from === '0' ? '*' : `>=${from}`);
      from = e.introduced;
    } else {
      const to = e.fixed !== undefined ? `<${e.fixed}` : e.last_affected !== undefined ? `<=${e.last_affected}` : `<${e.limit}`;
      out.push(from === null || from === '0' ? to : `>=${from} ${to}`);
      from = null;
    }
  }
  if (from !== null) out.push(from === '0' ? '*' : `>=${from}`);
  return out;
}
