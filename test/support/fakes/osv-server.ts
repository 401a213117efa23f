import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { zipSync, strToU8 } from 'fflate';
import { startServer } from './http-server.js';

/**
 * An OSV mirror as osv.dev serves its exports: `/<ecosystem>/all.zip` (one `<id>.json` per
 * record, as OSV's per-ecosystem all.zip), plus the same records as a JSON array and as NDJSON.
 * ETag on every answer; a matching If-None-Match gets 304.
 */
export async function startFakeOsv(records: unknown[]) {
  let current = records;
  // A digest of the content: a revision that keeps every length (a `fixed` 2.15.0 → 2.16.0) is a new ETag.
  const etag = () => `"${createHash('sha256').update(JSON.stringify(current)).digest('hex').slice(0, 16)}-${current.length}"`;
  const server = await startServer((req, res) => {
    if (req.headers['if-none-match'] === etag()) {
      res.statusCode = 304;
      return res.end();
    }
    res.setHeader('etag', etag());
    const url = req.url.split('?')[0]!;
    if (url.endsWith('/all.zip')) {
      const files = Object.fromEntries(current.map((r) => [`${(r as { id: string }).id}.json`, strToU8(JSON.stringify(r, null, 2))]));
      res.setHeader('content-type', 'application/zip');
      return res.end(Buffer.from(zipSync(files)));
    }
    if (url.endsWith('.ndjson')) return res.end(current.map((r) => JSON.stringify(r)).join('\n') + '\n');
    if (url.endsWith('.json')) return res.end(JSON.stringify(current));
    res.statusCode = 404;
    res.end('not found');
  });
  return { ...server, setRecords: (r: unknown[]) => void (current = r) };
}

export function osvFixture(name: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../fixtures/osv', name), 'utf8'));
}

/** The GitHub Advisory Database's OSV records kept under test/fixtures/osv (log4shell among them). */
export function githubAdvisoryRecords(): Array<Record<string, any>> {
  return osvFixture('github-advisory-database.osv.json') as Array<Record<string, any>>;
}

/** An asset running log4j-core 2.15.0, as POST /api/assets takes it (the log4shell record's revised range). */
export const LOG4J_ASSET = { identifier: 'billing-api', kind: 'application', internetFacing: true, criticality: 'high', software: [{ vendor: 'Apache', product: 'log4j-core', version: '2.15.0', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.15.0' }] };
