import type { Selectable } from 'kysely';
import type { Queryable } from '../../platform/db/database.js';
import type { ModelProvidersTable } from './models.tables.js';

export type ProviderRow = Selectable<ModelProvidersTable>;

export async function findProviderRow(db: Queryable, organizationId: string, id: string): Promise<ProviderRow | undefined> {
  return db.selectFrom('modelProviders').selectAll().where('organizationId', '=', organizationId).where('id', '=', id).executeTakeFirst();
}

export async function listProviderRows(db: Queryable, organizationId: string): Promise<ProviderRow[]> {
  return db.selectFrom('modelProviders').selectAll().where('organizationId', '=', organizationId).orderBy('name').execute();
}

export async function findAliasRow(db: Queryable, organizationId: string, alias: string) {
  return db.selectFrom('modelAliases').selectAll().where('organizationId', '=', organizationId).where('alias', '=', alias).executeTakeFirst();
}

export async function listAliasRows(db: Queryable, organizationId: string) {
  return db
    .selectFrom('modelAliases as a')
    .innerJoin('modelProviders as p', 'p.id', 'a.providerId')
    .select(['a.alias', 'a.providerId', 'p.name as providerName', 'p.type as providerType', 'a.modelId', 'a.managedBy', 'a.managedSource', 'a.updatedAt'])
    .where('a.organizationId', '=', organizationId)
    .orderBy('a.alias')
    .execute();
}

/** The provider and model an alias points at, or undefined. */
export async function findAliasTarget(db: Queryable, organizationId: string, alias: string): Promise<{ provider: ProviderRow; modelId: string } | undefined> {
  const row = await db
    .selectFrom('modelAliases as a')
    .innerJoin('modelProviders as p', 'p.id', 'a.providerId')
    .selectAll('p')
    .select('a.modelId')
    .where('a.organizationId', '=', organizationId)
    .where('a.alias', '=', alias)
    .executeTakeFirst();
  if (!row) return undefined;
  const { modelId, ...provider } = row;
  return { provider, modelId };
}
