import { promisify } from 'node:util';
import { inflateRaw, inflateRawSync, type ZlibOptions } from 'node:zlib';
import { ConnectorParseError } from '../connector.js';

/**
 * The members of a zip, read through its central directory: each member's sizes and offset
 * come from the directory at the end of the file, its bytes are read where its local header
 * says and inflated by zlib. Why not a streaming unzip of the bytes in order (fflate's Unzip,
 * used before): members written with a data descriptor (sizes after the data, as streaming zip
 * writers do) made it scan every byte for the next signature, and its JavaScript inflate grew
 * its output buffer step by step; reading an OSV export that way was a fifth of a sync's CPU
 * (docs/performance.md). A downloaded export is a file: random access is free.
 *
 * `source.read(position, length)` returns those bytes (a view is fine); reads are sequential
 * in practice (directory order is file order), so a file-backed source reads in large windows.
 * Memory holds a window and one member, never the archive. ZIP64 archives (more than 65,535
 * members, as OSV's exports have) are read; encrypted members and methods other than stored
 * and deflate are refused.
 */
export interface ZipSource {
  size: number;
  read(position: number, length: number): Buffer;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_COMMENT = 0xffff;
/** One OSV record is a few kB (the largest real ones, a few hundred): a member above this is refused. */
const MAX_MEMBER_BYTES = 64 * 1024 * 1024;

const inflateRawAsync = promisify(inflateRaw) as (buf: Buffer, options: ZlibOptions) => Promise<Buffer>;

const fail = (why: string) => new ConnectorParseError(`The OSV zip could not be read: ${why}`);

/** A member as the central directory describes it: nothing inflated yet. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  compressedSize: number;
  /** The inflated size the directory declares (inflation never goes past it). */
  size: number;
  /** Where the member's data starts in the file. */
  dataStart: number;
}

/**
 * Every member of the zip, in directory order, without inflating any: the caller decides
 * (by name, by the sizes declared) which to inflate. Refused before the first is yielded: two
 * directory entries whose members overlap or share a local header (the "one member listed N
 * times" bomb: N × the member's inflated size for the price of one), encrypted members and
 * unknown methods, a member past the end of the file or above MAX_MEMBER_BYTES.
 */
export function* zipEntries(source: ZipSource): Generator<ZipEntry> {
  const { offset, size } = centralDirectory(source);
  assertNoOverlap(directory(source, offset, size));
  yield* memberEntries(source, directory(source, offset, size));
}

/**
 * The members the given directory entries describe, checked as zipEntries checks them (each
 * member's local header is read from `source`). A sharded OSV sync (osv-shards.connector.ts)
 * reads its slice of the directory this way, with only its members' bytes downloaded.
 */
export function* memberEntries(source: ZipSource, entries: Iterable<DirectoryEntry>): Generator<ZipEntry> {
  for (const d of entries) {
    const { name } = d;
    if (name.endsWith('/')) continue; // a directory
    if (d.flags & 1) throw fail(`${name} is encrypted`);
    if (d.method !== 0 && d.method !== 8) throw fail(`${name} uses compression method ${d.method} (only stored and deflate are read)`);
    const lh = source.read(d.local, 30);
    if (lh.readUInt32LE(0) !== LOCAL) throw fail(`the local header of ${name} is damaged`);
    const dataStart = d.local + 30 + lh.readUInt16LE(26) + lh.readUInt16LE(28);
    if (dataStart + d.compressed > source.size) throw fail(`${name} extends past the end of the file`);
    if (d.uncompressed > MAX_MEMBER_BYTES || d.compressed > MAX_MEMBER_BYTES) throw fail(`${name} is larger than ${MAX_MEMBER_BYTES / 1024 / 1024} MB`);
    yield { name, method: d.method, compressedSize: d.compressed, size: d.method === 0 ? d.compressed : d.uncompressed, dataStart };
  }
}

/** The member's bytes as stored (deflated for method 8): a view, valid until the next read. */
export function storedBytes(source: ZipSource, e: ZipEntry): Buffer {
  return source.read(e.dataStart, e.compressedSize);
}

/** The member inflated at once (a zip held in memory: tests and small documents). */
export function inflateSync(source: ZipSource, e: ZipEntry): Buffer {
  const raw = storedBytes(source, e);
  if (e.method === 0) return raw;
  let data: Buffer;
  try {
    // Never more than the directory says (a member lying about its size is an error, not a bomb).
    data = inflateRawSync(raw, { maxOutputLength: Math.max(1, e.size) });
  } catch (err) {
    throw fail(`${e.name}: ${(err as Error).message}`);
  }
  return checked(e, data);
}

/** Inflation's output step: the event loop turns between steps (timers, heartbeats, other jobs). */
export const INFLATE_CHUNK_BYTES = 256 * 1024;

/**
 * A member larger than one step inflated on libuv's thread pool, INFLATE_CHUNK_BYTES of output per step, each
 * step a callback: a 64 MB member never holds the event loop (the sync one held it for
 * hundreds of milliseconds per member). The stored bytes are copied first: the source's view
 * is only valid until its next read.
 */
export async function inflate(source: ZipSource, e: ZipEntry): Promise<Buffer> {
  // A member of one step (every real OSV record: a few kB) is inflated at once, which costs
  // less than the thread-pool round trip; the loop turns between records anyway (batches are stored).
  if (e.method === 0 || e.size <= INFLATE_CHUNK_BYTES) return inflateSync(source, e);
  const raw = Buffer.from(storedBytes(source, e));
  let data: Buffer;
  try {
    data = await inflateRawAsync(raw, { maxOutputLength: Math.max(1, e.size), chunkSize: INFLATE_CHUNK_BYTES });
  } catch (err) {
    throw fail(`${e.name}: ${(err as Error).message}`);
  }
  return checked(e, data);
}

function checked(e: ZipEntry, data: Buffer): Buffer {
  if (data.length !== e.size) throw fail(`${e.name} inflates to ${data.length} bytes, not ${e.size}`);
  return data;
}

/** Each member inflated at once, in order, directories skipped (a zip held in memory). */
export function* zipMembers(source: ZipSource): Generator<{ name: string; data: Buffer }> {
  for (const e of zipEntries(source)) yield { name: e.name, data: inflateSync(source, e) };
}

export interface DirectoryEntry {
  name: string;
  /** Where this entry starts in the central directory, and where the next one does. */
  at: number;
  next: number;
  flags: number;
  method: number;
  compressed: number;
  uncompressed: number;
  local: number;
  nameLength: number;
}

/** The central directory's entries, as written (ZIP64 sizes and offsets resolved). */
export function* directory(source: ZipSource, offset: number, size: number): Generator<DirectoryEntry> {
  const end = offset + size;
  let at = offset;
  while (at + 46 <= end) {
    const h = source.read(at, 46);
    if (h.readUInt32LE(0) !== CENTRAL) throw fail('a central directory entry is damaged');
    const flags = h.readUInt16LE(8);
    const method = h.readUInt16LE(10);
    let compressed = h.readUInt32LE(20);
    let uncompressed = h.readUInt32LE(24);
    const nameLength = h.readUInt16LE(28);
    const extraLength = h.readUInt16LE(30);
    const commentLength = h.readUInt16LE(32);
    let local = h.readUInt32LE(42);
    const rest = source.read(at + 46, nameLength + extraLength);
    const name = rest.toString(flags & 0x800 ? 'utf8' : 'latin1', 0, nameLength);
    if (compressed === 0xffffffff || uncompressed === 0xffffffff || local === 0xffffffff) {
      // ZIP64 extra field (0x0001): the 64-bit values, in this order, of the fields that overflowed.
      const z = zip64Extra(rest.subarray(nameLength));
      let k = 0;
      if (uncompressed === 0xffffffff) uncompressed = z[k++] ?? uncompressed;
      if (compressed === 0xffffffff) compressed = z[k++] ?? compressed;
      if (local === 0xffffffff) local = z[k++] ?? local;
    }
    const next = at + 46 + nameLength + extraLength + commentLength;
    yield { name, at, next, flags, method, compressed, uncompressed, local, nameLength };
    at = next;
  }
}

/**
 * Every member's extent — at least its local header, name and data — is disjoint from the
 * others'. Writers list members in file order, so the usual check is against the previous
 * member; a directory out of file order is sorted first (two numbers per member).
 */
export function assertNoOverlap(entries: Iterable<DirectoryEntry>): void {
  const spans: Array<{ name: string; from: number; to: number }> = [];
  let sorted = true;
  for (const d of entries) {
    if (d.name.endsWith('/') && d.compressed === 0) continue;
    const span = { name: d.name, from: d.local, to: d.local + 30 + d.nameLength + d.compressed };
    if (spans.length && span.from < spans[spans.length - 1]!.from) sorted = false;
    spans.push(span);
  }
  if (!sorted) spans.sort((a, b) => a.from - b.from);
  for (let i = 1; i < spans.length; i++) {
    const [a, b] = [spans[i - 1]!, spans[i]!];
    if (b.from < a.to) throw fail(`${b.name} and ${a.name} overlap (${b.from === a.from ? 'the same local header' : `byte ${b.from}`}): a zip that lists a member twice is refused`);
  }
}

/** Where the central directory is and how long: from the end record (ZIP64's when present). */
export function centralDirectory(source: ZipSource): { offset: number; size: number } {
  const tailLength = Math.min(source.size, 22 + MAX_COMMENT + 20);
  const tail = source.read(source.size - tailLength, tailLength);
  let e = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD && i + 22 + tail.readUInt16LE(i + 20) <= tail.length) {
      e = i;
      break;
    }
  }
  if (e < 0) throw fail('no end of central directory (a truncated download?)');
  let size = tail.readUInt32LE(e + 12);
  let offset = tail.readUInt32LE(e + 16);
  if (e >= 20 && tail.readUInt32LE(e - 20) === ZIP64_LOCATOR) {
    const recordAt = Number(tail.readBigUInt64LE(e - 20 + 8));
    const record = source.read(recordAt, 56);
    if (record.readUInt32LE(0) !== ZIP64_EOCD) throw fail('the ZIP64 end of central directory is damaged');
    size = Number(record.readBigUInt64LE(40));
    offset = Number(record.readBigUInt64LE(48));
  }
  if (offset + size > source.size) throw fail('the central directory lies past the end of the file (a truncated download?)');
  return { offset, size };
}

function zip64Extra(extra: Buffer): number[] {
  for (let i = 0; i + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(i);
    const length = extra.readUInt16LE(i + 2);
    if (id === 0x0001) {
      const out: number[] = [];
      for (let k = i + 4; k + 8 <= i + 4 + length && k + 8 <= extra.length; k += 8) out.push(Number(extra.readBigUInt64LE(k)));
      return out;
    }
    i += 4 + length;
  }
  return [];
}

/** A zip held in memory. */
export function bufferSource(body: Buffer): ZipSource {
  return { size: body.length, read: (position, length) => body.subarray(position, position + length) };
}
