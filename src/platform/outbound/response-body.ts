import fs from 'node:fs';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';

/** Thrown (internally) when a body passes the cap; the client turns it into an OutboundError. */
export class BodyTooLarge extends Error {}

/**
 * Reads a response body into memory, decoding Content-Encoding, never holding more than
 * `limit` bytes: the count runs on the bytes received AND on the decoded bytes, so a small
 * gzip bomb is stopped at the cap instead of inflating into gigabytes. Crossing the cap
 * destroys the whole pipeline, which closes the connection instead of draining it.
 *
 * Unknown encodings are returned as received (the caller asked for them, or the server
 * ignored Accept-Encoding); the caller sees the raw bytes rather than a spurious error.
 */
export async function readBody(body: Readable, contentEncoding: string | undefined, limit: number, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let decoded = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      decoded += chunk.length;
      if (decoded > limit) return cb(new BodyTooLarge());
      chunks.push(chunk);
      cb();
    },
  });
  await pipeline([body, counter(limit), ...decoders(contentEncoding), sink], { signal });
  return Buffer.concat(chunks);
}

/**
 * The same, written to a file instead of memory (large downloads read afterwards as a stream:
 * OSV's all.zip). The caps are the same; the caller owns the file and deletes it.
 */
export async function writeBodyToFile(body: Readable, contentEncoding: string | undefined, limit: number, signal: AbortSignal, file: string): Promise<void> {
  let decoded = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      decoded += chunk.length;
      cb(decoded > limit ? new BodyTooLarge() : null, chunk);
    },
  });
  await pipeline([body, counter(limit), ...decoders(contentEncoding), cap, fs.createWriteStream(file)], { signal });
}

function counter(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      cb(seen > limit ? new BodyTooLarge() : null, chunk);
    },
  });
}

// Flushing (rather than finishing) at the end tolerates the empty bodies servers send with
// Content-Encoding on HEAD/204/304, the way browsers and curl do.
const ZLIB = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI = { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH };

/** Decoders in the order to apply them: the last listed coding was applied last, so goes first. */
function decoders(contentEncoding: string | undefined): Transform[] {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  const out: Transform[] = [];
  for (const coding of codings.reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') out.push(zlib.createGunzip(ZLIB));
    else if (coding === 'deflate') out.push(zlib.createInflate(ZLIB));
    else if (coding === 'br') out.push(zlib.createBrotliDecompress(BROTLI));
    else return []; // Something we cannot undo: hand back the bytes as they came.
  }
  return out;
}

/** Body text per the Content-Type charset (WHATWG labels), UTF-8 when absent or unknown. */
export function decodeText(body: Buffer, contentType: string | undefined): string {
  const label = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(label ?? 'utf-8').decode(body);
  } catch {
    // An unknown label (RangeError): UTF-8 is the likeliest truth.
    return new TextDecoder('utf-8').decode(body);
  }
}
