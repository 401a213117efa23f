import { normaliseText } from '../text.fns.js';
import type { IntelEntry } from '../../../intel/index.js';
import { ConnectorParseError } from '../connector.js';

/**
 * CISA's Known Exploited Vulnerabilities catalog (known_exploited_vulnerabilities.json) → one
 * entry per CVE, tagged `kev`: hunt reads it as "exploited in the wild", with the date added,
 * the federal due date and known ransomware use (VulnerabilityRecord.exploited). Pure, no I/O.
 */
type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

export function parseKevCatalog(doc: unknown): Obj[] {
  const vulns = doc && typeof doc === 'object' ? (doc as Obj).vulnerabilities : undefined;
  if (!Array.isArray(vulns)) throw new ConnectorParseError('The document is not the CISA KEV catalog (no "vulnerabilities" array)');
  return vulns.filter((v): v is Obj => !!v && typeof v === 'object' && /^CVE-\d{4}-\d{4,}$/i.test(String((v as Obj).cveID ?? '')));
}

/**
 * The catalog's release instant (`dateReleased`), ISO, or null: what the vulnerability store
 * compares for each of its entries (IntelEntry.recordModified). An entry has no date of its own
 * change (`dateAdded` stays when CISA edits its ransomware use, notes or due date), and every
 * edit is a new release of the catalog.
 */
export function catalogReleased(doc: unknown): string | null {
  const s = doc && typeof doc === 'object' ? str((doc as Obj).dateReleased) : null;
  const t = s ? Date.parse(s) : Number.NaN;
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

const day = (v: unknown): string | null => {
  const s = str(v);
  return s && /^\d{4}-\d{2}-\d{2}/.test(s) ? s.slice(0, 10) : null;
};

export function entryFromKev(v: Obj, publisher: string, released: string | null = null): IntelEntry {
  const cve = String(v.cveID).toUpperCase();
  const name = str(v.vulnerabilityName) ?? cve;
  const dateAdded = day(v.dateAdded);
  const dueDate = day(v.dueDate);
  const ransomware = str(v.knownRansomwareCampaignUse)?.toLowerCase() === 'known';
  const text = normaliseText([
    `${name}.`,
    str(v.shortDescription) ?? '',
    `Vendor: ${str(v.vendorProject) ?? 'unknown'}. Product: ${str(v.product) ?? 'unknown'}.`,
    `Listed in CISA's Known Exploited Vulnerabilities catalog${dateAdded ? ` on ${dateAdded}` : ''}: exploited in the wild.${dueDate ? ` Federal due date ${dueDate}.` : ''}`,
    `Known ransomware campaign use: ${str(v.knownRansomwareCampaignUse) ?? 'Unknown'}.`,
    str(v.requiredAction) ? `Required action: ${str(v.requiredAction)}` : '',
  ].filter(Boolean).join('\n\n'));
  return {
    externalId: cve,
    title: `${cve}: ${name}`.slice(0, 1000),
    url: `https://www.cisa.gov/known-exploited-vulnerabilities-catalog?search_api_fulltext=${cve}`,
    publisher,
    publishedAt: dateAdded ? `${dateAdded}T00:00:00.000Z` : null,
    updatedAt: null,
    language: 'en',
    contentText: text,
    contentHtml: null,
    indicators: [{ type: 'cve', value: cve, confidence: 1, origin: 'cisa_kev' }],
    references: (str(v.notes) ?? '').split(/\s*;\s*|\s+/).filter((u) => /^https?:\/\//i.test(u)),
    tags: ['kev', 'exploited', ...(ransomware ? ['ransomware'] : [])],
    raw: v,
    recordModified: released,
    vulnerability: { format: 'cisa_kev', id: cve, aliases: [], withdrawn: null, severity: [], databaseSeverity: null, affected: [], notes: [], exploited: { source: 'cisa_kev', dateAdded, dueDate, knownRansomwareUse: ransomware, vendorProject: str(v.vendorProject), product: str(v.product) } },
  };
}
