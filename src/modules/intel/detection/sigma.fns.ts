/**
 * Draft Sigma rules pinned to an item's indicators: one rule per indicator family, each with
 * the log source where that family shows up, joined as a YAML multi-document (`---`), the
 * form Sigma tools accept for rule collections. Values are emitted as double-quoted YAML
 * scalars (JSON string syntax is valid YAML), so no value can break the document. Every rule
 * satisfies the Sigma rule schema in `sigma-rule.schema.json` (checked by the tests).
 *
 * The rules follow the item: `level` is the item's severity (none → informational), and an
 * endpoint rule names a `product` only when the item's platforms name exactly one endpoint
 * operating system (Windows, Linux, macOS); otherwise the product is left out rather than
 * guessed. Registry keys exist only on Windows, so their rule always says `windows`.
 */
export interface SigmaInput {
  ruleId: string;
  title: string;
  description: string;
  reference: string | null;
  /** `YYYY-MM-DD` (Sigma 2 dates are ISO 8601). */
  date: string;
  techniques: string[];
  indicators: Record<string, string[]>;
  /** The item's platforms, in the items vocabulary (`Windows`, `Linux`, `Network Devices`, …). */
  platforms: readonly string[];
  /** The item's severity: `none`, `low`, `medium`, `high`, `critical`. */
  severity: string;
}

interface Family {
  suffix: string;
  types: string[];
  logsource: Record<string, string>;
  field: string;
  /** Where the product comes from: fixed (registry → windows), the item's OS, or none (network logs). */
  product?: 'windows' | 'from-item';
}

const ENDPOINT_PRODUCTS: Readonly<Record<string, string>> = { Windows: 'windows', Linux: 'linux', macOS: 'macos' };
const LEVELS: Readonly<Record<string, string>> = { none: 'informational', low: 'low', medium: 'medium', high: 'high', critical: 'critical' };

function productOf(family: Family, platforms: readonly string[]): string | null {
  if (family.product === 'windows') return 'windows';
  if (family.product !== 'from-item') return null;
  const products = [...new Set(platforms.map((p) => ENDPOINT_PRODUCTS[p]).filter((p): p is string => !!p))];
  return products.length === 1 ? products[0]! : null;
}

// Field names follow the Sigma taxonomy for each log source category.
const FAMILIES: Family[] = [
  { suffix: 'network connections to known-bad IP addresses', types: ['ipv4', 'ipv6'], logsource: { category: 'firewall' }, field: 'dst_ip' },
  { suffix: 'DNS lookups of known-bad domains', types: ['domain'], logsource: { category: 'dns' }, field: 'query' },
  { suffix: 'web requests to known-bad URLs', types: ['url'], logsource: { category: 'proxy' }, field: 'c-uri' },
  { suffix: 'processes with known-bad hashes', types: ['md5', 'sha1', 'sha256', 'sha512'], logsource: { category: 'process_creation' }, field: 'Hashes|contains', product: 'from-item' },
  { suffix: 'known-bad file names', types: ['filename'], logsource: { category: 'file_event' }, field: 'TargetFilename|endswith', product: 'from-item' },
  { suffix: 'known-bad registry keys', types: ['registry-key'], logsource: { category: 'registry_event' }, field: 'TargetObject|contains', product: 'windows' },
];

/** The log source worth searching per indicator type (`category` or `category/product`), for the detection context. */
export const LOG_SOURCES: Record<string, string> = Object.fromEntries(
  FAMILIES.flatMap((f) => f.types.map((t) => [t, [f.logsource.category, f.product === 'windows' ? 'windows' : null].filter(Boolean).join('/')])),
);

export function sigmaRules(input: SigmaInput): string {
  const docs: string[] = [];
  for (const [index, family] of FAMILIES.entries()) {
    const values = uniqueIgnoringCase(family.types.flatMap((t) => input.indicators[t] ?? []));
    if (values.length === 0) continue;
    const product = productOf(family, input.platforms);
    const lines = [
      `title: ${q(`${input.title} - ${family.suffix}`)}`,
      `id: ${q(index === 0 ? input.ruleId : `${input.ruleId.slice(0, -2)}${index.toString(16).padStart(2, '0')}`)}`,
      'status: experimental',
      `description: ${q(input.description)}`,
      ...(input.reference ? ['references:', `  - ${q(input.reference)}`] : []),
      'author: Rampart (generated draft, review before use)',
      `date: ${q(input.date)}`,
      ...(input.techniques.length ? ['tags:', ...input.techniques.map((t) => `  - ${q(`attack.${t.toLowerCase()}`)}`)] : []),
      'logsource:',
      ...Object.entries(family.logsource).map(([k, v]) => `  ${k}: ${v}`),
      ...(product ? [`  product: ${product}`] : []),
      'detection:',
      '  selection:',
      `    ${family.field}:`,
      ...values.map((v) => `      - ${q(family.types.some((t) => t.startsWith('sha') || t === 'md5') ? `${hashPrefix(v)}=${v}` : v)}`),
      '  condition: selection',
      'falsepositives:',
      '  - Indicators can be re-used by legitimate infrastructure; confirm before acting',
      `level: ${LEVELS[input.severity] ?? 'medium'}`,
    ];
    docs.push(lines.join('\n'));
  }
  return docs.join('\n---\n') + (docs.length ? '\n' : '');
}

/** Sorted values, one per case-insensitive spelling (the first spelling seen is kept). */
function uniqueIgnoringCase(values: string[]): string[] {
  const seen = new Map<string, string>();
  for (const v of values) if (!seen.has(v.toLowerCase())) seen.set(v.toLowerCase(), v);
  return [...seen.values()].sort();
}

function hashPrefix(v: string): string {
  return v.length === 32 ? 'MD5' : v.length === 40 ? 'SHA1' : v.length === 64 ? 'SHA256' : 'SHA512';
}

function q(s: string): string {
  return JSON.stringify(s);
}
