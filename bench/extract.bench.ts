/**
 * IOC extraction: ≥ 100 MB/s of plain text per core (issue 27 §3; DESIGN.md §7 said 50), and on the shared fixtures an
 * F1 above the `ioc-extractor` npm package's on the same inputs.
 *
 * 1. Throughput: scanIocs (the compact results ingestion reads: offsets and kind codes, no object per
 *    indicator, span or dropped record; issue 50 §3) over a generated corpus (bench/support/extract-corpus.ts;
 *    50 MB, quick 5 MB), best of BENCH_EXTRACT_ROUNDS (3; quick 1) runs after a JIT warm-up; extractIocs (every
 *    result as objects) is measured the same way and printed beside it. The
 *    figure held against the target is wall-clock time of the one thread doing the work ("per
 *    core"); the process's CPU time is printed too, but it also counts V8's parallel GC helper
 *    threads (measured here: 1.5× the wall time), so it understates what one core does.
 *    Both are lower bounds when the machine is shared. ioc-extractor's figures on a 5 MB slice
 *    are printed for reference. The same scan one call per text of 1,700 and of 80 characters (cut from the
 *    corpus's first 2 MB) is printed too: ingestion extracts each item's text and title, where per-call costs
 *    count that one long text hides.
 * 2. Accuracy: micro-averaged precision/recall/F1 over distinct (kind, value) pairs on the shared
 *    fixtures (IOC_FIXTURES_DIR, default /work/shared/fixtures/ioc-extraction): ninoseki's
 *    "complex input" and its default-option simple cases, and iocsearcher's valid-value lists.
 *    Only the kinds a fixture lists are scored (an extractor is not penalised for kinds the
 *    fixture says nothing about), and both extractors' outputs go through the same canonical
 *    form, so formatting differences (ASN vs AS, hive abbreviations, case) do not count.
 */
import fs from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { extractIOC, type IOC } from 'ioc-extractor';
import * as extraction from '../src/modules/intel/extract/extract.fns.js';
import { extractIocs, type IocKind } from '../src/modules/intel/extract/extract.fns.js';
import { generateCorpus } from './support/extract-corpus.js';
import { envNumber, type BenchContext, type BenchDefinition, type BenchOutcome } from './support/harness.js';
import { table } from './support/report.js';
import { sharedPath } from '../test/support/shared-dir.js';

export const TARGET_MB_PER_SEC = 100;
const FIXTURE_DIR = process.env.IOC_FIXTURES_DIR ?? sharedPath('fixtures/ioc-extraction');

// ---- throughput ------------------------------------------------------------------------------

function cpuSeconds<T>(fn: () => T): { seconds: number; wall: number; result: T } {
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  const result = fn();
  const wall = (performance.now() - w0) / 1000;
  const cu = process.cpuUsage(c0);
  return { seconds: (cu.user + cu.system) / 1e6, wall, result };
}

function throughput(text: string, rounds: number, extract: (t: string) => unknown): { mbPerSec: number; wallMbPerSec: number } {
  const mb = Buffer.byteLength(text, 'utf8') / 1e6;
  extract(text.slice(0, 2_000_000)); // JIT warm-up
  let bestCpu = Infinity;
  let bestWall = Infinity;
  for (let i = 0; i < rounds; i++) {
    const r = cpuSeconds(() => extract(text));
    bestCpu = Math.min(bestCpu, r.seconds);
    bestWall = Math.min(bestWall, r.wall);
  }
  return { mbPerSec: mb / bestCpu, wallMbPerSec: mb / bestWall };
}

/**
 * One call per text of `size` characters (cut from the corpus), as ingestion extracts an item's title and text:
 * the per-call costs a single long text hides. Process CPU per MB and per call, best of `rounds` after a warm-up.
 */
function perText(text: string, size: number, rounds: number, extract: (t: string) => unknown): { mbPerSec: number; usPerText: number; texts: number } {
  const pieces: string[] = [];
  for (let i = 0; i + size <= text.length; i += size) pieces.push(text.slice(i, i + size));
  const mb = Buffer.byteLength(pieces.join(''), 'utf8') / 1e6;
  const all = (): void => {
    for (const p of pieces) extract(p);
  };
  all(); // JIT warm-up
  let best = Infinity;
  for (let i = 0; i < rounds; i++) best = Math.min(best, cpuSeconds(all).seconds);
  return { mbPerSec: mb / best, usPerText: (best * 1e6) / pieces.length, texts: pieces.length };
}

// ---- accuracy --------------------------------------------------------------------------------

type Truth = Map<IocKind, Set<string>>;
interface Doc {
  fixture: string;
  text: string;
  truth: Truth;
}

const HIVES: Record<string, string> = { hkcu: 'hkey_current_user', hklm: 'hkey_local_machine', hkcr: 'hkey_classes_root', hku: 'hkey_users', hkcc: 'hkey_current_config' };

function canon(kind: IocKind, v: string): string {
  const s = v.trim().toLowerCase();
  switch (kind) {
    case 'asn':
      return s.replace(/^asn?\s*/, 'as');
    case 'ipv6':
      return ipaddr.isValid(s) ? ipaddr.parse(s).toNormalizedString() : s;
    case 'url':
      return s.replace(/\/$/, '');
    case 'registry-key':
      return s.replace(/^[a-z_]+/, (h) => HIVES[h] ?? h).replace(/\\$/, '');
    case 'onion':
      return s.endsWith('.onion') ? s : `${s}.onion`;
    case 'btc':
    case 'xmr':
      return v.trim(); // base58: case matters
    default:
      return s;
  }
}

/** ioc-extractor's result keys → our kinds. */
const THEIR_KEYS: Partial<Record<keyof IOC, IocKind>> = {
  asns: 'asn', btcs: 'btc', cves: 'cve', domains: 'domain', emails: 'email', eths: 'eth', ipv4s: 'ipv4', ipv6s: 'ipv6',
  md5s: 'md5', sha1s: 'sha1', sha256s: 'sha256', sha512s: 'sha512', ssdeeps: 'ssdeep', urls: 'url', xmrs: 'xmr',
};
/** iocsearcher's type names → our kinds; the other chains (litecoin, solana…) neither extractor knows. */
const IOCSEARCHER_TYPES: Record<string, IocKind> = { registry: 'registry-key', bitcoin: 'btc', ethereum: 'eth', monero: 'xmr', arn: 'cloud-id', onion: 'onion' };

function truthFrom(lists: Record<string, unknown>): Truth {
  const truth: Truth = new Map();
  for (const [key, kind] of Object.entries(THEIR_KEYS)) {
    const values = lists[key];
    if (Array.isArray(values)) truth.set(kind, new Set(values.map((v) => canon(kind, String(v)))));
  }
  return truth;
}

function loadFixtures(): Doc[] {
  const docs: Doc[] = [];
  const nino = path.join(FIXTURE_DIR, 'ninoseki');
  const expected = JSON.parse(fs.readFileSync(path.join(nino, 'expected.json'), 'utf8')) as Record<string, unknown> & { simple_cases: Array<{ input: string; options: Record<string, unknown>; expected: Record<string, unknown> }> };
  docs.push({ fixture: 'ninoseki', text: fs.readFileSync(path.join(nino, String(expected.input_file)), 'utf8'), truth: truthFrom(expected) });
  // Only the cases run with the library's defaults (refang on, strict off): the others test options we do not have.
  for (const c of expected.simple_cases) if (Object.keys(c.options).length === 0 || (Object.keys(c.options).length === 1 && c.options.strict === false)) docs.push({ fixture: 'ninoseki', text: c.input, truth: truthFrom(c.expected) });
  const searcher = path.join(FIXTURE_DIR, 'iocsearcher');
  for (const file of fs.readdirSync(searcher).filter((f) => f.endsWith('.ioc')).sort()) {
    const truth: Truth = new Map();
    const lines: string[] = [];
    for (const line of fs.readFileSync(path.join(searcher, file), 'utf8').split('\n').filter((l) => l.trim())) {
      // "<type> <value>" lines, except the onion list, which holds bare values.
      const m = /^(\S+)\s+(.+)$/.exec(line.trim());
      const [type, value] = file.startsWith('onion') || !m ? ['onion', line.trim()] : [m[1]!, m[2]!];
      const kind = IOCSEARCHER_TYPES[type];
      if (!kind) continue;
      lines.push(value);
      (truth.get(kind) ?? truth.set(kind, new Set()).get(kind)!).add(canon(kind, value));
    }
    docs.push({ fixture: 'iocsearcher', text: lines.join('\n'), truth });
  }
  return docs;
}

function ours(text: string): Array<[IocKind, string]> {
  return extractIocs(text).iocs.map((i) => [i.kind, i.normalizedValue]);
}

function theirs(text: string): Array<[IocKind, string]> {
  const r = extractIOC(text);
  return Object.entries(THEIR_KEYS).flatMap(([key, kind]) => ((r[key as keyof IOC] as string[] | undefined) ?? []).map((v): [IocKind, string] => [kind, v]));
}

interface Score {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
}

function score(docs: Doc[], extract: (t: string) => Array<[IocKind, string]>): Score {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const d of docs) {
    const predicted = new Set(extract(d.text).filter(([k]) => d.truth.has(k)).map(([k, v]) => `${k}\u0000${canon(k, v)}`));
    const truth = new Set([...d.truth].flatMap(([k, vs]) => [...vs].map((v) => `${k}\u0000${v}`)));
    for (const p of predicted) if (truth.has(p)) tp++;
    else fp++;
    for (const t of truth) if (!predicted.has(t)) fn++;
  }
  const precision = tp / (tp + fp || 1);
  const recall = tp / (tp + fn || 1);
  return { tp, fp, fn, precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
}

// ---- the bench -------------------------------------------------------------------------------

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const corpusMb = envNumber('BENCH_EXTRACT_MB', ctx.quick ? 5 : 50);
  const rounds = Math.round(envNumber('BENCH_EXTRACT_ROUNDS', ctx.quick ? 1 : 3));
  const { text } = generateCorpus(corpusMb * 1e6);
  const bytes = Buffer.byteLength(text, 'utf8');
  ctx.log(`corpus: ${(bytes / 1e6).toFixed(1)} MB generated; extracting ${rounds} time(s)`);
  // BENCH_COMPARE_CODE=current runs this file against refs older than scanIocs: they are measured by extractIocs
  const scan = (extraction as { scanIocs?: (t: string) => unknown }).scanIocs ?? extractIocs;
  const mine = throughput(text, rounds, scan);
  const objects = throughput(text, rounds, extractIocs);
  const found = extractIocs(text.slice(0, 5_000_000)).iocs.length;
  const shortSlice = text.slice(0, Math.min(text.length, 2_000_000));
  const items = perText(shortSlice, 1_700, rounds, scan);
  const titles = perText(shortSlice, 80, rounds, scan);
  const reference = throughput(text.slice(0, Math.min(text.length, 5_000_000)), 1, extractIOC);
  ctx.log(`ours ${mine.wallMbPerSec.toFixed(1)} MB/s (wall; ${objects.wallMbPerSec.toFixed(1)} with result objects), ioc-extractor ${reference.wallMbPerSec.toFixed(1)} MB/s on 5 MB`);

  const docs = loadFixtures();
  const byFixture = [...new Set(docs.map((d) => d.fixture))].map((fixture) => {
    const mineDocs = docs.filter((d) => d.fixture === fixture);
    return { fixture, docs: mineDocs.length, ours: score(mineDocs, ours), theirs: score(mineDocs, theirs) };
  });
  const all = { ours: score(docs, ours), theirs: score(docs, theirs) };
  const pct = (s: Score) => [s.precision, s.recall, s.f1].map((v) => v.toFixed(3));
  console.log(
    `\naccuracy on the shared fixtures (distinct kind+value pairs, kinds each fixture lists):\n${table(
      ['fixture', 'docs', 'extractor', 'tp', 'fp', 'fn', 'precision', 'recall', 'F1'],
      [...byFixture, { fixture: 'all', docs: docs.length, ...all }].flatMap((r) => [
        [r.fixture, String(r.docs), 'rampart', String(r.ours.tp), String(r.ours.fp), String(r.ours.fn), ...pct(r.ours)],
        ['', '', 'ioc-extractor', String(r.theirs.tp), String(r.theirs.fp), String(r.theirs.fn), ...pct(r.theirs)],
      ]),
      [1, 3, 4, 5, 6, 7, 8],
    )}`,
  );

  return {
    figures: [
      { name: 'throughput, one thread (wall clock)', value: mine.wallMbPerSec, unit: 'MB/s', digits: 1, target: { value: TARGET_MB_PER_SEC, kind: 'min' } },
      { name: 'throughput with result objects (extractIocs, wall clock)', value: objects.wallMbPerSec, unit: 'MB/s', digits: 1 },
      { name: 'F1 on shared fixtures (target: ioc-extractor’s)', value: all.ours.f1, unit: '', digits: 3, target: { value: all.theirs.f1, kind: 'min' } },
      { name: 'throughput by process CPU time (incl. GC threads)', value: mine.mbPerSec, unit: 'MB/s', digits: 1 },
      { name: 'throughput with result objects by process CPU time', value: objects.mbPerSec, unit: 'MB/s', digits: 1 },
      { name: 'texts of 1,700 characters, one call each (process CPU)', value: items.mbPerSec, unit: 'MB/s', digits: 1 },
      { name: 'texts of 80 characters, one call each (process CPU per call)', value: titles.usPerText, unit: 'µs', digits: 2 },
      { name: 'ioc-extractor throughput (5 MB, wall clock)', value: reference.wallMbPerSec, unit: 'MB/s', digits: 1 },
      { name: 'ioc-extractor F1 on shared fixtures', value: all.theirs.f1, unit: '', digits: 3 },
    ],
    notes: [
      `corpus ${(bytes / 1e6).toFixed(1)} MB of generated reports (${found.toLocaleString('en')} distinct indicators in its first 5 MB), best of ${rounds} run(s)`,
      'Rampart drops documentation/private values (example.com, 192.168.0.0/16, fdc4::/7…) by design; the ninoseki fixture lists them, so they count against its recall',
    ],
    details: { corpusBytes: bytes, rounds, ours: mine, oursWithObjects: objects, items, titles, iocExtractor5MB: reference, accuracy: { byFixture, all } },
  };
}

export const extractBench: BenchDefinition = { name: 'extract', title: 'IOC extraction: throughput and accuracy', run };
