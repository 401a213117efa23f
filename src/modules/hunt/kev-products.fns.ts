import type { VulnerabilityRecord } from '../intel/index.js';
import type { AdvisoryProduct } from './matching.fns.js';

/**
 * A CISA KEV entry's `vendorProject` / `product` as the products hunt matches (docs/hunt.md
 * "KEV"): plain names (`Git` / `Git`, `Apache` / `HTTP Server`), keyed like NVD's CPE vendor and
 * product (`git`, `http server`). KEV gives no versions, so every match it makes is `unknown`.
 * A product cell naming several products ("NetScaler ADC and NetScaler Gateway") gives each.
 * Entries stored before the vendor and product were kept are read from the entry's text
 * ("Vendor: Git. Product: Git."). Pure.
 */
const TEXT_RE = /\bVendor: ([^\n]+?)\. Product: ([^\n]+?)\.(?:\s|$)/;
const UNKNOWN = new Set(['', 'unknown', 'multiple products', 'multiple']);

export function kevProducts(exploited: VulnerabilityRecord['exploited'] | null | undefined, text: string): AdvisoryProduct[] {
  let vendor = exploited?.vendorProject ?? null;
  let product = exploited?.product ?? null;
  if (!vendor || !product) {
    const m = TEXT_RE.exec(text);
    vendor ??= m?.[1] ?? null;
    product ??= m?.[2] ?? null;
  }
  if (!vendor || !product || UNKNOWN.has(product.trim().toLowerCase())) return [];
  const names = product.split(/\s+and\s+|\s*[,/]\s*/).map((p) => p.trim()).filter(Boolean);
  return names.map((p) => ({ vendor: vendor!, product: p, versions: [], via: 'advisory' as const }));
}
