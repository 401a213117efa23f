import { sql, type Kysely } from 'kysely';

/**
 * GET /iocs search at 1,000,000 indicators (the performance target: p95 < 50 ms; docs/performance.md).
 *
 * `statusCounts` are exact over every indicator whose normalized value contains the search, so a
 * broad search (30,000–70,000 matches in the bench) has to look at every match. With the trigram
 * GIN on intel_indicators itself, each match is a visit to the wide heap (261 MB at 1M rows,
 * twice shared_buffers) plus an ILIKE recheck that lower()s both sides per row: 110–175 ms for
 * such a count. So the searchable columns get their own narrow copy:
 *
 *   intel_indicator_search (id, organization_id, type, status, created_at, search_value)
 *
 * - search_value is lower(normalized_value), so the query's `ILIKE '%x%'` becomes the identical
 *   `search_value LIKE lower('%x%')` (ILIKE in a UTF-8 database *is* lower() on both sides, then
 *   LIKE), and the per-row recheck no longer allocates a lowered copy;
 * - partitioned by type (domain, url, ip, hash, the rest): searches are nearly always local to
 *   one or two types, and a type's rows are then dense in their own partition, so a 30,000-match
 *   URL search reads ~2,600 pages of the url partition instead of ~12,700 scattered pages;
 *   a `type` filter prunes to one partition;
 * - it carries created_at and status, with an (organization_id, status, created_at DESC, id DESC)
 *   index: the page of a broad search filtered by status is a short walk down that index
 *   (IocsService.list), and only the page's rows are read from intel_indicators.
 * Measured on the bench data (EXPLAIN ANALYZE, warm): 30,000-match URL counts 67 → ~20 ms,
 * 72,000-match "fabrikam" 174 → ~40 ms; see README "Performance".
 *
 * The copy is kept by triggers on intel_indicators, in the writer's transaction, whoever writes
 * (the pipeline's upserts and deletes, POST /iocs/{id}/checks, cascades from items and
 * organizations): statement-level with transition tables for INSERT and DELETE (one set-based
 * statement per batch), row-level for UPDATE but only when a copied column changes (the
 * pipeline's upserts touch value/confidence/ttl/title/last_seen and skip the trigger in its WHEN).
 * The trigram GIN moves from intel_indicators to the copy, so ingestion maintains the same
 * number of GIN entries as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
  await sql`
    CREATE TABLE intel_indicator_search (
      id uuid NOT NULL,
      organization_id uuid NOT NULL,
      type text NOT NULL,
      status text NOT NULL,
      created_at timestamptz NOT NULL,
      search_value text NOT NULL,
      PRIMARY KEY (id, type)
    ) PARTITION BY LIST (type)`.execute(db);
  await sql`CREATE TABLE intel_indicator_search_domain PARTITION OF intel_indicator_search FOR VALUES IN ('domain')`.execute(db);
  await sql`CREATE TABLE intel_indicator_search_url PARTITION OF intel_indicator_search FOR VALUES IN ('url')`.execute(db);
  await sql`CREATE TABLE intel_indicator_search_ip PARTITION OF intel_indicator_search FOR VALUES IN ('ipv4', 'ipv6')`.execute(db);
  await sql`CREATE TABLE intel_indicator_search_hash PARTITION OF intel_indicator_search FOR VALUES IN ('md5', 'sha1', 'sha256', 'sha512', 'ssdeep')`.execute(db);
  await sql`CREATE TABLE intel_indicator_search_other PARTITION OF intel_indicator_search DEFAULT`.execute(db);

  await sql`
    INSERT INTO intel_indicator_search (id, organization_id, type, status, created_at, search_value)
    SELECT id, organization_id, type, status, created_at, lower(normalized_value) FROM intel_indicators`.execute(db);
  await sql`CREATE INDEX intel_indicator_search_trgm_idx ON intel_indicator_search USING gin (search_value gin_trgm_ops)`.execute(db);
  // The page of a broad search with a status filter: walk that status's rows newest first.
  await sql`CREATE INDEX intel_indicator_search_status_order_idx ON intel_indicator_search (organization_id, status, created_at DESC, id DESC)`.execute(db);

  await sql`
    CREATE FUNCTION intel_indicator_search_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO intel_indicator_search (id, organization_id, type, status, created_at, search_value)
      SELECT id, organization_id, type, status, created_at, lower(normalized_value) FROM new_rows;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE FUNCTION intel_indicator_search_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM intel_indicator_search s USING old_rows o WHERE s.id = o.id AND s.type = o.type;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE FUNCTION intel_indicator_search_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE intel_indicator_search
      SET id = NEW.id, organization_id = NEW.organization_id, type = NEW.type, status = NEW.status,
          created_at = NEW.created_at, search_value = lower(NEW.normalized_value)
      WHERE id = OLD.id AND type = OLD.type;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE FUNCTION intel_indicator_search_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      TRUNCATE intel_indicator_search;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER intel_indicators_search_insert AFTER INSERT ON intel_indicators
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intel_indicator_search_insert()`.execute(db);
  await sql`
    CREATE TRIGGER intel_indicators_search_delete AFTER DELETE ON intel_indicators
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION intel_indicator_search_delete()`.execute(db);
  await sql`
    CREATE TRIGGER intel_indicators_search_update AFTER UPDATE ON intel_indicators FOR EACH ROW
    WHEN ((OLD.id, OLD.organization_id, OLD.type, OLD.status, OLD.created_at, OLD.normalized_value)
          IS DISTINCT FROM (NEW.id, NEW.organization_id, NEW.type, NEW.status, NEW.created_at, NEW.normalized_value))
    EXECUTE FUNCTION intel_indicator_search_update()`.execute(db);
  await sql`
    CREATE TRIGGER intel_indicators_search_truncate AFTER TRUNCATE ON intel_indicators
    FOR EACH STATEMENT EXECUTE FUNCTION intel_indicator_search_truncate()`.execute(db);

  // Searches go through the copy now; the GIN on the wide table would only cost writes.
  await sql`DROP INDEX IF EXISTS intel_indicators_search_trgm_idx`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX IF NOT EXISTS intel_indicators_search_trgm_idx ON intel_indicators USING gin (normalized_value gin_trgm_ops)`.execute(db);
  for (const t of ['insert', 'delete', 'update', 'truncate']) {
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(`intel_indicators_search_${t}`)} ON intel_indicators`.execute(db);
    await sql`DROP FUNCTION IF EXISTS ${sql.raw(`intel_indicator_search_${t}`)}()`.execute(db);
  }
  await sql`DROP TABLE IF EXISTS intel_indicator_search`.execute(db);
}
