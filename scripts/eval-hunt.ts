/**
 * `npm run eval:hunt`: precision and recall of the hunt's relevancy verdict (score ≥ 40) on a
 * labelled set — scripts/eval-cases/hunt/inventory.json (an organization's assets and software)
 * and advisories.json (CVE advisories as intel items carry them, each labelled relevant or not
 * with the reason). Runs the same pure functions an assessment run uses (matching, version
 * ranges, text mentions, scoring); no database. Prints each miss with its label's reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import { combineMatches, matchProse, productsInText, type AdvisoryProduct, type InventorySoftware } from '../src/modules/hunt/matching.fns.js';
import { softwareKey, type AssetInput } from '../src/modules/hunt/inventory.fns.js';
import { RELEVANT_AT, scoreRelevancy } from '../src/modules/hunt/relevancy.fns.js';

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
  const advisories: AdvisoryProduct[] = [...c.affectedProducts.map((p) => ({ ...p, via: 'advisory' as const })), ...productsInText(text, orgKeys)];
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
