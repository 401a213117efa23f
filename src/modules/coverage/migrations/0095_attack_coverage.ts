import { sql, type Kysely } from 'kysely';

/**
 * Issue 32: detections as code and ATT&CK coverage.
 * - Code detections carry the ATT&CK techniques and tactics they detect, their maturity (the Sigma
 *   statuses) and free tags. Rows registered before keep `stable` (a detection someone wired to a
 *   SIEM is one they run). The (organization, rule id) index serves the Sigma import's
 *   "re-import updates" lookup.
 * - coverage_layers: ATT&CK Navigator layers imported as declared external coverage (another
 *   tool's detections, a DeTT&CT layer), one per organization and name (re-import replaces).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE code_detections
      ADD COLUMN attack_techniques text[] NOT NULL DEFAULT '{}',
      ADD COLUMN attack_tactics text[] NOT NULL DEFAULT '{}',
      ADD COLUMN status text NOT NULL DEFAULT 'stable' CHECK (status IN ('experimental', 'test', 'stable', 'deprecated')),
      ADD COLUMN tags text[] NOT NULL DEFAULT '{}'`.execute(db);
  await sql`CREATE INDEX code_detections_org_rule_idx ON code_detections (organization_id, rule_id) WHERE rule_id IS NOT NULL`.execute(db);
  await sql`
    CREATE TABLE coverage_layers (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      techniques jsonb NOT NULL DEFAULT '[]',
      layer jsonb NOT NULL,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, name)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE coverage_layers`.execute(db);
  await sql`DROP INDEX code_detections_org_rule_idx`.execute(db);
  await sql`ALTER TABLE code_detections DROP COLUMN attack_techniques, DROP COLUMN attack_tactics, DROP COLUMN status, DROP COLUMN tags`.execute(db);
}
