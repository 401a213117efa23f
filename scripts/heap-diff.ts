/**
 * `npm run heap-diff -- A.heapsnapshot B.heapsnapshot`: what a V8 heap gained between two
 * snapshots (the soak's SOAK_HEAP_SNAPSHOTS writes them), grouped as Chrome DevTools' "Summary"
 * view groups them: by node type and constructor (or function, or "(string)"), with the count and
 * the shallow size of each group in both, sorted by the growth. Shallow sizes only: what a group
 * holds itself, not what it retains, which is enough to tell a leak (one group grows with time)
 * from a heap that only breathes.
 */
import fs from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] }; node_count: number };
  nodes: number[];
  strings: string[];
}

interface Group {
  count: number;
  bytes: number;
}

function summarise(file: string): { groups: Map<string, Group>; total: number } {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const groups = new Map<string, Group>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const size = snap.nodes[i + sizeAt]!;
    total += size;
    // Strings and numbers are grouped by type: their names are their values.
    const key = type === 'object' || type === 'closure' || type === 'native' ? `${type} ${snap.strings[snap.nodes[i + nameAt]!]}` : `(${type})`;
    const g = groups.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += size;
    groups.set(key, g);
  }
  return { groups, total };
}

const [a, b, top = '30'] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: npm run heap-diff -- <earlier.heapsnapshot> <later.heapsnapshot> [rows]');
  process.exit(2);
}
const before = summarise(a);
const after = summarise(b);
const mib = (n: number) => (n / 1024 / 1024).toFixed(2);
console.log(`heap (shallow total): ${mib(before.total)} MiB → ${mib(after.total)} MiB (${after.total >= before.total ? '+' : ''}${mib(after.total - before.total)} MiB)`);
const keys = new Set([...before.groups.keys(), ...after.groups.keys()]);
const rows = [...keys].map((key) => {
  const x = before.groups.get(key) ?? { count: 0, bytes: 0 };
  const y = after.groups.get(key) ?? { count: 0, bytes: 0 };
  return { key, countBefore: x.count, countAfter: y.count, bytesBefore: x.bytes, delta: y.bytes - x.bytes };
});
rows.sort((p, q) => Math.abs(q.delta) - Math.abs(p.delta));
console.log('| group | count before | count after | MiB before | Δ MiB |\n|---|---|---|---|---|');
for (const r of rows.slice(0, Number(top))) console.log(`| ${r.key.slice(0, 80)} | ${r.countBefore} | ${r.countAfter} | ${mib(r.bytesBefore)} | ${r.delta >= 0 ? '+' : ''}${mib(r.delta)} |`);
