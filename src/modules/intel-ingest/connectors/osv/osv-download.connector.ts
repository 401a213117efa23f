import fs from 'node:fs';
import readline from 'node:readline';
import { ConnectorParseError } from '../connector.js';
import { DEFAULT_MAX_INFLATED_BYTES, forEachOsvRecord, isZip, osvRecordsInZipAsync, parseJson } from './osv.fns.js';
import type { ZipSource } from './zip.fns.js';

/** Documents other than a zip or NDJSON are parsed whole: up to this size. */
export const MAX_WHOLE_DOCUMENT_BYTES = 128 * 1024 * 1024;

/**
 * Each record of an OSV download saved in a file, streamed: a zip member by member through its
 * central directory (zip.fns.ts, the file read in 4 MB windows; `.json` members only, inflated
 * off the event loop, at most `maxInflatedBytes` in all), NDJSON line by line; a JSON
 * array or one record (smaller than MAX_WHOLE_DOCUMENT_BYTES) is parsed whole.
 */
export async function* osvRecordsInFile(file: string, maxInflatedBytes = DEFAULT_MAX_INFLATED_BYTES): AsyncGenerator<unknown> {
  const handle = await fs.promises.open(file);
  let head: Buffer;
  let size: number;
  try {
    const read = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    head = read.buffer.subarray(0, read.bytesRead);
    size = (await handle.stat()).size;
  } finally {
    await handle.close();
  }
  if (isZip(head)) {
    const fd = await fs.promises.open(file);
    try {
      yield* osvRecordsInZipAsync(fileSource(fd.fd, size), maxInflatedBytes);
    } finally {
      await fd.close();
    }
    return;
  }
  const text = head.toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (size > MAX_WHOLE_DOCUMENT_BYTES && text.startsWith('{')) {
    let n = 0;
    for await (const line of readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })) {
      n++;
      if (line.trim()) yield parseJson(line.replace(/^\uFEFF/, ''), `line ${n}`);
    }
    return;
  }
  if (size > MAX_WHOLE_DOCUMENT_BYTES) throw new ConnectorParseError(`The OSV document is larger than ${MAX_WHOLE_DOCUMENT_BYTES / 1024 / 1024} MB and neither a zip nor NDJSON`);
  const ready: unknown[] = [];
  forEachOsvRecord(await fs.promises.readFile(file), (r) => ready.push(r));
  yield* ready;
}

const WINDOW = 4 * 1024 * 1024;

/**
 * A file read in windows of WINDOW bytes. Two windows are kept: the central directory's and
 * the members' (read alternately, each sequentially). A window is a fresh buffer, so views
 * handed out earlier stay valid. `base`: the zip's offset of the file's first byte (a shard's
 * download of one byte range of the zip); `size` is then the zip's, not the file's.
 */
export function fileSource(fd: number, size: number, base = 0): ZipSource {
  const windows: Array<{ start: number; bytes: Buffer }> = [];
  return {
    size,
    read(position, length) {
      const hit = windows.find((w) => position >= w.start && position + length <= w.start + w.bytes.length);
      if (hit) {
        if (windows[0] !== hit) windows.reverse(); // most recently used first
        return hit.bytes.subarray(position - hit.start, position - hit.start + length);
      }
      const bytes = Buffer.allocUnsafe(Math.min(Math.max(WINDOW, length), Math.max(0, size - position)));
      let got = 0;
      while (got < bytes.length) {
        const n = fs.readSync(fd, bytes, got, bytes.length - got, position - base + got);
        if (n === 0) break;
        got += n;
      }
      windows.unshift({ start: position, bytes: bytes.subarray(0, got) });
      windows.length = Math.min(windows.length, 2);
      return bytes.subarray(0, Math.min(length, got));
    },
  };
}

