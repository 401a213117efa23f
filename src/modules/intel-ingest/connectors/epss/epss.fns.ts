import { gunzipSync } from 'node:zlib';
import type { EpssScores } from '../../../intel/index.js';
import { ConnectorParseError } from '../connector.js';

/**
 * FIRST's EPSS scores CSV (https://epss.cyentia.com/epss_scores-current.csv.gz, gzip or plain):
 * a `#model_version:v2023.03.01,score_date:2026-11-24T00:00:00+0000` comment line, the header
 * `cve,epss,percentile`, then one row per CVE, read into intel's `EpssScores`. Pure, no I/O.
 */
export type { EpssScores };

export function parseEpss(body: Buffer): EpssScores {
  let text: string;
  try {
    text = (body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body, { maxOutputLength: 512 * 1024 * 1024 }) : body).toString('utf8');
  } catch {
    throw new ConnectorParseError('The EPSS file is not a readable gzip');
  }
  let modelVersion: string | null = null;
  let scoreDate: string | null = null;
  let header: string[] | null = null;
  const rows: EpssScores['rows'] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith('#')) {
      for (const part of line.slice(1).split(',')) {
        const [k, ...v] = part.split(':');
        if (k?.trim() === 'model_version') modelVersion = v.join(':').trim() || null;
        if (k?.trim() === 'score_date') scoreDate = v.join(':').trim().slice(0, 10) || null;
      }
      continue;
    }
    const cells = line.split(',').map((c) => c.trim());
    if (!header) {
      header = cells.map((c) => c.toLowerCase());
      if (!header.includes('cve') || !header.includes('epss')) throw new ConnectorParseError('The EPSS file has no "cve,epss,percentile" header');
      continue;
    }
    const cve = cells[header.indexOf('cve')]?.toUpperCase() ?? '';
    const epss = Number(cells[header.indexOf('epss')]);
    const percentile = Number(cells[header.indexOf('percentile')]);
    if (/^CVE-\d{4}-\d{4,}$/.test(cve) && epss >= 0 && epss <= 1 && percentile >= 0 && percentile <= 1) rows.push({ cve, epss, percentile });
  }
  if (!header) throw new ConnectorParseError('The EPSS file is empty');
  return { modelVersion, scoreDate, rows };
}
