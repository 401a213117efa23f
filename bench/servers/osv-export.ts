/**
 * The hunt-osv bench's OSV mirror, a child process of the bench: it writes the generated export
 * (bench/support/osv-export.ts, BENCH_OSV_RECORDS records) to BENCH_OSV_FILE and serves it from
 * disk, streamed, with an ETag (no 304: a mirror that ignores If-None-Match). The export, its
 * generation and the serving stay out of the process that runs the sync, so that process's
 * memory is the service's (docs/performance.md, hunt-osv).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeExport } from '../support/osv-export.js';
import { fatal, send, serveIpc } from './ipc.js';

async function main(): Promise<void> {
  const t0 = performance.now();
  const file = process.env.BENCH_OSV_FILE;
  const records = Number(process.env.BENCH_OSV_RECORDS);
  if (!file || !(records > 0)) throw new Error('the OSV export server expects BENCH_OSV_FILE and BENCH_OSV_RECORDS');
  await writeExport(file, records);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/zip', etag: '"bench"', 'content-length': String(fs.statSync(file).size) });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  serveIpc(() => new Promise<void>((r) => server.close(() => r())));
  send({ type: 'listening', port: (server.address() as AddressInfo).port, startupMs: performance.now() - t0 });
}

main().catch(fatal);
