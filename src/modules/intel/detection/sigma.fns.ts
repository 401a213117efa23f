/**
 * Draft Sigma rules pinned to an item's indicators: one rule per indicator family, each with
 * the log source where that family shows up, joined as a YAML multi-document (`---`), the
 * form Sigma tools accept for rule collections. Values are emitted as double-quoted YAML
 * scalars (JSON string syntax is valid YAML), so no value can break the document.
 */
export interface SigmaInput {
  ruleId: string;
  title: string;
  description: string;
  reference: string | null;
  date: string;
  techniques: string[];
  indicators: Record<string, string[]>;
}

interface Family {
  suffix: string;
  types: string[];
  logsource: Record<string, string>;
  field: string;
}

// Field names follow the Sigma taxonomy for each log source category.
const FAMILIES: Family[] = [
  { suffix: 'network connections to known-bad IP addresses', types: ['ipv4', 'ipv6'], logsource: { category: 'firewall' }, field: 'dst_ip' },
  { suffix: 'DNS lookups of known-bad domains', types: ['domain'], logsource: { category: 'dns' }, field: 'query' },
  { suffix: 'web requests to known-bad URLs', types: ['url'], logsource: { category: 'proxy' }, field: 'c-uri' },
  { suffix: 'processes with known-bad hashes', types: ['md5', 'sha1', 'sha256', 'sha512'], logsource: { category: 'process_creation', product: 'windows' }, field: 'Hashes|contains' },
  { suffix: 'known-bad file names', types: ['filename'], logsource: { category: 'file_event', product: 'windows' }, field: 'TargetFilename|endswith' },
  { suffix: 'known-bad registry keys', types: ['registry-key'], logsource: { category: 'registry_event', product: 'windows' }, field: 'TargetObject|contains' },
];

export const LOG_SOURCES: Record<string, string> = Object.fromEntries(FAMILIES.flatMap((f) => f.types.map((t) => [t, Object.values(f.logsource).join('/')])));

export function sigmaRules(input: SigmaInput): string {
  const docs: string[] = [];
  for (const [index, family] of FAMILIES.entries()) {
    const values = [...new Set(family.types.flatMap((t) => input.indicators[t] ?? []))].sort();
    if (values.length === 0) continue;
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
      'detection:',
      '  selection:',
      `    ${family.field}:`,
      ...values.map((v) => `      - ${q(family.types.some((t) => t.startsWith('sha') || t === 'md5') ? `${hashPrefix(v)}=${v}` : v)}`),
      '  condition: selection',
      'falsepositives:',
      '  - Indicators can be re-used by legitimate infrastructure; confirm before acting',
      'level: high',
    ];
    docs.push(lines.join('\n'));
  }
  return docs.join('\n---\n') + (docs.length ? '\n' : '');
}

function hashPrefix(v: string): string {
  return v.length === 32 ? 'MD5' : v.length === 40 ? 'SHA1' : v.length === 64 ? 'SHA256' : 'SHA512';
}

function q(s: string): string {
  return JSON.stringify(s);
}
