import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConnectorError, ConnectorParseError, type ConnectorLimits, type FetchResult, type HttpClient, type SourceConfig, type SyncState } from '../connector.js';
import { fileSource } from './osv-download.connector.js';
import { osvDownloadResult } from './osv.connector.js';
import { DEFAULT_MAX_INFLATED_BYTES, isZip, parseJson } from './osv.fns.js';
import { assertNoOverlap, centralDirectory, directory, inflate, memberEntries, type ZipSource } from './zip.fns.js';

/**
 * A sharded OSV sync (docs/intel.md, "Sharded OSV sync"): the zip's central directory says where
 * every member lies, so the export is cut into shards of about `shardRecords` records, each a
 * slice of the directory and the byte range of its members, that separate jobs (on separate
 * workers) download with HTTP Range requests and store in parallel. OSV's bucket serves ranges.
 *
 * The plan costs two small requests: the export's last TAIL bytes (the end-of-directory record;
 * the whole export when it is smaller) with the sync's conditional headers, then the directory
 * (~100 bytes per record). A server that ignores Range answers the first request with the whole
 * export: it is kept and read as one shard, by the job itself, as an unsharded sync reads it.
 */

/** The end of central directory record, its comment and the ZIP64 locator and record: always within this many last bytes. */
const TAIL = 128 * 1024;
/** The largest OSV download read (as the unsharded connector). */
const MAX_BYTES = 2 * 1024 * 1024 * 1024;
const TIMEOUT_MS = 600_000;

/** One shard: where its directory entries and its members lie in the zip, and the export's validators. */
export interface OsvShard {
  shard: number;
  of: number;
  /** The zip's size. */
  size: number;
  directoryFrom: number;
  directoryTo: number;
  /** Its members' bytes (local headers, data, data descriptors): [from, to). */
  from: number;
  to: number;
  etag: string | null;
  lastModified: string | null;
  /**
   * The planned URL's digest (SHA-256, hex): a shard of a source whose URL was changed after the
   * plan fails rather than reading another export's bytes at the plan's offsets. A digest, not the
   * URL: the shard's payload sits in the jobs table, and a URL may carry a credential. Absent from
   * shards planned before 2026-11-30 (not checked).
   */
  urlDigest?: string;
}

const urlDigest = (url: string) => createHash('sha256').update(url).digest('hex');

export type OsvSyncPlan = { kind: 'shards'; shards: OsvShard[] } | { kind: 'result'; result: FetchResult } | { kind: 'unsharded' };

function baseHeaders(source: SourceConfig): Record<string, string> {
  // identity: a byte range of the stored object, never of a compressed rendition of it.
  const headers: Record<string, string> = { accept: 'application/zip, application/json, application/x-ndjson', 'accept-encoding': 'identity' };
  if (source.apiKey) headers.authorization = `Bearer ${source.apiKey}`;
  return headers;
}

function contentRange(header: string | undefined): { start: number; end: number; total: number } | null {
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header?.trim() ?? '');
  return m ? { start: Number(m[1]), end: Number(m[2]), total: Number(m[3]) } : null;
}

/**
 * The sync's plan: shards; or a result already in hand (304, or a server that sent the whole
 * export); or `unsharded` — the export is not a zip, its directory is not in file order, or
 * `maxEntries` is below its record count (the cap reads records in the export's order) — and
 * the connector fetches it as before.
 */
export async function planOsvSync(source: SourceConfig, state: SyncState, http: HttpClient, opts: { shardRecords: number } & ConnectorLimits): Promise<OsvSyncPlan> {
  if (!source.serverUrl) throw new ConnectorError('An OSV source needs serverUrl (a zip, JSON array or NDJSON of OSV records)');
  const headers: Record<string, string> = { ...baseHeaders(source), range: `bytes=-${TAIL}` };
  if (state.etag) headers['if-none-match'] = state.etag;
  if (state.lastModified) headers['if-modified-since'] = state.lastModified;
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'rampart-osv-'));
  const dispose = () => fs.promises.rm(dir, { recursive: true, force: true });
  let keep = false;
  try {
    const res = await http.request(source.serverUrl, { headers, maxResponseBytes: MAX_BYTES, timeoutMs: TIMEOUT_MS, saveTo: path.join(dir, 'export') });
    if (res.status === 304) return { kind: 'result', result: { status: 'not_modified', entries: [], etag: state.etag, lastModified: state.lastModified } };
    if (res.status === 416) return { kind: 'unsharded' }; // an empty document: the connector says what is wrong with it
    if (res.status >= 400) throw new ConnectorError(`The OSV source answered HTTP ${res.status} for ${res.url}`);
    const range = contentRange(res.headers['content-range']);
    if (res.status !== 206 || !range || range.start === 0) {
      // The whole export (no Range support, or smaller than the tail): read here, as one shard.
      keep = true;
      return { kind: 'result', result: osvDownloadResult(path.join(dir, 'export'), source, dispose, res.headers, opts) };
    }
    const tail = await fs.promises.readFile(path.join(dir, 'export'));
    if (tail.length !== range.end - range.start + 1) throw new ConnectorError(`The OSV source sent ${tail.length} bytes for the range ${range.start}-${range.end} of ${res.url}`);
    const validators = { etag: res.headers.etag ?? null, lastModified: res.headers['last-modified'] ?? null };
    const shards = await planShards(source, http, { ...validators, size: range.total, tail, tailStart: range.start, dir }, opts);
    return shards ? { kind: 'shards', shards } : { kind: 'unsharded' };
  } finally {
    if (!keep) await dispose();
  }
}

async function planShards(
  source: SourceConfig,
  http: HttpClient,
  zip: { size: number; tail: Buffer; tailStart: number; etag: string | null; lastModified: string | null; dir: string },
  opts: { shardRecords: number; maxInflatedBytes?: number },
): Promise<OsvShard[] | null> {
  const tailSource: ZipSource = { size: zip.size, read: (p, n) => (p >= zip.tailStart && p + n <= zip.size ? zip.tail.subarray(p - zip.tailStart, p - zip.tailStart + n) : outside()) };
  let cd: { offset: number; size: number };
  try {
    cd = centralDirectory(tailSource);
  } catch (err) {
    if (err instanceof ConnectorParseError && !isZip(zip.tail)) return null; // JSON or NDJSON served with ranges: not a zip at all
    throw err;
  }
  // The directory: within the tail for a small export, else one more range request.
  let fd: fs.promises.FileHandle | null = null;
  try {
    let zipSource = tailSource;
    if (cd.offset < zip.tailStart) {
      const file = path.join(zip.dir, 'directory');
      await fetchRange(http, source.serverUrl!, headersFor(source, zip), { from: cd.offset, to: cd.offset + cd.size, size: zip.size }, file);
      fd = await fs.promises.open(file);
      const dirFile = fileSource(fd.fd, cd.offset + cd.size, cd.offset);
      zipSource = { size: zip.size, read: (p, n) => (p >= cd.offset && p + n <= cd.offset + cd.size ? dirFile.read(p, n) : tailSource.read(p, n)) };
    }
    assertNoOverlap(directory(zipSource, cd.offset, cd.size));
    const maxInflated = opts.maxInflatedBytes ?? DEFAULT_MAX_INFLATED_BYTES;
    const shards: Array<Omit<OsvShard, 'of'>> = [];
    let current: Omit<OsvShard, 'of'> | null = null;
    let inShard = 0;
    let records = 0;
    let inflated = 0;
    let previous = -1;
    for (const d of directory(zipSource, cd.offset, cd.size)) {
      if (d.local < previous) return null; // members out of directory order: not cut into ranges
      previous = d.local;
      const json = d.name.toLowerCase().endsWith('.json') && !d.name.endsWith('/');
      if (!current || (json && inShard >= opts.shardRecords)) {
        if (current) shards.push({ ...current, directoryTo: d.at, to: d.local });
        current = { shard: shards.length, size: zip.size, directoryFrom: d.at, directoryTo: 0, from: d.local, to: 0, etag: zip.etag, lastModified: zip.lastModified, urlDigest: urlDigest(source.serverUrl!) };
        inShard = 0;
      }
      if (!json) continue;
      inShard++;
      records++;
      inflated += d.method === 0 ? d.compressed : d.uncompressed;
      // The declared sizes bind (inflation never goes past them): the whole export is checked here, before any shard runs.
      if (inflated > maxInflated) throw new ConnectorParseError(`The OSV zip inflates to more than ${maxInflated} bytes (at ${d.name}); raise RAMPART_OSV_MAX_INFLATED_BYTES if the export is genuine`);
    }
    if (!current || records === 0 || records > source.maxEntries) return null;
    shards.push({ ...current, directoryTo: cd.offset + cd.size, to: cd.offset });
    return shards.map((s) => ({ ...s, of: shards.length }));
  } finally {
    await fd?.close();
  }
}

function headersFor(source: SourceConfig, validators: { etag: string | null; lastModified: string | null }): Record<string, string> {
  const headers = baseHeaders(source);
  // The export must not change between the plan and a shard's download: a changed one answers 412.
  if (validators.etag) headers['if-match'] = validators.etag;
  else if (validators.lastModified) headers['if-unmodified-since'] = validators.lastModified;
  return headers;
}

const outside = (): never => {
  throw new ConnectorParseError('The OSV zip could not be read: an entry points outside the bytes its shard downloaded');
};

/**
 * Bytes [from, to) of the export, to memory or to `saveTo`: a 206 for exactly that range of an
 * export of the planned size, or an error that says what came instead. The size is the check
 * left when the server sends no validator (no ETag, no Last-Modified): an export replaced by one
 * of another size fails rather than being read at the old offsets.
 */
async function fetchRange(http: HttpClient, url: string, headers: Record<string, string>, want: { from: number; to: number; size: number }, saveTo?: string): Promise<Buffer> {
  const { from, to, size } = want;
  const res = await http.request(url, { headers: { ...headers, range: `bytes=${from}-${to - 1}` }, maxResponseBytes: to - from, timeoutMs: TIMEOUT_MS, ...(saveTo ? { saveTo } : {}) });
  if (res.status === 412) throw new ConnectorError(`The OSV export at ${res.url} changed during the sync (HTTP 412); the next sync reads the new one`);
  if (res.status >= 400) throw new ConnectorError(`The OSV source answered HTTP ${res.status} for ${res.url}`);
  const range = contentRange(res.headers['content-range']);
  if (res.status !== 206 || !range || range.start !== from || range.end !== to - 1) {
    throw new ConnectorError(`The OSV source did not answer the byte range ${from}-${to - 1} of ${res.url} (HTTP ${res.status}${res.headers['content-range'] ? `, ${res.headers['content-range']}` : ''})`);
  }
  if (range.total !== size) throw new ConnectorError(`The OSV export at ${res.url} changed during the sync (${range.total} bytes, the plan read ${size}); the next sync reads the new one`);
  return res.body;
}

/**
 * One shard's records, in the zip's order: its directory slice (in memory: ~100 bytes per record)
 * and its members' bytes (a temporary file, read in windows) downloaded by range, each `.json`
 * member inflated as the unsharded sync inflates it. Memory holds a window and one member.
 */
export async function osvShardRecords(source: SourceConfig, shard: OsvShard, http: HttpClient): Promise<{ records: AsyncIterable<unknown>; dispose: () => Promise<void> }> {
  if (!source.serverUrl) throw new ConnectorError('An OSV source needs serverUrl (a zip, JSON array or NDJSON of OSV records)');
  if (shard.urlDigest && shard.urlDigest !== urlDigest(source.serverUrl)) throw new ConnectorError("The source's URL changed during the sync; the next sync reads the new one");
  const headers = headersFor(source, shard);
  const dirBytes = await fetchRange(http, source.serverUrl, headers, { from: shard.directoryFrom, to: shard.directoryTo, size: shard.size });
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'rampart-osv-shard-'));
  let fd: fs.promises.FileHandle | null = null;
  const dispose = async () => {
    await fd?.close();
    fd = null;
    await fs.promises.rm(dir, { recursive: true, force: true });
  };
  try {
    const file = path.join(dir, 'members');
    if (shard.to > shard.from) await fetchRange(http, source.serverUrl, headers, { from: shard.from, to: shard.to, size: shard.size }, file);
    else await fs.promises.writeFile(file, '');
    fd = await fs.promises.open(file);
    const members = fileSource(fd.fd, shard.to, shard.from);
    const zip: ZipSource = {
      size: shard.size,
      read(p, n) {
        if (p >= shard.directoryFrom && p + n <= shard.directoryTo) return dirBytes.subarray(p - shard.directoryFrom, p - shard.directoryFrom + n);
        if (p >= shard.from && p + n <= shard.to) return members.read(p, n);
        return outside();
      },
    };
    async function* records(): AsyncGenerator<unknown> {
      for (const e of memberEntries(zip, directory(zip, shard.directoryFrom, shard.directoryTo - shard.directoryFrom))) {
        if (!e.name.toLowerCase().endsWith('.json')) continue;
        yield parseJson((await inflate(zip, e)).toString('utf8'), e.name);
      }
    }
    return { records: records(), dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
}
