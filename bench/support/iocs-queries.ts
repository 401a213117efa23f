/**
 * The /iocs query mix (deterministic): substrings of domains and URLs, IP prefixes, hash
 * fragments, searches that match nothing, crossed with status filters, some type filters and
 * later pages. Plus the check that an answer has the documented shape and honours its filters.
 */
import { IOC_STATUSES } from '../../src/modules/intel/iocs/iocs.schemas.js';
import { prng } from './stats.js';

export interface IocQuery {
  /** The query shape, for per-shape latency. */
  shape: string;
  search: string;
  status?: (typeof IOC_STATUSES)[number];
  type?: string;
  page?: number;
  perPage?: number;
}

const SHAPES: Record<string, { searches: string[]; type?: string }> = {
  'domain substring': { searches: ['cdn-sync', 'evil-example', 'secure-login-12', 'contoso.ru', 'onedrive-sso-9', 'fabrikam', 'telemetry-5', 'c2-42.evil', 'vpn-gateway-31', 'adatum.top', '.xyz', 'mail-auth-7777'] },
  'url substring': { searches: ['wp-content/uploads', 'http://files-', '/gate/', '.exe', 'panel/'] },
  'ip prefix': { searches: ['203.0.113.', '198.51.100.', '192.0.2.1', '45.', '185.220.', '91.21', '10.13.', '172.16.'] },
  'hash fragment': { searches: ['a3f9', 'deadbe', '0c4f2e91', 'e3b0c442', '9f86d0', 'ffe1', '5d41402a', 'c4ca42'] },
  'no match': { searches: ['zzqx-no-such-indicator', 'nonexistent.invalid', 'ffffffffffffffffffffff', 'qqq.example.zz'] },
  'typed domain': { searches: ['cdn-sync', 'evil-example', 'northwind.io', 'docs-share-4'], type: 'domain' },
  'typed ipv4': { searches: ['203.0.113.', '185.', '77.8'], type: 'ipv4' },
  'typed sha256': { searches: ['a3f9', 'beef', '00ff'], type: 'sha256' },
};

export function buildQueries(count: number, seed = 7): IocQuery[] {
  const rand = prng(seed);
  const shapes = Object.entries(SHAPES);
  const statuses = [undefined, undefined, 'unchecked', 'found', 'clean', 'unknown'] as const;
  const out: IocQuery[] = [];
  for (let i = 0; i < count; i++) {
    const [shape, spec] = shapes[i % shapes.length]!;
    const search = spec.searches[Math.floor(rand() * spec.searches.length)]!;
    const status = statuses[Math.floor(rand() * statuses.length)];
    const r = rand();
    const page = r < 0.7 ? 1 : 2 + Math.floor(rand() * 4);
    const perPage = rand() < 0.8 ? 50 : 100;
    out.push({ shape, search, ...(status ? { status } : {}), ...(spec.type ? { type: spec.type } : {}), page, perPage });
  }
  return out;
}

export function urlFor(q: IocQuery): string {
  const p = new URLSearchParams({ search: q.search });
  if (q.status) p.set('status', q.status);
  if (q.type) p.set('type', q.type);
  if (q.page) p.set('page', String(q.page));
  if (q.perPage) p.set('perPage', String(q.perPage));
  return `/iocs?${p.toString()}`;
}

interface IocListBody {
  rows: Array<Record<string, unknown>>;
  total: number;
  page: number;
  perPage: number;
  hasNext: boolean;
  statusCounts: Record<string, number>;
  availableTypes: string[];
}

/** Throws when the answer is not a 200 with the documented shape honouring the query. */
export function checkAnswer(q: IocQuery, statusCode: number, body: unknown, expectedTypes: readonly string[]): IocListBody {
  const where = `${urlFor(q)}`;
  if (statusCode !== 200) throw new Error(`${where}: HTTP ${statusCode} ${JSON.stringify(body).slice(0, 300)}`);
  const b = body as IocListBody;
  const fail = (why: string) => new Error(`${where}: ${why}`);
  if (!Array.isArray(b.rows) || typeof b.total !== 'number' || typeof b.hasNext !== 'boolean') throw fail('missing rows/total/hasNext');
  if (b.page !== (q.page ?? 1) || b.perPage !== (q.perPage ?? 50)) throw fail(`page ${b.page}/${b.perPage}`);
  if (b.rows.length > b.perPage) throw fail(`${b.rows.length} rows > perPage`);
  for (const s of IOC_STATUSES) if (typeof b.statusCounts?.[s] !== 'number') throw fail(`statusCounts.${s} missing`);
  const sum = IOC_STATUSES.reduce((a, s) => a + b.statusCounts[s]!, 0);
  if (b.total !== (q.status ? b.statusCounts[q.status] : sum)) throw fail(`total ${b.total} disagrees with statusCounts`);
  const expectedRows = Math.max(0, Math.min(b.perPage, b.total - (b.page - 1) * b.perPage));
  if (b.rows.length !== expectedRows) throw fail(`${b.rows.length} rows, expected ${expectedRows}`);
  if (JSON.stringify(b.availableTypes) !== JSON.stringify(expectedTypes)) throw fail(`availableTypes ${JSON.stringify(b.availableTypes)}`);
  for (const r of b.rows) {
    for (const k of ['id', 'value', 'type', 'intelItemId', 'intelTitle', 'sourceLabel', 'status']) if (typeof r[k] !== 'string') throw fail(`row.${k} is not a string`);
    if (!('lastCheckedAt' in r)) throw fail('row.lastCheckedAt missing');
    if (q.status && r.status !== q.status) throw fail(`row status ${String(r.status)}`);
    if (q.type && r.type !== q.type) throw fail(`row type ${String(r.type)}`);
    // value may be defanged (evil[.]com); the search is on the normalized value.
    const plain = String(r.value).replaceAll('[.]', '.').toLowerCase();
    if (!plain.includes(q.search.toLowerCase())) throw fail(`row ${String(r.value)} does not contain the search`);
  }
  return b;
}
