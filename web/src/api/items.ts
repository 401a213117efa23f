import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Query } from '../api';

/** Intel items (`/items`): filtered pages and one item with its annotated text. */
export const itemKeys = {
  all: ['items'] as const,
  lists: () => [...itemKeys.all, 'list'] as const,
  list: (query: Query<'/items'>) => [...itemKeys.lists(), query] as const,
  details: () => [...itemKeys.all, 'detail'] as const,
  detail: (id: string) => [...itemKeys.details(), id] as const,
};

export function useItems(query: Query<'/items'>) {
  return useQuery({ queryKey: itemKeys.list(query), queryFn: () => unwrap(api.GET('/items', { params: { query } })), placeholderData: (p) => p });
}

export function useItem(id: string) {
  return useQuery({ queryKey: itemKeys.detail(id), queryFn: () => unwrap(api.GET('/items/{id}', { params: { path: { id } } })) });
}
