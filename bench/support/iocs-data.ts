/**
 * Bulk-loads a realistic indicator table for the /iocs benchmark, all in SQL (generate_series):
 * 4 custom sources, `items` items (20,000 by default) over ~half a year, and 50 indicators per
 * item (1,000,000 rows by default):
 * ipv4 30 %, domain 25 %, url 15 %, sha256 18 %, md5 12 %; status 88 % unchecked, 7 % clean,
 * 3 % unknown, 2 % found. About 5 % of the values are "hot" (documentation IP ranges,
 * *.evil-example.net) and recur across items, as real reporting repeats infrastructure.
 *
 * The secondary indexes of intel_indicators and intel_indicator_search are dropped during the
 * load and re-created from their own definitions (pg_get_indexdef), which is much faster than
 * maintaining a trigram GIN row by row; the result is the schema exactly as migrated. The load
 * runs with session_replication_role = replica (no FK checks), which also silences the triggers
 * that keep intel_indicator_search (migration 0006) in step, so that copy is filled here with the
 * same INSERT … SELECT the insert trigger runs. Then VACUUM ANALYZE, the state autovacuum would
 * reach on its own after such an insert.
 */
import { sql } from 'kysely';
import type { Database } from '../../src/platform/db/database.js';

export const PER_ITEM = 50;
export const INDICATOR_TYPES = ['domain', 'ipv4', 'md5', 'sha256', 'url'] as const;

export async function loadIndicators(pool: Database, organizationId: string, items: number, log: (m: string) => void = () => {}): Promise<{ rows: number; seconds: number }> {
  // One session throughout: SET and the temp tables are per connection.
  return pool.connection().execute((db) => load(db, organizationId, items, log));
}

async function load(db: Database, organizationId: string, ITEMS: number, log: (m: string) => void): Promise<{ rows: number; seconds: number }> {
  const t0 = Date.now();
  const org = sql.lit(organizationId);
  const stmts = [
    sql`SET maintenance_work_mem = '1GB'`,
    // Loading only: the data is consistent by construction, so FK triggers are skipped.
    sql`SET session_replication_role = replica`,
    sql`CREATE TEMP TABLE bench_sources AS
        SELECT n, gen_random_uuid() AS id, (ARRAY['Vendor Research Blog','CERT advisories','TAXII: partner ISAC','MISP community'])[n] AS label
        FROM generate_series(1, 4) n`,
    sql`INSERT INTO intel_sources (id, organization_id, name, display_name, kind, api_type, feed_url, server_url, schedule_cron, max_entries)
        SELECT id, ${org}, 'bench-' || n, label, CASE WHEN n <= 2 THEN 'rss' ELSE 'api' END,
               CASE n WHEN 3 THEN 'taxii' WHEN 4 THEN 'misp' END,
               CASE WHEN n <= 2 THEN 'https://feeds.example/' || n || '.xml' END,
               CASE WHEN n > 2 THEN 'https://api.example/' || n END, '0 * * * *', 500
        FROM bench_sources`,
    sql`CREATE TEMP TABLE bench_items AS
        SELECT i AS n, gen_random_uuid() AS id, s.id AS source_id, s.label,
               (ARRAY['LockBit affiliate','APT29','FIN7','Scattered Spider','Volt Typhoon','TA505','Lazarus Group','Sandworm'])[1 + i % 8]
                 || ' campaign ' || i || ' targets ' || (ARRAY['FortiOS','Ivanti','NetScaler','Confluence','MOVEit','Exchange'])[1 + i % 6] AS title,
               now() - make_interval(mins => (${ITEMS} - i) * 12) AS created_at
        FROM generate_series(1, ${ITEMS}) i JOIN bench_sources s ON s.n = 1 + i % 4`,
    sql`INSERT INTO intel_items (id, organization_id, source_id, external_id, title, url, publisher, published_at, content_text, content_hash, created_at, updated_at, processed_at)
        SELECT id, ${org}, source_id, 'bench-' || n, title, 'https://research.example/posts/' || n, label, created_at,
               'Report ' || n || ' describes the intrusion and lists its indicators.', md5(n::text), created_at, created_at, created_at
        FROM bench_items`,
    sql`CREATE TEMP TABLE bench_index_defs AS
        SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
        FROM pg_index i WHERE i.indrelid IN ('intel_indicators'::regclass, 'intel_indicator_search'::regclass) AND NOT i.indisprimary AND NOT i.indisunique`,
  ];
  for (const s of stmts) await s.execute(db);
  const defs = (await sql<{ name: string; def: string }>`SELECT name, def FROM bench_index_defs`.execute(db)).rows;
  for (const d of defs) await sql`DROP INDEX ${sql.raw(d.name)}`.execute(db);
  log(`iocs: sources and ${ITEMS} items in ${((Date.now() - t0) / 1000).toFixed(1)} s; loading ${ITEMS * PER_ITEM} indicators`);

  await sql`
    INSERT INTO intel_indicators (id, organization_id, item_id, type, value, normalized_value, confidence, first_seen, last_seen, ttl_days, intel_title, source_label, status, last_checked_at, created_at)
    SELECT gen_random_uuid(), ${org}, it.id, v.type, v.value, v.norm, 0.5 + (g % 50) / 100.0, it.created_at, it.created_at, v.ttl,
           it.title, it.label, st.status, CASE WHEN st.status <> 'unchecked' THEN it.created_at + interval '2 days' END, it.created_at
    FROM generate_series(1, ${ITEMS * PER_ITEM}) g
    JOIN bench_items it ON it.n = 1 + (g - 1) / ${PER_ITEM}
    CROSS JOIN LATERAL (SELECT abs(hashtext('t' || g)) % 100 AS t, abs(hashtext('h' || g)) % 100 AS hot, abs(hashtext('s' || g)) % 100 AS s,
                               (g::bigint * 2654435761) % 4294967296 AS ip32, (g::bigint * 7919) % 1000003 AS k) r
    CROSS JOIN LATERAL (SELECT CASE WHEN r.s < 88 THEN 'unchecked' WHEN r.s < 95 THEN 'clean' WHEN r.s < 98 THEN 'unknown' ELSE 'found' END AS status) st
    CROSS JOIN LATERAL (
      SELECT CASE WHEN r.t < 30 THEN 'ipv4' WHEN r.t < 55 THEN 'domain' WHEN r.t < 70 THEN 'url' WHEN r.t < 88 THEN 'sha256' ELSE 'md5' END AS type
    ) ty
    CROSS JOIN LATERAL (
      SELECT CASE
        WHEN ty.type = 'ipv4' AND r.hot < 5 THEN (ARRAY['203.0.113.','198.51.100.','192.0.2.'])[1 + g % 3] || (g % 256)
        WHEN ty.type = 'ipv4' THEN (1 + (r.ip32 >> 24) % 223) || '.' || ((r.ip32 >> 16) & 255) || '.' || ((r.ip32 >> 8) & 255) || '.' || (r.ip32 & 255)
        WHEN ty.type = 'domain' AND r.hot < 5 THEN 'c2-' || (g % 500) || '.evil-example.net'
        WHEN ty.type = 'domain' THEN (ARRAY['cdn-sync','secure-login','update-check','docs-share','vpn-gateway','mail-auth','cloud-files','status-api','telemetry','onedrive-sso'])[1 + g % 10]
             || '-' || r.k || '.' || (ARRAY['contoso','fabrikam','northwind','adatum','litware','tailspin','wingtip'])[1 + (g / 10) % 7]
             || '.' || (ARRAY['com','net','org','ru','xyz','top','info','io'])[1 + (g / 70) % 8]
        WHEN ty.type = 'url' THEN 'http://' || (ARRAY['files','login','cdn','update','api'])[1 + g % 5] || '-' || r.k || '.'
             || (ARRAY['contoso','fabrikam','northwind','adatum'])[1 + (g / 5) % 4] || '.com/' || (ARRAY['gate','wp-content/uploads','admin','dl','panel'])[1 + (g / 20) % 5]
             || '/' || substr(md5('u' || g), 1, 10) || (ARRAY['.php','.exe','.zip','/',''])[1 + (g / 100) % 5]
        WHEN ty.type = 'sha256' THEN encode(sha256(('s' || g)::bytea), 'hex')
        ELSE md5('m' || g)
      END AS norm,
      CASE WHEN ty.type IN ('sha256', 'md5') THEN 365 WHEN ty.type = 'url' THEN 60 ELSE 30 END AS ttl
    ) n
    CROSS JOIN LATERAL (SELECT ty.type, n.norm, n.ttl, CASE WHEN ty.type = 'domain' AND g % 3 = 0 THEN replace(n.norm, '.', '[.]') ELSE n.norm END AS value) v
    ON CONFLICT DO NOTHING`.execute(db);
  const t1 = Date.now();
  log(`iocs: indicators inserted in ${((t1 - t0) / 1000).toFixed(1)} s; filling intel_indicator_search, re-creating ${defs.length} indexes`);
  // As trigger intel_indicators_search_insert would have done (it does not fire under replica).
  await sql`
    INSERT INTO intel_indicator_search (id, organization_id, type, status, created_at, search_value)
    SELECT id, organization_id, type, status, created_at, lower(normalized_value) FROM intel_indicators WHERE organization_id = ${organizationId}`.execute(db);
  // A partitioned table's index reads "ON ONLY parent" (no partitions); re-create it on all of them.
  for (const d of defs) await sql`${sql.raw(d.def.replace(' ON ONLY ', ' ON '))}`.execute(db);
  await sql`SET session_replication_role = origin`.execute(db);
  await sql`RESET maintenance_work_mem`.execute(db);
  log(`iocs: indexes in ${((Date.now() - t1) / 1000).toFixed(1)} s; VACUUM ANALYZE`);
  await sql`VACUUM ANALYZE intel_sources, intel_items, intel_indicators, intel_indicator_search`.execute(db);
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM intel_indicators WHERE organization_id = ${organizationId}`.execute(db);
  return { rows: rows[0]!.n, seconds: (Date.now() - t0) / 1000 };
}
