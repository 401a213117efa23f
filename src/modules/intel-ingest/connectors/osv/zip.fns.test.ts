import { describe, expect, it } from 'vitest';
import { Zip, ZipDeflate, ZipPassThrough, zipSync, strToU8 } from 'fflate';
import { bufferSource, zipMembers } from './zip.fns.js';

const names = (zip: Uint8Array) => [...zipMembers(bufferSource(Buffer.from(zip)))].map((m) => `${m.name}=${m.data.toString()}`);

/** A zip as streaming writers make it: sizes in a data descriptor after each member's data. */
function streamed(files: Array<[string, string, 'deflate' | 'store']>): Buffer {
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    if (err) throw err;
    parts.push(data);
  });
  for (const [name, text, how] of files) {
    const f = how === 'deflate' ? new ZipDeflate(name, { level: 6 }) : new ZipPassThrough(name);
    zip.add(f);
    f.push(strToU8(text), true);
  }
  zip.end();
  return Buffer.concat(parts);
}

describe('zip members through the central directory', () => {
  it('reads stored and deflated members, in order, skipping directories', () => {
    expect(names(zipSync({ 'a.json': [strToU8('{"a":1}'), { level: 0 }], 'dir/': {}, 'b.json': strToU8('{"b":2}'.repeat(50)) }))).toEqual(['a.json={"a":1}', `b.json=${'{"b":2}'.repeat(50)}`]);
  });
  it('reads members whose sizes are in a data descriptor (streaming writers)', () => {
    const zip = streamed([['x.json', 'x'.repeat(5000), 'deflate'], ['y.json', '{"y":true}', 'store']]);
    expect(names(zip)).toEqual([`x.json=${'x'.repeat(5000)}`, 'y.json={"y":true}']);
  });
  it('reads more than 65,535 members', () => {
    const files = Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`${i}.json`, strToU8(String(i))]));
    const members = [...zipMembers(bufferSource(Buffer.from(zipSync(files, { level: 0 }))))];
    expect(members).toHaveLength(70_000);
    expect(members.at(-1)!.data.toString()).toBe('69999');
  }, 60_000); // 70,000 members built by fflate: seconds on a loaded CI machine, past the default 20 s once
  it('says what is wrong with a damaged or truncated zip', () => {
    const zip = Buffer.from(zipSync({ 'a.json': strToU8('{"a":1}'.repeat(100)) }));
    expect(() => [...zipMembers(bufferSource(zip.subarray(0, zip.length - 10)))]).toThrow('The OSV zip could not be read: no end of central directory (a truncated download?)');
    const damaged = Buffer.from(zip);
    damaged.fill(0xff, 37, 44); // inside the deflated data (it starts at 36)
    expect(() => [...zipMembers(bufferSource(damaged))]).toThrow(/^The OSV zip could not be read: a\.json/);
    // A member inflating to more than its directory entry says is refused, not inflated whole.
    const lying = Buffer.from(zip);
    lying.writeUInt32LE(5, lying.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 24);
    expect(() => [...zipMembers(bufferSource(lying))]).toThrow(/^The OSV zip could not be read: a\.json: /);
  });
});
