/**
 * `npm run eval:hunt`, part 1: precision and recall of the hunt's relevancy verdict (score ≥ 40) on a
 * labelled set — scripts/eval-cases/hunt/inventory.json (an organization's assets and software)
 * and advisories.json (CVE advisories as intel items carry them, each labelled relevant or not
 * with the reason). Runs the same pure functions an assessment run uses (matching, version
 * ranges, text mentions, scoring); no database. Prints each miss with its label's reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import { combineMatches, matchProse, productsInText, proseProducts, type AdvisoryProduct, type InventorySoftware } from '../src/modules/hunt/matching.fns.js';
import { softwareKey, type AssetInput } from '../src/modules/hunt/inventory.fns.js';
import { RELEVANT_AT, scoreRelevancy } from '../src/modules/hunt/relevancy.fns.js';
import { matchStructured } from '../src/modules/hunt/matching.fns.js';
import { parseCycloneDx } from '../src/modules/hunt/importers.fns.js';
import { entryFromOsv } from '../src/modules/intel-ingest/connectors/osv/osv.fns.js';
import { affectedProductsFrom } from '../src/modules/intel-ingest/pipeline/classify/products.fns.js';
import { evaluateSources } from './hunt-eval-sources.js';

interface Case {
  cve: string;
  relevant: boolean;
  reason: string;
  title: string;
  text: string;
  knownExploited: boolean;
  publishedAt: string;
  affectedProducts: Array<{ vendor: string; product: string; versions: string[] }>;
}

const dir = path.join(import.meta.dirname, 'eval-cases', 'hunt');
const inventory = JSON.parse(fs.readFileSync(path.join(dir, 'inventory.json'), 'utf8')) as Array<AssetInput & { criticality: string }>;
const cases = JSON.parse(fs.readFileSync(path.join(dir, 'advisories.json'), 'utf8')) as Case[];
const now = new Date('2026-11-24T00:00:00Z');

const software: InventorySoftware[] = inventory.flatMap((a) => a.software.map((s) => ({
  assetId: a.identifier, identifier: a.identifier, kind: a.kind ?? 'other', platform: a.platform ?? null, internetFacing: a.internetFacing ?? false,
  criticality: a.criticality ?? 'medium', vendor: s.vendor ?? '', product: s.product, version: s.version ?? null, productKey: softwareKey(s), purl: s.purl ?? null, cpe: s.cpe ?? null,
})));
const orgKeys = new Set(software.map((s) => s.productKey));

let tp = 0, fp = 0, fn = 0, tn = 0;
const misses: string[] = [];
for (const c of cases) {
  const text = `${c.title}\n${c.text}`;
  const advisories: AdvisoryProduct[] = proseProducts(text, c.affectedProducts.map((p) => ({ ...p, via: 'advisory' as const })), orgKeys);
  const r = scoreRelevancy({ canonicalKey: c.cve, matches: combineMatches([], matchProse(advisories, software, c.cve)), knownExploited: c.knownExploited, newestReportAt: new Date(c.publishedAt), now });
  const predicted = r.score >= RELEVANT_AT;
  if (predicted && c.relevant) tp++;
  else if (predicted && !c.relevant) fp++, misses.push(`FP ${c.cve} (score ${r.score}): labelled not relevant — ${c.reason}. Hunt said: ${r.explanation.join(' ')}`);
  else if (!predicted && c.relevant) fn++, misses.push(`FN ${c.cve} (score ${r.score}): labelled relevant — ${c.reason}. Hunt said: ${r.explanation.join(' ')}`);
  else tn++;
}
const precision = tp / Math.max(1, tp + fp);
const recall = tp / Math.max(1, tp + fn);
console.log(`hunt relevancy on ${cases.length} labelled advisories against ${inventory.length} assets / ${software.length} software entries (relevant at score >= ${RELEVANT_AT})`);
console.log(`TP ${tp}  FP ${fp}  FN ${fn}  TN ${tn}`);
console.log(`precision ${precision.toFixed(3)}  recall ${recall.toFixed(3)}  F1 ${(2 * precision * recall / Math.max(1e-9, precision + recall)).toFixed(3)}`);
for (const m of misses) console.log(`  ${m}`);

/**
 * Part 2: precision and recall of `affected` (advisory, package@version) pairs on a real SBOM
 * (this project's, test/fixtures/hunt/rampart.cdx.json) and a mixed one (eval-services.cdx.json:
 * affected and fixed versions of several branches, trap packages) against OSV records
 * (test/fixtures/osv, real GitHub Advisory Database records included),
 * labelled in scripts/eval-cases/hunt/structured-labels.json — once from the records' structured
 * ranges, once from their prose alone (what a prose-only advisory of the same text would give).
 */
const root = path.join(import.meta.dirname, '..');
const sbom = ['rampart.cdx.json', 'eval-services.cdx.json']
  .flatMap((f) => parseCycloneDx(JSON.parse(fs.readFileSync(path.join(root, 'test/fixtures/hunt', f), 'utf8')), undefined).assets);
const pkgs: InventorySoftware[] = sbom.flatMap((a) => a.software.map((s) => ({
  assetId: a.identifier, identifier: a.identifier, kind: a.kind ?? 'application', platform: null, internetFacing: false, criticality: 'medium',
  vendor: s.vendor ?? '', product: s.product, version: s.version ?? null, productKey: softwareKey(s), purl: s.purl ?? null, cpe: s.cpe ?? null,
})));
const osvDir = path.join(root, 'test/fixtures/osv');
const records = fs.readdirSync(osvDir).filter((f) => f.endsWith('.json')).sort().flatMap((f) => {
  const doc = JSON.parse(fs.readFileSync(path.join(osvDir, f), 'utf8'));
  return Array.isArray(doc) ? doc : [doc];
});
const labels = JSON.parse(fs.readFileSync(path.join(dir, 'structured-labels.json'), 'utf8')) as { affected: Array<{ advisory: string; purl: string }> };
const truth = new Set(labels.affected.map((l) => `${l.advisory} ${l.purl}`));
const pkgKeys = new Set(pkgs.map((p) => p.productKey));
const packageOnly = new Set(pkgs.filter((p) => p.purl).map((p) => p.productKey));
const structuredPairs = new Set<string>();
const prosePairs = new Set<string>();
for (const r of records) {
  const e = entryFromOsv(r, 'eval');
  if (!e?.vulnerability || e.vulnerability.withdrawn) continue;
  const key = e.indicators[0]?.value ?? e.vulnerability.id;
  for (const m of matchStructured([{ advisoryId: key, evidence: 'osv', packages: e.vulnerability.affected }], pkgs)) if (m.verdict === 'affected') structuredPairs.add(`${key} ${m.software.purl}`);
  const text = `${(r as { summary?: string }).summary ?? ''}\n${(r as { details?: string }).details ?? ''}`;
  // What the hunt reads of a prose-only item: the products intel's enrichment finds in it
  // (dictionary, with versions) and the organization's own names written in it as products.
  const listed = affectedProductsFrom({ text, cpes: [] }).map((p) => ({ vendor: p.vendor, product: p.product, versions: p.versions, via: 'advisory' as const }));
  for (const m of matchProse(proseProducts(text, listed, pkgKeys, packageOnly), pkgs, key)) if (m.verdict === 'affected') prosePairs.add(`${key} ${m.software.purl}`);
}
for (const [name, predicted] of [['structured (OSV ranges)', structuredPairs], ['prose only (the same records\' text)', prosePairs]] as const) {
  const tp = [...predicted].filter((p) => truth.has(p));
  const fpList = [...predicted].filter((p) => !truth.has(p));
  const fnList = [...truth].filter((p) => !predicted.has(p));
  console.log(`\naffected pairs, ${name}: ${records.length} records x ${pkgs.length} SBOM components`);
  console.log(`TP ${tp.length}  FP ${fpList.length}  FN ${fnList.length}  precision ${(tp.length / Math.max(1, predicted.size)).toFixed(3)}  recall ${(tp.length / Math.max(1, truth.size)).toFixed(3)}`);
  for (const p of fpList) console.log(`  FP ${p}`);
  for (const p of fnList) console.log(`  FN ${p}`);
}

/**
 * Part 3 (issue 49): NVD CPE configurations, CSAF product status and KEV listings against an
 * inventory with CPE and purl (test/fixtures/hunt-eval, real records): precision and recall of
 * `affected`, and the share of pairs whose whole verdict (and labelled match fields) is right.
 */
const { scores } = evaluateSources();
console.log('\nper source, hand-decided (asset, CVE) verdicts (test/fixtures/hunt-eval/verdicts.json):');
for (const s of scores) {
  console.log(`${s.source}: ${s.pairs} pairs  TP ${s.tp}  FP ${s.fp}  FN ${s.fn}  precision ${s.precision.toFixed(2)}  recall ${s.recall.toFixed(2)}  verdicts right ${(s.verdictAccuracy * 100).toFixed(0)} %`);
  for (const m of s.misses) console.log(`  MISS ${m}`);
}
