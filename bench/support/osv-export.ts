/**
 * The OSV export the hunt-osv and ingest-scale benches sync: records generated from their index
 * (same bytes on every run) and written as a zip laid out as OSV's all.zip. Kept apart from the
 * benches so the export's server child (bench/servers/osv-export.ts) loads this and nothing of the
 * service.
 *
 * Records: 20,000 npm packages (`bench-pkg-N`), 10 advisories each, two SEMVER ranges, a CVE
 * alias, summary and details of a real record's length.
 */
import fs from 'node:fs';
import { Zip, ZipDeflate, strToU8 } from 'fflate';

export const PACKAGES = 20_000;
const DETAILS = 'A remote attacker can send a crafted request that makes the parser allocate memory without bound, which exhausts the process and denies service to every other client. Upgrade to the fixed version; there is no workaround. '.repeat(3);

export function record(i: number): Record<string, unknown> {
  const pkg = `bench-pkg-${i % PACKAGES}`;
  const major = 1 + (i % 7);
  return {
    schema_version: '1.6.0', id: `GHSA-bnch-${i.toString(36).padStart(4, '0')}-osv0`, modified: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(), published: '2025-06-01T00:00:00Z',
    aliases: [`CVE-2026-${100000 + i}`], summary: `Unbounded allocation in ${pkg}`, details: DETAILS,
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H' }],
    affected: [{ package: { ecosystem: 'npm', name: pkg, purl: `pkg:npm/${pkg}` }, ranges: [{ type: 'SEMVER', events: [{ introduced: `${major}.0.0` }, { fixed: `${major}.4.${i % 10}` }] }, { type: 'SEMVER', events: [{ introduced: `${major + 1}.0.0` }, { fixed: `${major + 1}.1.0` }] }], database_specific: { source: 'bench' } }],
    references: [{ type: 'ADVISORY', url: `https://github.com/advisories/GHSA-bnch-${i}` }],
    database_specific: { severity: 'HIGH', cwe_ids: ['CWE-770'], github_reviewed: true },
  };
}

/** The export written as a zip file, streamed: neither the records nor the zip are held whole. */
export async function writeExport(file: string, records: number): Promise<void> {
  const out = fs.createWriteStream(file);
  const zip = new Zip((err, data, final) => {
    if (err) throw err;
    out.write(data);
    if (final) out.end();
  });
  for (let i = 0; i < records; i++) {
    const r = record(i);
    const f = new ZipDeflate(`${r.id}.json`, { level: 1 });
    zip.add(f);
    f.push(strToU8(JSON.stringify(r, null, 2)), true);
    // The file stream's buffer drains between steps (fflate's callback cannot wait for it).
    if (i % 2000 === 0) await new Promise<void>((resolve) => (out.writableNeedDrain ? out.once('drain', () => resolve()) : setImmediate(resolve)));
  }
  zip.end();
  await new Promise<void>((resolve, reject) => out.on('finish', resolve).on('error', reject));
}
