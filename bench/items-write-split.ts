/**
 * What an intel item's INSERT costs PostgreSQL, split by index, foreign key and trigger, on the
 * rows a hunt-osv run stored (issue 50 item 2: which of the item's write a view over the
 * vulnerability store would still pay). Run hunt-osv with BENCH_KEEP_DIR=1, then:
 *
 *   npx tsx bench/items-write-split.ts /tmp/rampart-bench-hunt-osv-XXXXXX [rounds]
 *
 * The kept cluster is started again; its intel_items rows are copied, in chunks of 250 (the
 * sync's), into scratch tables shaped like intel_items (same columns, defaults and generated
 * columns) with one variant of its indexes, FKs and triggers each; the figure is the backend's
 * CPU (utime + stime from /proc, 10 ms ticks) per row, the GIN's pending list flushed at the end
 * and counted (the sync's inserts flush it as they go). Reading the source rows is in every
 * variant alike (~1 µs a row): compare variants, not absolutes. Linux only (reads /proc).
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedDatabase } from '../src/platform/db/embedded.js';

const CHUNK = 250;
const dir = process.argv[2];
const rounds = Number(process.argv[3] ?? 2);
if (!dir || !fs.existsSync(path.join(dir, 'db', 'pg'))) {
  console.error('usage: npx tsx bench/items-write-split.ts <a hunt-osv bench dir kept by BENCH_KEEP_DIR=1> [rounds]');
  process.exit(2);
}

const embedded = await startEmbeddedDatabase(path.join(dir, 'db'));
const client = new pg.Client({ connectionString: embedded.connectionString });
await client.connect();
try {
  const { pid } = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!;
  /** The backend's CPU so far, in ms (fields 14 and 15 of /proc/<pid>/stat, in 10 ms ticks). */
  const cpuMs = () => {
    const f = (fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  };
  const cols = (
    await client.query<{ s: string }>(
      `SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) AS s FROM pg_attribute
       WHERE attrelid = 'intel_items'::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''`,
    )
  ).rows[0]!.s;
  await client.query(`DROP TABLE IF EXISTS split_src; CREATE TABLE split_src AS
    SELECT *, ((row_number() OVER (ORDER BY created_at, id)) - 1) / ${CHUNK} AS chunk FROM intel_items;
    CREATE INDEX ON split_src (chunk); ANALYZE split_src`);
  const { n, rows } = (await client.query<{ n: number; rows: number }>('SELECT (max(chunk) + 1)::int AS n, count(*)::int AS rows FROM split_src')).rows[0]!;
  const indexes = (await client.query<{ name: string; def: string }>(`SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE tablename = 'intel_items' AND indexname <> 'intel_items_pkey'`)).rows;
  const all = indexes.map((i) => i.name);
  const variants: Array<{ label: string; keep: string[]; fks?: boolean }> = [
    { label: 'heap + primary key', keep: [] },
    { label: 'all indexes', keep: all },
    { label: 'all indexes + FKs + ATT&CK rollup trigger', keep: all, fks: true },
    ...indexes.map((i) => ({ label: `all but ${i.name}`, keep: all.filter((x) => x !== i.name) })),
    { label: 'primary key + search GIN + /items order (a view branch)', keep: ['intel_items_search_idx', 'intel_items_org_published_idx'] },
  ];
  console.log(`${rows} rows of intel_items in chunks of ${CHUNK}; backend CPU per row (µs), ${rounds} round(s)`);
  const results = new Map<string, number[]>();
  for (let r = 0; r < rounds; r++) {
    for (const v of variants) {
      await client.query(`DROP TABLE IF EXISTS split_t; CREATE TABLE split_t (LIKE intel_items INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS); ALTER TABLE split_t ADD PRIMARY KEY (id)`);
      for (const i of indexes.filter((x) => v.keep.includes(x.name))) await client.query(i.def.replace(/INDEX (\S+) ON public\.intel_items/, 'INDEX split_$1 ON split_t'));
      if (v.fks) {
        await client.query(`ALTER TABLE split_t ADD FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE,
          ADD FOREIGN KEY (source_id) REFERENCES intel_sources(id) ON DELETE CASCADE, ADD FOREIGN KEY (duplicate_of) REFERENCES split_t(id) ON DELETE SET NULL;
          CREATE TRIGGER split_rollup AFTER INSERT ON split_t REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intel_attack_rollup_insert()`);
      }
      await client.query('CHECKPOINT');
      const t0 = cpuMs();
      for (let k = 0; k < n; k++) await client.query(`INSERT INTO split_t (${cols}) SELECT ${cols} FROM split_src WHERE chunk = $1`, [k]);
      if (v.keep.includes('intel_items_search_idx')) await client.query(`SELECT gin_clean_pending_list('split_intel_items_search_idx'::regclass)`);
      const us = ((cpuMs() - t0) * 1000) / rows;
      results.set(v.label, [...(results.get(v.label) ?? []), us]);
      console.log(`  round ${r + 1}  ${v.label.padEnd(62)} ${us.toFixed(1)}`);
    }
  }
  console.log('\nmedian per variant (µs per row):');
  for (const [label, xs] of results) {
    const s = [...xs].sort((a, b) => a - b);
    const median = s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
    console.log(`  ${label.padEnd(62)} ${median.toFixed(1)}  (${xs.map((x) => x.toFixed(1)).join(', ')})`);
  }
  await client.query('DROP TABLE IF EXISTS split_t; DROP TABLE IF EXISTS split_src');
} finally {
  await client.end();
  await embedded.stop();
}
