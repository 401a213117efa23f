import { sql, type Kysely } from 'kysely';

/**
 * The hunt reads the software a structured advisory names by an index lookup of the package
 * names, not by loading every purl of the organization (issue 28's bench: 50,000 SBOM
 * components read and parsed for every page of new threats). `hunt_purl_name(purl)` is a
 * coarse key of a purl's package name — the last path segment without version, qualifiers,
 * subpath, percent-escapes or any character other than letters and digits, lower-cased — so
 * every spelling of one package (npm's case, PyPI's `-_.`, an escaped character) has the same
 * key; the exact identity (purlKey, hunt/identity.fns.ts) then filters the candidates. Its
 * counterpart for a package key is `purlNameOfKey` there: the two must stay the same rule.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION hunt_purl_name(purl text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT lower(regexp_replace(regexp_replace(
        split_part(regexp_replace(split_part(split_part(purl, '#', 1), '?', 1), '^.*/', ''), '@', 1),
        '%[0-9A-Fa-f]{2}', '', 'g'), '[^A-Za-z0-9]', '', 'g'))
    $$`.execute(db);
  // Not partial: the planner reads the statistics of an expression index only when it is not partial
  // (with a partial one, 500 names were estimated to match 90% of the rows, and a scan was chosen).
  await sql`CREATE INDEX hunt_asset_software_purl_name_idx ON hunt_asset_software (organization_id, hunt_purl_name(purl))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS hunt_asset_software_purl_name_idx`.execute(db);
  await sql`DROP FUNCTION IF EXISTS hunt_purl_name(text)`.execute(db);
}
