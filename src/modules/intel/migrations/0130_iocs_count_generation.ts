import { sql, type Kysely } from 'kysely';

/**
 * GET /iocs answers exact `statusCounts` for every search (issue 27 item 5: p95 < 25 ms at 1,000,000
 * indicators). A broad search's count is a pass over all of its matches (a trigram GIN scan and a
 * heap recheck of each candidate, 15–50 ms), paid again by every later page of the same search and
 * every repeat of it. IocsService keeps the counts it computed, keyed by (organization, filters),
 * and serves them again only while the organization's indicators have not changed since:
 *
 *   intel_indicator_generations (organization_id, generation)
 *
 * is bumped once per writing transaction that inserted, deleted or updated rows of the search copy
 * (intel_indicator_search, migration 0006: its rows change exactly when an indicator is added or
 * removed or its organization, type, status, date or value changes, i.e. whenever a count can). A
 * count and the generation are read in the same statement, hence the same snapshot: a cached count
 * is served only when the generation read later is the same, which no committed write allows.
 *
 * The bump happens at COMMIT, not in the write statement: a statement-level trigger only records
 * "this transaction wrote organization X" as a row of intel_indicator_generation_marks, whose
 * deferred constraint trigger increments the generation when the transaction commits. An
 * increment in the statement itself would hold the organization's generation row locked until the
 * writer commits, serializing every concurrent ingest transaction of the organization behind it;
 * at commit the lock lasts only until the commit record is written. The mark's key includes the
 * transaction id, so concurrent writers never wait on each other's marks; it is deleted by the
 * same deferred trigger (the table stays empty between transactions) and is UNLOGGED (nothing of
 * it outlives a transaction). A rolled-back write bumps nothing, which is right: nothing changed.
 *
 * No foreign key to organizations (the rollups of 0115 made the same choice): deleting an
 * organization deletes its indicators, and the deferred trigger then removes its generation row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE intel_indicator_generations (
      organization_id uuid PRIMARY KEY,
      generation bigint NOT NULL
    )`.execute(db);
  await sql`
    CREATE UNLOGGED TABLE intel_indicator_generation_marks (
      organization_id uuid NOT NULL,
      xact xid8 NOT NULL,
      PRIMARY KEY (organization_id, xact)
    )`.execute(db);

  await sql`
    CREATE FUNCTION intel_indicator_generation_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM organizations WHERE id = NEW.organization_id) THEN
        INSERT INTO intel_indicator_generations (organization_id, generation) VALUES (NEW.organization_id, 1)
        ON CONFLICT (organization_id) DO UPDATE SET generation = intel_indicator_generations.generation + 1;
      ELSE
        DELETE FROM intel_indicator_generations WHERE organization_id = NEW.organization_id;
      END IF;
      DELETE FROM intel_indicator_generation_marks WHERE organization_id = NEW.organization_id AND xact = NEW.xact;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE CONSTRAINT TRIGGER intel_indicator_generation_marks_bump AFTER INSERT ON intel_indicator_generation_marks
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION intel_indicator_generation_bump()`.execute(db);

  // One mark per (organization, transaction): ON CONFLICT DO NOTHING makes the later statements
  // of a transaction a single index probe each.
  await sql`
    CREATE FUNCTION intel_indicator_generation_mark_new() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO intel_indicator_generation_marks (organization_id, xact)
      SELECT DISTINCT organization_id, pg_current_xact_id() FROM new_rows ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE FUNCTION intel_indicator_generation_mark_old() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO intel_indicator_generation_marks (organization_id, xact)
      SELECT DISTINCT organization_id, pg_current_xact_id() FROM old_rows ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE FUNCTION intel_indicator_generation_mark_both() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO intel_indicator_generation_marks (organization_id, xact)
      SELECT organization_id, pg_current_xact_id() FROM new_rows UNION SELECT organization_id, pg_current_xact_id() FROM old_rows
      ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`.execute(db);
  // TRUNCATE says nothing about organizations: every organization's generation moves, at once
  // (also those that never had one: counts kept at generation 0 must not survive it).
  await sql`
    CREATE FUNCTION intel_indicator_generation_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO intel_indicator_generations (organization_id, generation) SELECT id, 1 FROM organizations
      ON CONFLICT (organization_id) DO UPDATE SET generation = intel_indicator_generations.generation + 1;
      RETURN NULL;
    END $$`.execute(db);

  await sql`
    CREATE TRIGGER intel_indicator_search_generation_insert AFTER INSERT ON intel_indicator_search
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intel_indicator_generation_mark_new()`.execute(db);
  await sql`
    CREATE TRIGGER intel_indicator_search_generation_delete AFTER DELETE ON intel_indicator_search
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION intel_indicator_generation_mark_old()`.execute(db);
  await sql`
    CREATE TRIGGER intel_indicator_search_generation_update AFTER UPDATE ON intel_indicator_search
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION intel_indicator_generation_mark_both()`.execute(db);
  await sql`
    CREATE TRIGGER intel_indicator_search_generation_truncate AFTER TRUNCATE ON intel_indicator_search
    FOR EACH STATEMENT EXECUTE FUNCTION intel_indicator_generation_truncate()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['insert', 'delete', 'update', 'truncate']) await sql`DROP TRIGGER IF EXISTS ${sql.raw(`intel_indicator_search_generation_${t}`)} ON intel_indicator_search`.execute(db);
  await sql`DROP TABLE IF EXISTS intel_indicator_generation_marks`.execute(db);
  await sql`DROP TABLE IF EXISTS intel_indicator_generations`.execute(db);
  for (const f of ['bump', 'mark_new', 'mark_old', 'mark_both', 'truncate']) await sql`DROP FUNCTION IF EXISTS ${sql.raw(`intel_indicator_generation_${f}`)}()`.execute(db);
}
