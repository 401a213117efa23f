import type { CompiledQuery, Compilable, Kysely, RawBuilder } from 'kysely';
import type { DB } from './schema.js';

/** database.ts's Queryable (not imported: database.ts imports this file). */
type Queryable = Kysely<DB>;

/**
 * A hot statement built once and run as a named prepared statement, for paths where building
 * the SQL costs more than the statement (webhook intake: Kysely building and transforming two
 * large statements was ~15% of the server's CPU, and PostgreSQL parsing and planning them again
 * at every delivery a large part of its own).
 *
 * `build` writes the statement with Kysely as usual, with `p('name')` wherever a value varies;
 * it runs once, on first use, and the compiled SQL is kept with where each parameter comes from.
 * `execute(db, values)` then sends that SQL with the values under a statement name
 * (`openDatabase`'s pool prepares it once per connection; PostgreSQL reuses the parse and, once
 * it is as good, the plan). Result rows go through the plugins (camelCase keys) like any query's.
 * What the statement answers must not depend on a table's column list (no `RETURNING *` in the
 * final SELECT): a prepared statement whose result shape changes after a migration fails.
 */
export interface PreparedStatement<K extends string, R> {
  execute(db: Queryable, values: Readonly<Record<K, unknown>>): Promise<R[]>;
  /** The SQL it sends and, for each `$n`, the value key it takes (`{ key }`) or the constant it always sends (`{ value }`): what tests compare. */
  compiled(db: Queryable): { sql: string; parameters: ReadonlyArray<{ key: K } | { value: unknown }> };
}

/** SQL text → statement name, for the pool (database.ts). */
const names = new Map<string, string>();

export function preparedName(sqlText: string): string | undefined {
  return names.get(sqlText);
}

const SENTINEL = '\u0000rampart-param:';

type Param<K extends string> = <T = string>(key: K) => T;

export function prepared<K extends string, R>(name: string, build: (db: Queryable, p: Param<K>) => Compilable<R> | RawBuilder<R>): PreparedStatement<K, R> {
  let compiled: { query: CompiledQuery<R>; slots: Array<{ key: K } | { value: unknown }> } | null = null;
  const compile = (db: Queryable) => {
    const built = build(db, <T,>(key: K) => `${SENTINEL}${key}` as T);
    const query = ('isRawBuilder' in built ? built.compile(db) : built.compile()) as CompiledQuery<R>;
    const slots = query.parameters.map((v) => (typeof v === 'string' && v.startsWith(SENTINEL) ? { key: v.slice(SENTINEL.length) as K } : { value: v }));
    names.set(query.sql, `rampart_${name}`);
    return { query, slots };
  };
  return {
    compiled(db) {
      compiled ??= compile(db);
      return { sql: compiled.query.sql, parameters: compiled.slots };
    },
    async execute(db, values) {
      compiled ??= compile(db);
      const parameters = compiled.slots.map((s) => ('key' in s ? values[s.key] : s.value));
      const result = await db.executeQuery<R>({ ...compiled.query, parameters });
      return result.rows;
    },
  };
}
