import { normaliseText } from '../text.fns.js';
import type { IntelEntry } from '../../../intel/index.js';
import { ConnectorParseError } from '../connector.js';

/**
 * NVD CVE API 2.0 JSON (one page of `/rest/json/cves/2.0`, or a file of the same shape) → one
 * entry per CVE: the English description as text, CVSS vectors, and the `configurations` (CPE
 * match criteria with versionStart/End Including/Excluding), which the enrichment turns into the
 * item's affected products with their ranges (intel's products/cpe.fns.ts). Pure, no I/O.
 */
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function parseNvdPage(doc: unknown): Obj[] {
  const vulns = obj(doc)?.vulnerabilities;
  if (!Array.isArray(vulns)) throw new ConnectorParseError('The document is not an NVD CVE API 2.0 answer (no "vulnerabilities" array)');
  return vulns.map((v) => obj(obj(v)?.cve)).filter((c): c is Obj => !!c && /^CVE-\d{4}-\d{4,}$/i.test(String(c.id ?? '')));
}

function iso(v: unknown): string | null {
  const s = str(v);
  if (!s) return null;
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export function entryFromNvd(cve: Obj, publisher: string): IntelEntry {
  const id = String(cve.id).toUpperCase();
  const description = arr(cve.descriptions).map(obj).find((d) => d?.lang === 'en')?.value;
  const text = str(description) ?? id;
  const severity: Array<{ type: string; score: string }> = [];
  let baseSeverity: string | null = null;
  for (const [key, type] of [['cvssMetricV40', 'CVSS_V4'], ['cvssMetricV31', 'CVSS_V3'], ['cvssMetricV30', 'CVSS_V3'], ['cvssMetricV2', 'CVSS_V2']] as const) {
    for (const m of arr(obj(cve.metrics)?.[key])) {
      const data = obj(obj(m)?.cvssData);
      const vector = str(data?.vectorString);
      if (vector && !severity.some((s) => s.score === vector)) severity.push({ type, score: vector });
      baseSeverity ??= str(data?.baseSeverity) ?? str(obj(m)?.baseSeverity);
    }
  }
  const rejected = str(cve.vulnStatus) === 'Rejected';
  const references = arr(cve.references).map((r) => str(obj(r)?.url)).filter((u): u is string => !!u && /^https?:\/\//i.test(u));
  return {
    externalId: id,
    title: `${id}: ${text.split(/(?<=\.)\s/)[0]!.slice(0, 300)}`,
    url: `https://nvd.nist.gov/vuln/detail/${id}`,
    publisher,
    publishedAt: iso(cve.published),
    updatedAt: iso(cve.lastModified),
    language: 'en',
    contentText: normaliseText([text, severity.length ? `CVSS: ${severity.map((s) => s.score).join('; ')}.` : ''].filter(Boolean).join('\n\n')),
    contentHtml: null,
    indicators: [{ type: 'cve', value: id, confidence: 1, origin: 'nvd' }],
    references,
    tags: ['nvd', ...(baseSeverity ? [`severity:${baseSeverity.toLowerCase()}`] : []), ...(rejected ? ['revoked'] : [])],
    raw: cve,
    vulnerability: {
      format: 'nvd', id, aliases: [], withdrawn: rejected ? iso(cve.lastModified) : null, severity, databaseSeverity: baseSeverity, affected: [], notes: [],
      configurations: cve.configurations ?? [],
    },
  };
}

/**
 * The URL of the page after this one (NVD's `startIndex` + `resultsPerPage` < `totalResults`),
 * or null on the last page (a mirrored file is one page: its totalResults is its own count).
 */
export function nextPageUrl(url: string, doc: unknown): string | null {
  const d = obj(doc);
  const start = Number(d?.startIndex ?? 0);
  const per = Number(d?.resultsPerPage ?? 0);
  const total = Number(d?.totalResults ?? 0);
  if (![start, per, total].every(Number.isFinite) || per <= 0 || start + per >= total) return null;
  // Edited as text, not re-serialized by URLSearchParams: the rest of the query stays as written.
  const param = `startIndex=${start + per}`;
  return /([?&])startIndex=[^&#]*/.test(url) ? url.replace(/([?&])startIndex=[^&#]*/, `$1${param}`) : `${url}${url.includes('?') ? '&' : '?'}${param}`;
}
