/**
 * `npm run eval:extraction`: precision / recall / F1 of Rampart's indicator extractor and of the `ioc-extractor`
 * npm package, on the same inputs, per indicator type, side by side.
 *
 * Inputs
 * - ../shared/fixtures/ioc-extraction/ninoseki: input.txt + expected.json (the "complex input" test of
 *   ninoseki/ioc-extractor, i.e. that package's own expected output) and its `simple_cases`. Only the types
 *   the file labels are scored for those cases (e.g. it has no `ssdeeps` key, so ssdeep output is not scored
 *   there). Simple cases run with non-default options (`strict: false`, `refang: false`) are skipped: both tools
 *   run with their defaults, and the same input is labelled differently under those options.
 * - ../shared/fixtures/ioc-extraction/iocsearcher/*.ioc: one labelled value per line (MaliciaLab/iocsearcher test
 *   data). The text fed to both tools is the values, one per line (the label column is dropped). These files hold
 *   nothing but the labelled values, so they are scored exhaustively: any other indicator found in them is a
 *   false positive. Values of types neither tool models (litecoin, solana…) count only as "not a btc/eth/xmr".
 * - scripts/eval-cases/*.json: our own small labelled cases, exhaustive for every scored type. They are ours, so
 *   their labelling rules (see eval-cases/README.md) agree with our extractor's policy; totals are also printed
 *   per source so that the third-party fixtures can be read on their own.
 *
 * Mapping onto common types (the same canonicalization is applied to labels and to both tools' outputs):
 * - ipv4, md5/sha1/sha256/sha512, ssdeep, xmr: compared as written (hashes lowercased).
 * - ipv6: RFC 5952 canonical form (ioc-extractor returns addresses as written, e.g. with leading zeros).
 * - domain / email: lowercased, trailing dot removed, IDNs in punycode (ioc-extractor returns Unicode).
 * - url: lowercase scheme and host (punycode), default port (:80/:443/:21) removed; path kept as written.
 * - onion: "<label>.onion", lowercased; ioc-extractor has no onion type, so its domains ending in .onion count
 *   as onions (and are not scored as domains).
 * - cve upper case; asn "AS<n>" (ASN15169, AS 15169 → AS15169); btc bech32 lowercased; eth lowercased.
 * - arn (our cloud-id/aws-arn) and registry-key (root expanded, single backslashes, no trailing backslash,
 *   lowercased): ioc-extractor has no such types, so it scores 0 recall there; the "shared types" total leaves
 *   them out.
 * - our `cert` results (40/64 hex next to words like "thumbprint") are mapped to sha1/sha256 by length, so a
 *   hash that we call a certificate fingerprint is not counted as missed.
 * - not scored: our filename/process/mobile-id/attack-technique/other cloud ids, ioc-extractor's
 *   gaTrackIDs/gaPubIDs/macAddresses (no counterpart, and no fixture labels them).
 *
 * Two views:
 * 1. "labels as given".
 * 2. "reserved values excluded": values in documentation/private/loopback/reserved ranges (RFC 1918, 5737, 6598,
 *    3849, 4193, 2606/6761 names…) are removed from the labels AND from both tools' outputs. ninoseki's fixture
 *    uses 192.168.0.1, fdc4::/16 and example.com as its test values; Rampart deliberately does not report such
 *    values as indicators (it records them as dropped with the reason), while ioc-extractor does. Excluding
 *    them from both sides scores what the two tools can fairly be compared on. Benign-but-public values (public
 *    resolvers, vendor sites) are NOT excluded: if a label says google.com is an indicator, Rampart's choice to
 *    drop it costs recall.
 *
 * Exits 0 with a message when the fixtures directory is absent.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { domainToASCII } from 'node:url';
import { extractIOC } from 'ioc-extractor';
import { extractIocs } from '../src/modules/intel/extract/extract.fns.js';
import { ipv4Verdict, ipv6Verdict, reservedDomainVerdict } from '../src/modules/intel/extract/false-positives.fns.js';
import { parseIpv4, parseIpv6 } from '../src/modules/intel/extract/validate.fns.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const fixturesDir = process.env.IOC_FIXTURES_DIR ?? resolve(repoRoot, '../shared/fixtures/ioc-extraction');
const casesDir = join(repoRoot, 'scripts/eval-cases');

const TYPES = [
  'ipv4', 'ipv6', 'domain', 'url', 'email', 'md5', 'sha1', 'sha256', 'sha512', 'ssdeep', 'cve', 'asn', 'btc', 'eth',
  'xmr', 'onion', 'arn', 'registry-key',
] as const;
type EvalType = (typeof TYPES)[number];
/** Types ioc-extractor models (onion only through .onion domains, so it is not counted as shared). */
const SHARED = new Set<EvalType>(['ipv4', 'ipv6', 'domain', 'url', 'email', 'md5', 'sha1', 'sha256', 'sha512', 'ssdeep', 'cve', 'asn', 'btc', 'eth', 'xmr']);
const THEIRS_UNSUPPORTED = new Set<EvalType>(['arn', 'registry-key', 'onion']);

type Sets = Map<EvalType, Set<string>>;

interface Case {
  source: 'ninoseki' | 'iocsearcher' | 'rampart';
  name: string;
  text: string;
  labels: Sets;
  /** Types scored for this case (all of them when the labels are exhaustive). */
  scored: ReadonlySet<EvalType>;
}

// ---- canonicalization --------------------------------------------------------------------------------------

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443', ftp: '21' };
const REG_ROOTS: Record<string, string> = {
  HKLM: 'HKEY_LOCAL_MACHINE',
  HKCU: 'HKEY_CURRENT_USER',
  HKCR: 'HKEY_CLASSES_ROOT',
  HKU: 'HKEY_USERS',
  HKCC: 'HKEY_CURRENT_CONFIG',
};

const host = (h: string): string => {
  const lower = h.toLowerCase().replace(/\.$/, '');
  // eslint-disable-next-line no-control-regex
  return /[^\x00-\x7f]/.test(lower) ? domainToASCII(lower) || lower : lower;
};

function canonUrl(u: string): string {
  const m = /^([a-z][\w+.-]*):\/\/([^/?#]*)(.*)$/is.exec(u);
  if (!m) return u;
  const scheme = (m[1] as string).toLowerCase();
  let authority = m[2] as string;
  let user = '';
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    user = authority.slice(0, at + 1);
    authority = authority.slice(at + 1);
  }
  let h = authority;
  let port = '';
  const pm = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(authority);
  if (pm) {
    h = pm[1] as string;
    port = pm[2] ?? '';
  }
  if (h.startsWith('[')) {
    const v6 = parseIpv6(h.slice(1, -1));
    h = v6.ok ? `[${v6.value.canonical}]` : h.toLowerCase();
  } else h = host(h);
  if (port && DEFAULT_PORTS[scheme] === String(Number(port))) port = '';
  return `${scheme}://${user}${h}${port ? `:${Number(port)}` : ''}${m[3]}`;
}

function canon(type: EvalType, raw: string): string {
  const v = raw.trim();
  switch (type) {
    case 'ipv6': {
      const p = parseIpv6(v);
      return p.ok ? p.value.canonical : v.toLowerCase();
    }
    case 'domain':
      return host(v);
    case 'email': {
      const at = v.lastIndexOf('@');
      return `${v.slice(0, at).toLowerCase()}@${host(v.slice(at + 1))}`;
    }
    case 'url':
      return canonUrl(v);
    case 'md5':
    case 'sha1':
    case 'sha256':
    case 'sha512':
    case 'eth':
      return v.toLowerCase();
    case 'btc':
      return /^bc1/i.test(v) ? v.toLowerCase() : v;
    case 'cve':
      return v.toUpperCase();
    case 'asn': {
      const m = /^AS(?:N)?\s*(\d+)$/i.exec(v);
      return m ? `AS${Number(m[1])}` : v.toUpperCase();
    }
    case 'onion': {
      const l = v.toLowerCase();
      return l.endsWith('.onion') ? l : `${l}.onion`;
    }
    case 'registry-key': {
      const m = /^(HKEY_[A-Z_]+|HK(?:LM|CU|CR|U|CC))(:?)(.*)$/i.exec(v);
      if (!m) return v.toLowerCase();
      const root = REG_ROOTS[(m[1] as string).toUpperCase()] ?? (m[1] as string).toUpperCase();
      return root + (m[3] as string).replace(/\\{2,}/g, '\\').replace(/\\+$/, '').toLowerCase();
    }
    default:
      return v;
  }
}

/** Is a canonical value in a documentation / private / special-use range or name (view 2)? */
function isReserved(type: EvalType, v: string): boolean {
  const reservedHost = (h: string): boolean => {
    if (h.startsWith('[')) return reservedIp6(h.slice(1, -1));
    if (/^\d+\.\d+\.\d+\.\d+$/.test(h)) return reservedIp4(h);
    return reservedDomainVerdict(h, h.slice(h.lastIndexOf('.') + 1)) !== null;
  };
  const reservedIp4 = (ip: string): boolean => {
    const p = parseIpv4(ip);
    return p.ok && ipv4Verdict(p.value, ip)?.category === 'reserved';
  };
  const reservedIp6 = (ip: string): boolean => {
    const p = parseIpv6(ip);
    return p.ok && ipv6Verdict(p.value.parts, p.value.canonical)?.category === 'reserved';
  };
  switch (type) {
    case 'ipv4':
      return reservedIp4(v);
    case 'ipv6':
      return reservedIp6(v);
    case 'domain':
      return reservedHost(v);
    case 'email':
      return reservedHost(v.slice(v.lastIndexOf('@') + 1));
    case 'url': {
      const m = /^[a-z][\w+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(v);
      return m ? reservedHost(m[1] as string) : false;
    }
    default:
      return false;
  }
}

// ---- the two tools, mapped onto the common types -------------------------------------------------------------

function emptySets(): Sets {
  return new Map(TYPES.map((t) => [t, new Set<string>()]));
}

function runOurs(text: string): Sets {
  const out = emptySets();
  for (const ioc of extractIocs(text).iocs) {
    let type: EvalType | null = null;
    if ((TYPES as readonly string[]).includes(ioc.kind)) type = ioc.kind as EvalType;
    else if (ioc.kind === 'cloud-id' && ioc.subtype === 'aws-arn') type = 'arn';
    else if (ioc.kind === 'cert' && /^[0-9a-f]+$/.test(ioc.normalizedValue)) {
      type = ioc.normalizedValue.length === 40 ? 'sha1' : ioc.normalizedValue.length === 64 ? 'sha256' : null;
    }
    if (type) out.get(type)?.add(canon(type, ioc.normalizedValue));
  }
  return out;
}

const THEIR_KEYS: Record<string, EvalType> = {
  ipv4s: 'ipv4', ipv6s: 'ipv6', domains: 'domain', urls: 'url', emails: 'email', md5s: 'md5', sha1s: 'sha1',
  sha256s: 'sha256', sha512s: 'sha512', ssdeeps: 'ssdeep', cves: 'cve', asns: 'asn', btcs: 'btc', eths: 'eth', xmrs: 'xmr',
};

function runTheirs(text: string): Sets {
  const out = emptySets();
  const r = extractIOC(text) as unknown as Record<string, string[]>; // default options: strict, refang, sort
  for (const [key, type] of Object.entries(THEIR_KEYS)) {
    for (const v of r[key] ?? []) {
      const t: EvalType = type === 'domain' && /\.onion\.?$/i.test(v) ? 'onion' : type;
      out.get(t)?.add(canon(t, v));
    }
  }
  return out;
}

// ---- loading the cases ------------------------------------------------------------------------------------------

function labelSets(labels: Record<string, readonly string[]>): Sets {
  const sets = emptySets();
  for (const [type, values] of Object.entries(labels)) {
    const t = type as EvalType;
    if (!sets.has(t)) throw new Error(`unknown label type ${type}`);
    for (const v of values) sets.get(t)?.add(canon(t, v));
  }
  return sets;
}

const ALL = new Set<EvalType>(TYPES);

function loadNinoseki(dir: string): Case[] {
  const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Record<string, unknown> & {
    input_file: string;
    simple_cases?: Array<{ input: string; options: Record<string, unknown>; expected: Record<string, string[]> }>;
  };
  const fromLibraryShape = (e: Record<string, unknown>) => {
    const labels: Record<string, string[]> = {};
    const scored = new Set<EvalType>();
    for (const [key, type] of Object.entries(THEIR_KEYS)) {
      const values = e[key];
      if (!Array.isArray(values)) continue;
      scored.add(type);
      // a labelled .onion domain is an onion
      for (const v of values as string[]) (labels[/\.onion$/i.test(v) ? 'onion' : type] ??= []).push(v);
    }
    if (scored.has('domain')) scored.add('onion');
    return { labels: labelSets(labels), scored };
  };
  const cases: Case[] = [];
  const main = fromLibraryShape(expected);
  cases.push({ source: 'ninoseki', name: 'ninoseki/input.txt', text: readFileSync(join(dir, expected.input_file), 'utf8'), ...main });
  (expected.simple_cases ?? []).forEach((c, i) => {
    const opts = c.options;
    const nonDefault = Object.entries(opts).some(([k, v]) => !((k === 'strict' || k === 'refang') && v === true));
    if (nonDefault) return; // see the header: only cases run with the default options
    cases.push({ source: 'ninoseki', name: `ninoseki/simple_cases[${i}]`, text: c.input, ...fromLibraryShape(c.expected) });
  });
  return cases;
}

const IOCSEARCHER_TYPES: Record<string, EvalType | null> = {
  arn: 'arn',
  bitcoin: 'btc',
  ethereum: 'eth',
  monero: 'xmr',
  registry: 'registry-key',
  onion: 'onion',
};

function loadIocsearcher(dir: string): Case[] {
  const cases: Case[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ioc')).sort()) {
    const labels: Record<string, string[]> = {};
    const lines: string[] = [];
    const fileType = file.replace(/_valid\.ioc$/, '');
    for (const line of readFileSync(join(dir, file), 'utf8').split(/\r?\n/)) {
      if (!line.trim()) continue;
      // "label<TAB or space>value", or just the value (onion_valid.ioc)
      const m = /^([a-z]+)[\t ]+(\S.*?)\s*$/.exec(line);
      const [label, value] = m ? [m[1] as string, m[2] as string] : [fileType, line.trim()];
      lines.push(value);
      const type = IOCSEARCHER_TYPES[label] ?? null;
      if (type) (labels[type] ??= []).push(value);
    }
    cases.push({ source: 'iocsearcher', name: `iocsearcher/${file}`, text: lines.join('\n'), labels: labelSets(labels), scored: ALL });
  }
  return cases;
}

function loadOwn(dir: string): Case[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const c = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { name: string; text: string; labels: Record<string, string[]> };
      return { source: 'rampart' as const, name: `eval-cases/${f}`, text: c.text, labels: labelSets(c.labels), scored: ALL };
    });
}

// ---- scoring ------------------------------------------------------------------------------------------------

interface Counts {
  tp: number;
  fp: number;
  fn: number;
}
type Tool = 'ours' | 'theirs';
type Table = Map<EvalType, Record<Tool, Counts> & { gold: number }>;

const zero = (): Counts => ({ tp: 0, fp: 0, fn: 0 });

function score(cases: Case[], outputs: Map<Case, Record<Tool, Sets>>, excludeReserved: boolean, errors: string[] | null): Table {
  const table: Table = new Map(TYPES.map((t) => [t, { ours: zero(), theirs: zero(), gold: 0 }]));
  for (const c of cases) {
    const out = outputs.get(c) as Record<Tool, Sets>;
    for (const type of c.scored) {
      const keep = (v: string) => !excludeReserved || !isReserved(type, v);
      const gold = new Set([...(c.labels.get(type) ?? [])].filter(keep));
      const row = table.get(type) as Record<Tool, Counts> & { gold: number };
      row.gold += gold.size;
      for (const tool of ['ours', 'theirs'] as const) {
        const pred = new Set([...(out[tool].get(type) ?? [])].filter(keep));
        for (const v of pred) {
          if (gold.has(v)) row[tool].tp++;
          else {
            row[tool].fp++;
            errors?.push(`${tool === 'ours' ? 'rampart' : 'ioc-extractor'} FP ${type} ${JSON.stringify(v)} (${c.name})`);
          }
        }
        for (const v of gold) {
          if (!pred.has(v)) {
            row[tool].fn++;
            // (a type the tool does not model at all is summarized in the table, not listed value by value)
            if (tool === 'theirs' && THEIRS_UNSUPPORTED.has(type)) continue;
            errors?.push(`${tool === 'ours' ? 'rampart' : 'ioc-extractor'} FN ${type} ${JSON.stringify(v)} (${c.name})`);
          }
        }
      }
    }
  }
  return table;
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : a / b);
function prf(c: Counts): [number | null, number | null, number | null] {
  const p = ratio(c.tp, c.tp + c.fp);
  const r = ratio(c.tp, c.tp + c.fn);
  const f = p === null || r === null ? (r === 0 || p === 0 ? 0 : null) : p + r === 0 ? 0 : (2 * p * r) / (p + r);
  return [p, r, f];
}
const fmt = (x: number | null): string => (x === null ? '   —' : x.toFixed(2).padStart(4));

function sum(table: Table, types: Iterable<EvalType>): Record<Tool, Counts> & { gold: number } {
  const total = { ours: zero(), theirs: zero(), gold: 0 };
  for (const t of types) {
    const row = table.get(t);
    if (!row) continue;
    total.gold += row.gold;
    for (const tool of ['ours', 'theirs'] as const) {
      total[tool].tp += row[tool].tp;
      total[tool].fp += row[tool].fp;
      total[tool].fn += row[tool].fn;
    }
  }
  return total;
}

function printTable(title: string, table: Table): void {
  console.log(`\n### ${title}\n`);
  console.log('| type | gold | Rampart P | R | F1 | ioc-extractor P | R | F1 |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  const line = (name: string, row: Record<Tool, Counts> & { gold: number }, unsupported = false) => {
    const [op, or, of] = prf(row.ours);
    const [tp, tr, tf] = prf(row.theirs);
    const theirs = unsupported && row.theirs.tp + row.theirs.fp === 0 ? `${fmt(tp)} | ${fmt(tr)} | ${fmt(tf)} (no such type)` : `${fmt(tp)} | ${fmt(tr)} | ${fmt(tf)}`;
    console.log(`| ${name} | ${row.gold} | ${fmt(op)} | ${fmt(or)} | ${fmt(of)} | ${theirs} |`);
  };
  for (const t of TYPES) {
    const row = table.get(t) as Record<Tool, Counts> & { gold: number };
    if (row.gold + row.ours.tp + row.ours.fp + row.theirs.tp + row.theirs.fp === 0) continue;
    line(t, row, THEIRS_UNSUPPORTED.has(t));
  }
  line('**micro, all types**', sum(table, TYPES));
  line('**micro, shared types**', sum(table, SHARED));
}

// ---- main -----------------------------------------------------------------------------------------------------

function main(): void {
  if (!existsSync(fixturesDir)) {
    console.log(`eval:extraction: fixtures not found at ${fixturesDir}; skipping (set IOC_FIXTURES_DIR to point elsewhere).`);
    return;
  }
  const cases: Case[] = [];
  if (existsSync(join(fixturesDir, 'ninoseki', 'expected.json'))) cases.push(...loadNinoseki(join(fixturesDir, 'ninoseki')));
  if (existsSync(join(fixturesDir, 'iocsearcher'))) cases.push(...loadIocsearcher(join(fixturesDir, 'iocsearcher')));
  cases.push(...loadOwn(casesDir));

  const outputs = new Map<Case, Record<Tool, Sets>>();
  for (const c of cases) outputs.set(c, { ours: runOurs(c.text), theirs: runTheirs(c.text) });

  console.log(`Indicator extraction: Rampart vs ioc-extractor@${theirVersion()} on ${cases.length} cases`);
  for (const c of cases) console.log(`- ${c.name} (${c.source}${c.scored === ALL ? ', exhaustive' : `, scored: ${[...c.scored].join(' ')}`})`);

  const verbose = process.argv.includes('--verbose');
  const errors: string[] = [];
  printTable('Reserved values excluded (documentation/private ranges and names removed from labels and outputs)', score(cases, outputs, true, verbose ? errors : null));
  printTable('Labels as given', score(cases, outputs, false, null));

  console.log('\n### Micro F1 per source (reserved values excluded / as given)\n');
  console.log('| source | Rampart F1 | ioc-extractor F1 |');
  console.log('|---|---:|---:|');
  for (const source of ['ninoseki', 'iocsearcher', 'rampart'] as const) {
    const sub = cases.filter((c) => c.source === source);
    if (sub.length === 0) continue;
    const a = sum(score(sub, outputs, true, null), TYPES);
    const b = sum(score(sub, outputs, false, null), TYPES);
    console.log(`| ${source} | ${fmt(prf(a.ours)[2])} / ${fmt(prf(b.ours)[2])} | ${fmt(prf(a.theirs)[2])} / ${fmt(prf(b.theirs)[2])} |`);
  }
  if (verbose) {
    console.log('\n### Errors (reserved values excluded)\n');
    for (const e of errors) console.log(e);
  } else console.log('\n(--verbose lists every false positive and false negative)');
}

function theirVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'node_modules/ioc-extractor/package.json'), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return '?';
  }
}

main();
