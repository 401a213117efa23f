import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Query } from '../api';
import { resourceKeys } from '../query-keys';

/** Intel items (`/items`): filtered pages and one item with its annotated text. */
export const itemKeys = resourceKeys<Query<'/items'>>('items');

export function useItems(query: Query<'/items'>) {
  return useQuery({ queryKey: itemKeys.list(query), queryFn: () => unwrap(api.GET('/items', { params: { query } })), placeholderData: (p) => p });
}

export function useItem(id: string) {
  return useQuery({ queryKey: itemKeys.detail(id), queryFn: () => unwrap(api.GET('/items/{id}', { params: { path: { id } } })) });
}
