/**
 * Issue 49's evaluation set (test/fixtures/hunt-eval): real NVD CVE API 2.0 records, the CISA KEV
 * entries they need, a real CSAF document, an inventory with CPE and purl, and hand-decided
 * (asset, CVE) verdicts. Runs what an assessment runs — the connectors' parsers, the item
 * evidence hunt reads (itemEvidenceOf), advisoriesOf and planAssessment — with items linked to
 * every CVE their text names, as the intel pass links them. Pure apart from reading the fixtures.
 * `npm run eval:hunt` prints it; test/hunt/hunt-eval.test.ts requires 1.00 on the structured pairs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { advisoriesOf, group, planAssessment } from '../src/modules/hunt/assess.fns.js';
import { itemEvidenceOf, type ItemEvidence, type ThreatForAssessment } from '../src/modules/hunt/assess.store.js';
import { DEFAULT_ALERT_SETTINGS } from '../src/modules/hunt/hunt-alerts.js';
import { purlKey } from '../src/modules/hunt/identity.fns.js';
import { softwareKey, type AssetInput } from '../src/modules/hunt/inventory.fns.js';
import type { InventorySoftware } from '../src/modules/hunt/matching.fns.js';
import { entriesFromCsaf } from '../src/modules/intel-ingest/connectors/csaf/csaf.fns.js';
import { entryFromKev, parseKevCatalog } from '../src/modules/intel-ingest/connectors/kev/kev.fns.js';
import { entryFromNvd } from '../src/modules/intel-ingest/connectors/nvd/nvd.fns.js';
import type { IntelEntry } from '../src/modules/intel/entries.js';
import { affectedProductsFrom } from '../src/modules/intel-ingest/pipeline/classify/products.fns.js';

const root = path.join(import.meta.dirname, '..');
const dir = path.join(root, 'test/fixtures/hunt-eval');
const read = (p: string) => JSON.parse(fs.readFileSync(p, 'utf8'));

export interface Label { asset: string; cve: string; source: 'nvd' | 'csaf' | 'kev'; verdict: 'affected' | 'not_affected' | 'unknown'; affectedRange?: string; fixedVersion?: string; advisoryId?: string; reason: string }
export interface SourceScore { source: string; pairs: number; tp: number; fp: number; fn: number; precision: number; recall: number; verdictAccuracy: number; misses: string[] }

/** Every entry of the set, as the connectors parse them. */
function entries(): IntelEntry[] {
  const nvd = [...fs.readdirSync(path.join(dir, 'nvd')).map((f) => read(path.join(dir, 'nvd', f))), ...read(path.join(root, 'test/fixtures/nvd/cves-2.0-CVE-2024-6387.json')).vulnerabilities.map((v: { cve: unknown }) => v.cve)];
  const kev = parseKevCatalog(read(path.join(dir, 'kev/known_exploited_vulnerabilities.json')));
  const csaf = [
    ...entriesFromCsaf(read(path.join(root, 'test/fixtures/csaf/bsi-2022-0001.json')), 'BSI', null),
    ...entriesFromCsaf(read(path.join(dir, 'csaf/rhba-2023_0564.json')), 'Red Hat', null),
  ];
  if (csaf.length === 0) throw new Error('the CSAF documents gave no entries');
  return [...nvd.map((c) => entryFromNvd(c, 'NVD')), ...kev.map((v) => entryFromKev(v, 'CISA')), ...csaf];
}

export function evaluateSources(): { scores: SourceScore[]; labels: Label[] } {
  const labels = read(path.join(dir, 'verdicts.json')) as Label[];
  const inventory = read(path.join(dir, 'inventory.json')) as AssetInput[];
  const software: InventorySoftware[] = inventory.flatMap((a) => a.software.map((s) => ({
    assetId: a.identifier, identifier: a.identifier, kind: a.kind ?? 'host', platform: a.platform ?? null, internetFacing: false, criticality: 'high',
    vendor: s.vendor ?? '', product: s.product, version: s.version ?? null, productKey: softwareKey(s), purl: s.purl ?? null, cpe: s.cpe ?? null,
  })));
  // Linked as the intel pass links: to every CVE the item's text names, and its own.
  const items: ItemEvidence[] = [];
  const cves = new Set<string>();
  entries().forEach((e, n) => {
    const text = `${e.title}\n${e.contentText}`;
    const named = new Set([...text.matchAll(/CVE-\d{4}-\d{4,}/gi)].map((m) => m[0].toUpperCase()));
    if (/^CVE-/i.test(e.vulnerability?.id ?? '')) named.add(e.vulnerability!.id.toUpperCase());
    for (const a of e.vulnerability?.aliases ?? []) if (/^CVE-/i.test(a)) named.add(a.toUpperCase());
    const affectedProducts = affectedProductsFrom({ text, cpes: [] }).map((p) => ({ vendor: p.vendor, product: p.product, versions: p.versions }));
    for (const cve of named) {
      cves.add(cve);
      items.push(itemEvidenceOf({ id: `item-${n}`, threatId: cve, title: e.title, text, publishedAt: null, tags: e.tags, affectedProducts, attack: null, vulnerability: e.vulnerability ?? null, retracted: false }));
    }
  });
  const threats: ThreatForAssessment[] = [...cves].sort().map((cve) => ({ id: cve, canonicalKey: cve, title: cve, latestRunId: null, activeHuntAlertId: null, latestAlertId: null, dismissed: false, prev: null }));
  const itemsByThreat = group(items, (i) => i.threatId);
  const softwareByPurl = group(software.filter((s) => s.purl), (s) => s.purl!);
  const purlsByKey = new Map<string, string[]>();
  for (const p of softwareByPurl.keys()) purlsByKey.set(purlKey(p)!, [...(purlsByKey.get(purlKey(p)!) ?? []), p]);
  const orgKeys = { productKeys: new Set(software.map((s) => s.productKey)), packageOnlyKeys: new Set(software.filter((s) => s.purl).map((s) => s.productKey)), purlsByKey };
  let n = 0;
  const plan = planAssessment({
    organizationId: 'eval', kind: 'create', trigger: 'new_threat', now: new Date('2026-11-29T00:00:00Z'), actorUserId: null, threats, items, itemsByThreat, withdrawnThreats: new Set(),
    advisories: advisoriesOf(threats, itemsByThreat, orgKeys), softwareByKey: group(software, (s) => s.productKey), softwareByPurl,
    indicators: [], sightings: [], detections: [], telemetry: new Set(), settings: DEFAULT_ALERT_SETTINGS, epss: new Map(), newId: () => `run-${++n}`,
  });
  const matchOf = new Map(plan.runs.flatMap((r) => r.matches.map((m) => [`${m.assetIdentifier} ${r.threat_id}`, m] as const)));
  const scores: SourceScore[] = [];
  for (const [source, list] of group(labels, (l) => l.source)) {
    let tp = 0, fp = 0, fn = 0, right = 0;
    const misses: string[] = [];
    for (const l of list) {
      const m = matchOf.get(`${l.asset} ${l.cve}`);
      const got = m?.verdict ?? 'none';
      if (got === 'affected' && l.verdict === 'affected') tp++;
      else if (got === 'affected') fp++;
      else if (l.verdict === 'affected') fn++;
      const fields = [
        l.affectedRange !== undefined && m?.affectedRange !== l.affectedRange ? `affectedRange ${m?.affectedRange} (want ${l.affectedRange})` : '',
        l.fixedVersion !== undefined && m?.fixedVersion !== l.fixedVersion ? `fixedVersion ${m?.fixedVersion} (want ${l.fixedVersion})` : '',
        m && m.evidence === source && m.advisoryId !== (l.advisoryId ?? (source === 'csaf' ? m.advisoryId : l.cve)) ? `advisoryId ${m.advisoryId}` : '',
        m && m.evidence !== source ? `evidence ${m.evidence} (want ${source})` : '',
      ].filter(Boolean);
      if (got === l.verdict && fields.length === 0) right++;
      else misses.push(`${l.asset} ${l.cve}: ${got}${fields.length ? `, ${fields.join(', ')}` : ''} — labelled ${l.verdict}: ${l.reason}`);
    }
    scores.push({ source, pairs: list.length, tp, fp, fn, precision: tp + fp ? tp / (tp + fp) : 1, recall: tp + fn ? tp / (tp + fn) : 1, verdictAccuracy: right / list.length, misses });
  }
  return { scores, labels };
}
