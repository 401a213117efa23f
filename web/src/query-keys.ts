/**
 * The one shape of a resource's query keys (web/src/api/<resource>.ts): every key starts with
 * `all` (`[root]`), so invalidating `all` reaches every query of the resource and no other's;
 * the lists sit under `lists()` and one record under `detail(id)`, so a save can invalidate
 * every list and leave the record it just cached alone.
 *
 * `Q` is what one list is keyed by (its query, or an agent id; none when omitted). A resource's
 * own keys extend these: `resourceKeys<Q>('agents').with((k) => ({ picker: () => [...k.lists(), 'picker'] as const }))`.
 * scripts/console-queries.ts reads the root from the `resourceKeys('<root>')` call.
 */
export interface ResourceKeys<Q> {
  all: readonly [string];
  lists(): readonly [string, 'list'];
  list(...query: [Q] extends [void] ? [] : [query: Q]): [Q] extends [void] ? readonly [string, 'list'] : readonly [string, 'list', Q];
  details(): readonly [string, 'detail'];
  detail(id: string): readonly [string, 'detail', string];
}

export function resourceKeys<Q = void>(root: string): ResourceKeys<Q> & {
  /** These keys and the resource's own, built on them. */
  with<More extends object>(more: (keys: ResourceKeys<Q>) => More): ResourceKeys<Q> & More;
} {
  const all = [root] as const;
  const keys: ResourceKeys<Q> = {
    all,
    lists: () => [...all, 'list'] as const,
    // A list keyed by nothing has no third element (not `undefined`); the type above says which.
    list: ((...query: unknown[]) => [...all, 'list', ...query]) as unknown as ResourceKeys<Q>['list'],
    details: () => [...all, 'detail'] as const,
    detail: (id) => [...all, 'detail', id] as const,
  };
  return { ...keys, with: (more) => ({ ...keys, ...more(keys) }) };
}
