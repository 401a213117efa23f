import { sql } from 'kysely';
import { startBenchDatabase } from '../bench/support/db.js';
import { createOrganization } from '../src/modules/organizations/organizations.service.js';
const db0 = await startBenchDatabase('scratch2');
const db = db0.db;
try {
  const org = await createOrganization(db, { name: 'X', adminEmail: 'x@x.test' });
  const orgId = org.organization.id;
  await sql`INSERT INTO hunt_assets (id, organization_id, identifier, kind, created_at, updated_at) SELECT gen_random_uuid(), ${orgId}, 'a' || g, 'host', now(), now() FROM generate_series(1, 50) g`.execute(db).catch((e) => console.log(String(e)));
  const { rows: cols } = await sql<{ column_name: string; is_nullable: string }>`SELECT column_name, is_nullable FROM information_schema.columns WHERE table_name = 'hunt_asset_software'`.execute(db);
  console.log(cols.map((c) => `${c.column_name}:${c.is_nullable}`).join(' '));
  await sql`INSERT INTO hunt_asset_software (id, organization_id, asset_id, position, vendor, product, version, product_key, purl)
    SELECT gen_random_uuid(), ${orgId}, (SELECT id FROM hunt_assets ORDER BY id OFFSET (g % 50) LIMIT 1), g, '', 'bench-pkg-' || (g % 20000), '1.2.0', 'bench pkg ' || (g % 20000), 'pkg:npm/bench-pkg-' || (g % 20000) || '@1.2.0' FROM generate_series(1, 50000) g`.execute(db).catch((e) => console.log(String(e)));
  await sql`ANALYZE`.execute(db);
  const names = Array.from({ length: 500 }, (_, i) => `benchpkg${i * 7}`);
  const { rows: ix } = await sql`SELECT indexdef FROM pg_indexes WHERE tablename = 'hunt_asset_software'`.execute(db);
  console.log(ix.map((r) => Object.values(r as object)[0]).join('\n'));

  const { rows } = await sql`EXPLAIN ANALYZE SELECT a.id, s.purl FROM hunt_asset_software s JOIN hunt_assets a ON a.id = s.asset_id WHERE s.organization_id = ${orgId} AND s.purl IS NOT NULL AND hunt_purl_name(s.purl) = ANY(${names}::text[])`.execute(db);
  console.log(rows.map((r) => String(Object.values(r as object)[0]).slice(0, 200)).join('\n'));
} finally {
  await db0.close();
}
