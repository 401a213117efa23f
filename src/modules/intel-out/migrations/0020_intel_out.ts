import { sql, type Kysely } from 'kysely';

/**
 * Intel out (issue 14): the STIX objects the TAXII server and the MISP feed serve.
 *
 * intel_indicators holds one row per (item, type, normalized value); a consumer wants one STIX
 * indicator per (organization, type, normalized value), with an id that never changes and a
 * `modified` that moves only when the indicator does, and TAXII's `added_after` needs a
 * `date_added` that grows in commit order (a pull must never miss a change that committed after
 * it with an earlier timestamp). So the objects are materialized:
 *
 * - intel_out_objects: one row per (collection, type, normalized value); the collection is the
 *   organization's "all indicators" collection or one source's. The content columns are the
 *   aggregate of the indicator's rows; `modified` and `date_added` are set when it changes.
 * - intel_out_changes: an append-only queue of (organization, type, normalized value) written by
 *   statement-level triggers on intel_indicators (one set-based INSERT per writing statement),
 *   drained by the refresh (src/modules/intel-out/objects.store.ts), which runs serialized per
 *   organization (an advisory lock) and stamps date_added with the database clock: timestamps
 *   grow in commit order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE intel_out_objects (
      seq bigint GENERATED ALWAYS AS IDENTITY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      collection_id uuid NOT NULL,
      type text NOT NULL,
      normalized_value text NOT NULL,
      stix_id uuid NOT NULL,
      created timestamptz NOT NULL,
      modified timestamptz NOT NULL,
      date_added timestamptz NOT NULL,
      valid_from timestamptz NOT NULL,
      valid_until timestamptz,
      confidence smallint NOT NULL,
      labels text[] NOT NULL,
      revoked boolean NOT NULL DEFAULT false,
      PRIMARY KEY (organization_id, collection_id, type, normalized_value)
    )`.execute(db);
  // TAXII pages: a collection's objects in date_added order (seq breaks ties, the `next` token).
  await sql`CREATE INDEX intel_out_objects_page_idx ON intel_out_objects (organization_id, collection_id, date_added, seq)`.execute(db);
  await sql`CREATE INDEX intel_out_objects_stix_idx ON intel_out_objects (organization_id, stix_id)`.execute(db);

  await sql`
    CREATE TABLE intel_out_changes (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      organization_id uuid NOT NULL,
      type text NOT NULL,
      normalized_value text NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX intel_out_changes_org_idx ON intel_out_changes (organization_id, id)`.execute(db);

  // An UPDATE may move a row to another (type, value): both keys change.
  const keys = {
    insert: 'SELECT organization_id, type, normalized_value FROM new_rows',
    update: 'SELECT organization_id, type, normalized_value FROM new_rows UNION SELECT organization_id, type, normalized_value FROM old_rows',
    delete: 'SELECT organization_id, type, normalized_value FROM old_rows',
  };
  const referencing = { insert: 'NEW TABLE AS new_rows', update: 'OLD TABLE AS old_rows NEW TABLE AS new_rows', delete: 'OLD TABLE AS old_rows' };
  for (const event of ['insert', 'update', 'delete'] as const) {
    await sql.raw(`
      CREATE FUNCTION intel_out_changes_${event}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO intel_out_changes (organization_id, type, normalized_value) SELECT DISTINCT * FROM (${keys[event]}) k;
        RETURN NULL;
      END $$`).execute(db);
    await sql.raw(`
      CREATE TRIGGER intel_indicators_out_${event} AFTER ${event.toUpperCase()} ON intel_indicators
      REFERENCING ${referencing[event]} FOR EACH STATEMENT EXECUTE FUNCTION intel_out_changes_${event}()`).execute(db);
  }
  // Everything already stored is pending: the first refresh materializes it.
  await sql`INSERT INTO intel_out_changes (organization_id, type, normalized_value) SELECT DISTINCT organization_id, type, normalized_value FROM intel_indicators`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const event of ['insert', 'update', 'delete']) {
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(`intel_indicators_out_${event}`)} ON intel_indicators`.execute(db);
    await sql`DROP FUNCTION IF EXISTS ${sql.raw(`intel_out_changes_${event}`)}()`.execute(db);
  }
  await sql`DROP TABLE IF EXISTS intel_out_changes`.execute(db);
  await sql`DROP TABLE IF EXISTS intel_out_objects`.execute(db);
}
