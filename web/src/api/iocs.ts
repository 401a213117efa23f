import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Query } from '../api';
import { resourceKeys } from '../query-keys';

/** Indicators (`/iocs`): the IOC search's pages. */
export const iocKeys = resourceKeys<Query<'/iocs'>>('iocs');

export function useIocs(query: Query<'/iocs'>) {
  return useQuery({ queryKey: iocKeys.list(query), queryFn: () => unwrap(api.GET('/iocs', { params: { query } })), placeholderData: (p) => p });
}

type IocRow = Awaited<ReturnType<typeof listIocs>>['rows'][number];
const listIocs = (query: Query<'/iocs'>) => unwrap(api.GET('/iocs', { params: { query } }));

/** Every matching indicator, page by page (100 a page), up to `maxPages` pages: for an export, not cached. */
export async function fetchAllIocs(filters: Record<string, string | null>, maxPages = 50): Promise<IocRow[]> {
  const rows: IocRow[] = [];
  for (let page = 1; page <= maxPages; page++) {
    const d = await listIocs({ ...filters, page, perPage: 100 } as Query<'/iocs'>);
    rows.push(...d.rows);
    if (!d.hasNext) break;
  }
  return rows;
}
