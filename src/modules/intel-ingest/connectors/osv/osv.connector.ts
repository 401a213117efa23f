import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConnectorError, type Connector, type ConnectorLimits, type FetchResult, type SourceConfig } from '../connector.js';
import type { IntelEntry } from '../../../intel/index.js';
import { entryFromOsv } from './osv.fns.js';
import { osvRecordsInFile } from './osv-download.connector.js';

/** The largest OSV download read (npm's all.zip is ~60 MB, every ecosystem together ~1 GB). */
const MAX_BYTES = 2 * 1024 * 1024 * 1024;
/** Entries handed to the sync at a time: each batch is stored before the next is read. */
const BATCH = 1000;

/**
 * An OSV source: `serverUrl` is a zip of OSV records (the layout of OSV's per-ecosystem
 * `all.zip`, e.g. https://osv-vulnerabilities.storage.googleapis.com/npm/all.zip), a JSON array
 * of records, or NDJSON — a mirror on the local network works the same (docs/hunt.md).
 * Conditional requests (ETag / Last-Modified) make an unchanged export cost one 304. The
 * download goes to a temporary file and is read back as a stream, record by record, in batches
 * the sync stores one after the other: memory stays flat whatever the export's size. Every
 * record is read, up to `maxEntries` (an optional cap; in the export's order).
 */
export const osvConnector: Connector = {
  async fetch(source, state, http, limits) {
    if (!source.serverUrl) throw new ConnectorError('An OSV source needs serverUrl (a zip, JSON array or NDJSON of OSV records)');
    const headers: Record<string, string> = { accept: 'application/zip, application/json, application/x-ndjson' };
    if (source.apiKey) headers.authorization = `Bearer ${source.apiKey}`;
    if (state.etag) headers['if-none-match'] = state.etag;
    if (state.lastModified) headers['if-modified-since'] = state.lastModified;
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'rampart-osv-'));
    const dispose = () => fs.promises.rm(dir, { recursive: true, force: true });
    const file = path.join(dir, 'export');
    try {
      const res = await http.request(source.serverUrl, { headers, maxResponseBytes: MAX_BYTES, timeoutMs: 600_000, saveTo: file });
      if (res.status === 304) {
        await dispose();
        return { status: 'not_modified', entries: [], etag: state.etag, lastModified: state.lastModified };
      }
      if (res.status >= 400) throw new ConnectorError(`The OSV source answered HTTP ${res.status} for ${res.url}`);
      return osvDownloadResult(file, source, dispose, res.headers, limits);
    } catch (err) {
      await dispose();
      throw err;
    }
  },
};

/**
 * OSV records → the sync's batches of entries, up to `maxEntries` (a sharded sync's shard reads
 * its records the same way). With `settledRecords`, records the store holds unchanged are skipped unbuilt.
 */
export function osvEntryBatches(records: AsyncIterable<unknown>, source: Pick<SourceConfig, 'displayName' | 'maxEntries'>, settledRecords?: ConnectorLimits['settledRecords']): AsyncGenerator<IntelEntry[]> {
  return settledRecords ? batchesSkippingSettled(records, source, settledRecords) : batches(records, source);
}

async function* batches(records: AsyncIterable<unknown>, source: Pick<SourceConfig, 'displayName' | 'maxEntries'>): AsyncGenerator<IntelEntry[]> {
  let batch: IntelEntry[] = [];
  let read = 0;
  for await (const record of records) {
    const e = entryFromOsv(record, source.displayName);
    if (!e) continue;
    batch.push(e);
    if (++read >= source.maxEntries) break;
    if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

/** A record's id and `modified` as the store compares them, read without building its entry (null: not comparable). */
function idAndModified(record: unknown): { id: string; modified: string } | null {
  if (!record || typeof record !== 'object') return null;
  const { id, modified } = record as { id?: unknown; modified?: unknown };
  if (typeof id !== 'string' || typeof modified !== 'string' || Number.isNaN(Date.parse(modified))) return null;
  return { id, modified };
}

/**
 * The batches of an export whose records the store may already hold (a re-sync): a batch's
 * records are read as parsed JSON, the store is asked once for the batch by id and `modified`,
 * and only the others become entries (`entryFromOsv`: text, tags, the structured record). A
 * skipped record counts toward `maxEntries` like a built one: the cap stays in the export's order.
 */
async function* batchesSkippingSettled(records: AsyncIterable<unknown>, source: Pick<SourceConfig, 'displayName' | 'maxEntries'>, settledRecords: NonNullable<ConnectorLimits['settledRecords']>): AsyncGenerator<IntelEntry[]> {
  let pending: unknown[] = [];
  let read = 0;
  const build = async (): Promise<IntelEntry[]> => {
    const keys = pending.map(idAndModified);
    const settled = await settledRecords(keys.filter((k): k is { id: string; modified: string } => k !== null));
    const out: IntelEntry[] = [];
    for (let i = 0; i < pending.length && read < source.maxEntries; i++) {
      const k = keys[i];
      if (k && settled.has(k.id)) {
        read++;
        continue;
      }
      const e = entryFromOsv(pending[i], source.displayName);
      if (!e) continue;
      out.push(e);
      read++;
    }
    pending = [];
    return out;
  };
  for await (const record of records) {
    pending.push(record);
    if (pending.length < BATCH) continue;
    const out = await build();
    if (out.length) yield out;
    if (read >= source.maxEntries) return;
  }
  if (pending.length) {
    const out = await build();
    if (out.length) yield out;
  }
}

/** The result of a download already saved in `file` (a server that answered a sharded sync's Range request with the whole export). */
export function osvDownloadResult(file: string, source: SourceConfig, dispose: () => Promise<void>, headers: Record<string, string>, limits?: ConnectorLimits): FetchResult {
  const batches = osvEntryBatches(osvRecordsInFile(file, limits?.maxInflatedBytes), source, limits?.settledRecords);
  return { status: 'ok', entries: [], batches, dispose, etag: headers.etag ?? null, lastModified: headers['last-modified'] ?? null };
}
