import { sql } from 'kysely';
import { performance } from 'node:perf_hooks';
import { startBenchDatabase } from '../bench/support/db.js';
import { cpuSeconds } from '../bench/support/cpu.js';
import { postmasterPid } from '../bench/support/http-measure.js';
import { createOrganization } from '../src/modules/organizations/organizations.service.js';

const DETAILS = 'A remote attacker can send a crafted request that makes the parser allocate memory without bound, which exhausts the process and denies service to every other client. Upgrade to the fixed version; there is no workaround. '.repeat(3);
const N = 20000;
const db0 = await startBenchDatabase('scratch');
const db = db0.db;
const pg = postmasterPid(db0.clusterDir);
try {
  const org = await createOrganization(db, { name: 'X', adminEmail: 'x@x.test' });
  const orgId = org.organization.id;
  const { rows: [src] } = await sql<{ id: string }>`INSERT INTO intel_sources (id, organization_id, kind, api_type, name, display_name, server_url, schedule_cron, max_entries, created_at, updated_at) VALUES (gen_random_uuid(), ${orgId}, 'api', 'osv', 'x', 'x', 'http://x', '0 * * * *', 1000000, now(), now()) RETURNING id`.execute(db).catch(async (e) => { console.log(String(e)); throw e; });
  // seed template table
  await sql`CREATE TABLE tpl AS SELECT g,
     'CVE-2026-' || (100000+g) || ' (GHSA-' || g || '): Unbounded allocation in bench-pkg-' || g AS title,
     'Unbounded allocation in bench-pkg-' || g || E'\n\n' || ${DETAILS} || E'\n\nIdentifiers: GHSA-' || g || ', CVE-2026-' || (100000+g) || E'.\n\nPackages: npm bench-pkg-' || g || '.' AS content_text,
     jsonb_build_object('schema_version','1.6.0','id','GHSA-'||g,'summary','Unbounded allocation','details',${DETAILS}::text,'aliases',jsonb_build_array('CVE-2026-'||(100000+g)),
        'affected', jsonb_build_array(jsonb_build_object('package', jsonb_build_object('ecosystem','npm','name','bench-pkg-'||g,'purl','pkg:npm/bench-pkg-'||g),'ranges',jsonb_build_array(jsonb_build_object('type','SEMVER','events',jsonb_build_array(jsonb_build_object('introduced','1.0.0'),jsonb_build_object('fixed','1.4.1'))))))) AS raw,
     jsonb_build_object('format','osv','id','GHSA-'||g,'aliases',jsonb_build_array('CVE-2026-'||(100000+g)),'affected',jsonb_build_array(jsonb_build_object('ecosystem','npm','name','bench-pkg-'||g,'purl','pkg:npm/bench-pkg-'||g,'ranges',jsonb_build_array(jsonb_build_object('type','SEMVER','events',jsonb_build_array(jsonb_build_object('introduced','1.0.0'),jsonb_build_object('fixed','1.4.1')))),'versions','[]'::jsonb))) AS vulnerability
     FROM generate_series(1, ${N}) g`.execute(db);
  let round = 0;
  const run = async (label: string, raw = true) => {
    round++;
    const c0 = cpuSeconds(pg, true)!;
    const t0 = performance.now();
    for (let i = 0; i < N; i += 250) {
      await sql`INSERT INTO intel_items (id, organization_id, source_id, external_id, title, url, publisher, published_at, source_updated_at, language, content_text, structured_indicators, reference_urls, tags, raw, vulnerability, content_hash, created_at, updated_at, processed_at, severity, relevance, platforms, summary, tldr, abstract, attack_path, classification, affected_products, iocs, provenance, dropped_candidates, event_confidence, canonical_key, status)
        SELECT gen_random_uuid(), ${orgId}, ${src!.id}, ${String(round)} || '-' || g, title, 'https://github.com/advisories/GHSA-' || g, 'OSV', now(), now(), 'en', content_text, '[]', '["https://x"]', '{osv,npm}', ${raw ? sql`raw` : sql`NULL`}, vulnerability, md5(title), now(), now(), now(), 'high', 45, '{}', 'Unbounded allocation in bench', 'Unbounded', 'Unbounded allocation', '[]', '{"attack":[],"killChain":[],"malware":[],"actor":[],"platforms":[],"mappings":[{"framework":"cve","id":"CVE-2026-1","confidence":1}]}', '[]', '{"ipv4":[],"urls":[]}', '{"supportingPassages":[]}', '[]', 1, 'CVE-2026-' || (100000+g) || '-' || ${round}, 'active'
        FROM tpl WHERE g > ${i} AND g <= ${i + 250}`.execute(db);
    }
    console.log(`${label}: ${(performance.now() - t0).toFixed(0)} ms wall, PG CPU ${(cpuSeconds(pg, true)! - c0).toFixed(2)} s`);
  };
  await run('warm');
  await run('baseline');
  await sql`CREATE FUNCTION intel_item_search(title text, content_text text, vulnerability jsonb) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN vulnerability->>'format' IN ('osv', 'csaf')
      THEN setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
           setweight(to_tsvector('simple', concat_ws(' ', vulnerability->>'id', vulnerability->'aliases', jsonb_path_query_array(vulnerability, '$.affected[*].name'))), 'B')
      ELSE setweight(to_tsvector('simple', coalesce(title, '')), 'A') || setweight(to_tsvector('simple', left(coalesce(content_text, ''), 200000)), 'B') END $$`.execute(db);
  await sql`DROP INDEX intel_items_search_idx`.execute(db);
  await sql`CREATE INDEX intel_items_search_idx ON intel_items USING gin (intel_item_search(title, content_text, vulnerability))`.execute(db);
  await run('structured vector');
  await run('structured vector 2');
  const { rows: q } = await sql<{ v: string }>`SELECT intel_item_search(title, content_text, vulnerability)::text AS v FROM intel_items LIMIT 1`.execute(db);
  console.log(q);
  const { rows: e } = await sql<{ p: string }>`EXPLAIN ANALYZE SELECT count(*) FROM intel_items i WHERE intel_item_search(i.title, i.content_text, i.vulnerability) @@ websearch_to_tsquery('simple', 'bench-pkg-77')`.execute(db);
  console.log(e.map((r) => Object.values(r)[0]).join('\n'));
  const { rows } = await sql<{ indexname: string; indexdef: string }>`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'intel_items'`.execute(db);
  for (const r of rows) console.log(r.indexdef);
  const { rows: tr } = await sql<{ tgname: string }>`SELECT tgname FROM pg_trigger WHERE tgrelid = 'intel_items'::regclass AND NOT tgisinternal`.execute(db);
  console.log(tr);
} finally {
  await db0.close();
}
