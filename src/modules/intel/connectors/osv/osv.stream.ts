import fs from 'node:fs';
import readline from 'node:readline';
import { ConnectorParseError } from '../types.js';
import { forEachOsvRecord, isZip, osvZipReader, parseJson } from './osv.fns.js';

/** Documents other than a zip or NDJSON are parsed whole: up to this size. */
export const MAX_WHOLE_DOCUMENT_BYTES = 128 * 1024 * 1024;

/**
 * Each record of an OSV download saved in a file, streamed: a zip is read in 1 MB chunks,
 * NDJSON line by line; a JSON array or one record (smaller than MAX_WHOLE_DOCUMENT_BYTES) is
 * parsed whole.
 */
export async function* osvRecordsInFile(file: string): AsyncGenerator<unknown> {
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
  const ready: unknown[] = [];
  if (isZip(head)) {
    const zip = osvZipReader((r) => ready.push(r));
    for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) {
      zip.push(chunk as Buffer, false);
      yield* ready.splice(0);
    }
    zip.push(new Uint8Array(0), true);
    yield* ready.splice(0);
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
  forEachOsvRecord(await fs.promises.readFile(file), (r) => ready.push(r));
  yield* ready;
}

